"""Which `verify.command` argument lists the auditor may run at all.

The policy is the first of several walls (the runner adds rlimits, a clean environment and,
where available, a bubblewrap sandbox). It is deliberately conservative: a refused harmless
command costs a "skipped by policy" line; an allowed harmful one could change the palace.
Every rule here is about the argument list alone; nothing is executed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Read-only programs a palace may use unless palace.toml `[audit] allow` says otherwise.
#: git and find are included but argument-checked below.
DEFAULT_ALLOW: tuple[str, ...] = ("test", "ls", "stat", "grep", "rg", "git", "find")

GIT_SUBCOMMANDS = frozenset({"status", "log", "show", "diff", "ls-files", "rev-parse"})

# git global options (before the subcommand) that take no value and change nothing dangerous.
_GIT_SAFE_GLOBALS = frozenset(
    {
        "--no-pager",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-replace-objects",
    }
)

# Long git options that run programs, write files, or point git somewhere else. git accepts
# unambiguous abbreviations of long options (`--outp=x` means `--output=x`), so an option is
# refused when it is a prefix of one of these, or one of these is a prefix of it.
_GIT_BAD_LONG = (
    "output",
    "ext-diff",
    "textconv",
    "exec",
    "exec-path",
    "git-dir",
    "work-tree",
    "upload-pack",
    "config-env",
    "pager",
    "paginate",
    "no-index",
    "open-files-in-pager",
    "namespace",
    "super-prefix",
)
_GIT_BAD_SHORT = frozenset({"-c", "-C", "-p", "-P"})

_FIND_BAD = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)

# Long options that write files, refused for every program (prefix-matched like git's).
_GENERIC_BAD_LONG = ("output", "output-file", "output-directory", "log-file")

# grep short options that consume the rest of their cluster (or the next argument) as a value.
_GREP_VALUE_SHORT = frozenset("efmABCdD")


@dataclass(frozen=True)
class PolicyDecision:
    """Whether a command may run; `reason` is a short phrase fit for "skipped by policy: …"."""

    allowed: bool
    reason: str


def validate_argv(argv: object) -> list[str]:
    """Raise TypeError/ValueError unless argv is a non-empty list of strings.

    A malformed argv is a programmer (or note-parsing) error, not a policy decision.
    """
    if not isinstance(argv, list):
        raise TypeError(f"argv must be a list of strings, not {type(argv).__name__}")
    if not argv:
        raise ValueError("argv must not be empty")
    for i, item in enumerate(argv):
        if not isinstance(item, str):
            raise TypeError(f"argv[{i}] must be a string, not {type(item).__name__}")
    return argv


def _long_name(arg: str) -> str | None:
    """`--name=value` → `name`; None for anything that is not a long option."""
    if not arg.startswith("--") or arg == "--":
        return None
    return arg[2:].split("=", 1)[0]


def _matches_bad_long(name: str, bad: Sequence[str]) -> str | None:
    """The dangerous option `name` abbreviates or extends, if any."""
    if not name:
        return None
    for b in bad:
        if b.startswith(name) or name.startswith(b):
            return b
    return None


def _check_git(args: list[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        if arg in _GIT_BAD_SHORT or arg.startswith(("-c", "-C")):
            return f"git {arg} is not allowed"
        name = _long_name(arg)
        if name is not None and (hit := _matches_bad_long(name, _GIT_BAD_LONG)):
            return f"git --{hit} is not allowed"
        if arg not in _GIT_SAFE_GLOBALS:
            return f"git option {arg} before the subcommand is not allowed"
        i += 1
    if i == len(args):
        return "git needs a subcommand"
    sub = args[i]
    if sub not in GIT_SUBCOMMANDS:
        allowed = ", ".join(sorted(GIT_SUBCOMMANDS))
        return f"git {sub} is not allowed (only {allowed})"
    for arg in args[i + 1 :]:
        if arg == "--":
            break
        if arg in ("-c", "-C") or arg.startswith("-c="):
            return f"git {sub} {arg} is not allowed"
        name = _long_name(arg)
        if name is not None and (hit := _matches_bad_long(name, _GIT_BAD_LONG)):
            return f"git --{hit} is not allowed"
    return None


def _check_find(args: list[str]) -> str | None:
    for arg in args:
        if arg in _FIND_BAD:
            return f"find {arg} is not allowed"
    return None


def _check_rg(args: list[str]) -> str | None:
    for arg in args:
        if arg == "--":
            break
        name = _long_name(arg)
        if name in ("pre", "pre-glob"):
            return f"rg --{name} is not allowed"
    return None


def _check_grep(args: list[str]) -> str | None:
    expect_value = False
    for arg in args:
        if expect_value:
            expect_value = False
            continue
        if arg == "--":
            break
        name = _long_name(arg)
        if name is not None:
            if name in ("recursive", "dereference-recursive"):
                return f"grep --{name} is not allowed"
            continue
        if arg.startswith("-") and len(arg) > 1:
            for j, ch in enumerate(arg[1:], start=1):
                if ch in "rR":
                    return f"grep -{ch} is not allowed"
                if ch in _GREP_VALUE_SHORT:
                    expect_value = j == len(arg) - 1
                    break
    return None


_PROGRAM_RULES: dict[str, Callable[[list[str]], str | None]] = {
    "git": _check_git,
    "find": _check_find,
    "rg": _check_rg,
    "grep": _check_grep,
}


def check(argv: list[str], allow: Sequence[str]) -> PolicyDecision:
    """Decide whether `argv` may run, given the palace's allowlist of program names.

    Raises TypeError/ValueError only for a malformed argv; everything else is a decision.
    """
    validate_argv(argv)
    if isinstance(allow, str):
        raise TypeError("allow must be a sequence of program names, not a string")
    program = argv[0]
    if not program:
        return PolicyDecision(False, "the program name is empty")
    if any("\0" in a for a in argv):
        return PolicyDecision(False, "arguments must not contain NUL characters")
    if "/" in program:
        return PolicyDecision(False, f"{program!r} is a path; give a bare program name")
    if program not in allow:
        return PolicyDecision(False, f"{program} is not on the allowlist")
    args = argv[1:]
    for arg in args:
        name = _long_name(arg)
        if name is not None and (hit := _matches_bad_long(name, _GENERIC_BAD_LONG)):
            return PolicyDecision(False, f"{program} --{hit} (writes a file) is not allowed")
    rule = _PROGRAM_RULES.get(program)
    if rule is not None and (why := rule(args)):
        return PolicyDecision(False, why)
    return PolicyDecision(True, "allowed")
