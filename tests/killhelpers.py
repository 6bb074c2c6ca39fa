"""The child side of the kill tests: a Python audit hook that counts the file-system and process
events a writer goes through and SIGKILLs the process at the k-th one (test_writer_crashpoints,
test_sync_faults). `labels` names each event counted (a git command by its subcommand)."""

AUDIT_KILL = """
import os, signal
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT
EVENTS = {"os.rename", "os.remove", "os.link", "os.mkdir", "os.rmdir", "subprocess.Popen"}
seen = 0
labels = []

def audit(event, args):
    global seen
    if event == "open":
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        if not (flags & WRITES or any(c in mode for c in "wax+")):
            return
    elif event not in EVENTS:
        return
    seen += 1
    if event == "subprocess.Popen":
        argv = list(args[1]) if len(args) > 1 else []
        labels.append("git " + next((str(a) for a in argv[1:] if not str(a).startswith("-")), ""))
    else:
        labels.append(event + " " + os.path.basename(str(args[0])))
    if seen == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
"""
