"""curator.runtime: the one place process tuning lives, applied once, and switchable off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from palacehelpers import MakePalace, note_text

PROBE = """
import json, sys
from curator.runtime import tune_process
print(json.dumps([tune_process(), tune_process()]))
"""


def probe(**env: str) -> list[bool]:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("CURATOR_NO_TUNING", "MALLOC_ARENA_MAX")
    }
    proc = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env={**clean, **env},
        check=True,
    )
    return json.loads(proc.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_tuning_applies_once_and_stays() -> None:
    assert probe() == [True, True]


def test_tuning_can_be_turned_off_and_glibcs_own_switch_wins() -> None:
    assert probe(CURATOR_NO_TUNING="1") == [False, False]
    assert probe(CURATOR_NO_TUNING="gc, arenas") == [False, False]
    assert probe(MALLOC_ARENA_MAX="4") == [False, False]


def test_each_trick_has_its_own_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    """CURATOR_NO_TUNING turns off all the tricks ("1") or the ones it names, so a benchmark
    row can measure each with and without in the same run."""
    from curator.runtime import tuned

    monkeypatch.delenv("CURATOR_NO_TUNING", raising=False)
    assert tuned("gc") and tuned("css") and tuned("arenas")
    monkeypatch.setenv("CURATOR_NO_TUNING", "1")
    assert not tuned("gc") and not tuned("css")
    monkeypatch.setenv("CURATOR_NO_TUNING", "css")
    assert tuned("gc") and not tuned("css") and tuned("arenas")


def test_the_quick_exit_ends_with_the_code_after_what_was_flushed() -> None:
    """A hook process's last line: its exit code, its flushed output kept, no teardown (an
    atexit handler shows whether the interpreter tore down); switched off, a normal exit."""
    code = (
        "import atexit, sys\n"
        "from curator.runtime import quick_exit\n"
        "atexit.register(lambda: print('teardown'))\n"
        "sys.stdout.write('answer\\n'); sys.stdout.flush()\n"
        "quick_exit(3)\n"
        "sys.exit(0)\n"
    )
    clean = {k: v for k, v in os.environ.items() if k != "CURATOR_NO_TUNING"}
    quick = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean)
    assert (quick.returncode, quick.stdout) == (3, "answer\n")
    slow = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env={**clean, "CURATOR_NO_TUNING": "exit"},
    )  # fmt: skip
    assert (slow.returncode, slow.stdout) == (0, "answer\nteardown\n")


def run_probe(probe: str, root: Path, untuned: str) -> list[Any]:
    """What `probe` prints (JSON) run on the palace at `root`, with CURATOR_NO_TUNING set to
    `untuned` (unset when empty)."""
    env = {k: v for k, v in os.environ.items() if k != "CURATOR_NO_TUNING"}
    if untuned:
        env["CURATOR_NO_TUNING"] = untuned
    argv = [sys.executable, "-c", probe, str(root)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    result: list[Any] = json.loads(proc.stdout)
    return result


FREEZE_PROBE = """
import contextlib, gc, io, json, sys
from curator.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["--palace", sys.argv[1], "list"])
print(json.dumps([code, gc.get_freeze_count()]))
"""


def test_a_command_freezes_the_palace_it_loaded(make_palace: MakePalace) -> None:
    """A command holds the palace it loaded to its end: the collector's full collections no
    longer scan its notes (issue 34); CURATOR_NO_TUNING=freeze turns that off."""
    root = make_palace({"notes/project/a.md": note_text("A")})
    for untuned, frozen in (("", True), ("freeze", False)):
        code, count = run_probe(FREEZE_PROBE, root, untuned)
        assert code == 0 and (count > 0) is frozen


PAUSE_PROBE = """
import contextlib, gc, io, json, sys
from curator.cli import main
from curator.model.palace import Palace

seen = []
opened = Palace.open.__func__


def open_and_look(cls, *args, **kwargs):
    seen.append(gc.isenabled())
    return opened(cls, *args, **kwargs)


Palace.open = classmethod(open_and_look)
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["--palace", sys.argv[1], "list"])
print(json.dumps([code, seen, gc.isenabled()]))
"""


def test_a_command_loads_its_palace_with_the_collector_paused(make_palace: MakePalace) -> None:
    """A command's load runs with the cyclic collector off (a load makes no cyclic garbage,
    and each full collection rescanned every note loaded so far) and on again after it;
    CURATOR_NO_TUNING=pause turns that off."""
    root = make_palace({"notes/project/a.md": note_text("A")})
    for untuned, paused in (("", True), ("pause", False)):
        code, seen, after = run_probe(PAUSE_PROBE, root, untuned)
        assert code == 0 and seen == [not paused] and after


FREEZE_ORDER_PROBE = """
import contextlib, gc, io, json, sys
import curator.runtime
from curator.cli import main

seen = []
freeze = curator.runtime.freeze_loaded


def look_and_freeze():
    seen.append(gc.isenabled())
    return freeze()


curator.runtime.freeze_loaded = look_and_freeze
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["--palace", sys.argv[1], "list"])
print(json.dumps([code, seen, gc.isenabled()]))
"""


def test_a_command_freezes_its_palace_before_the_collector_is_on_again(
    make_palace: MakePalace,
) -> None:
    """The collector's first collection after a paused load scanned every object the load
    made (0.5-1.4 s of CPU at 100k notes): the palace is frozen while the collector is off."""
    root = make_palace({"notes/project/a.md": note_text("A")})
    code, seen, after = run_probe(FREEZE_ORDER_PROBE, root, "")
    assert code == 0 and seen == [False] and after
