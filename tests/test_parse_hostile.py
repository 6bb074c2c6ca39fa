"""Hostile notes (issue 11): parse_note never raises, costs time linear in its input, reads
what libyaml reads (or reports a problem) and keeps nothing from one load to the next.

Each class of hostile input has a generator here or in benchmarks/gen_hostile.py; the
hypothesis tests run many inputs of each class.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opcount import grows_linearly
from yamlref import compare

from benchmarks import gen_hostile
from curator.model.note import MAX_BYTES, Note, parse_note
from curator.model.yaml import MAX_DEPTH

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEAD = "---\nname: N\ndescription: D\ntype: project\n"


def parsed(data: bytes) -> Note:
    """parse_note must return a Note for any bytes: parsed, or with a problem saying why."""
    note = parse_note("notes/x.md", data)
    assert isinstance(note, Note)
    assert note.ok or any(p.severity == "error" for p in note.problems), note
    return note


def with_header(header: str, body: str = "body\n") -> bytes:
    return f"---\n{header}\n---\n{body}".encode()


# -- never raises ---------------------------------------------------------------------------


@SETTINGS
@given(st.binary(max_size=4000))
def test_arbitrary_bytes(data: bytes) -> None:
    parsed(data)
    parsed(b"---\n" + data + b"\n---\n")


YAML_CHARS = (
    list(":-?[]{},#&*!|>'\"%@`~=<. \t\n\r")
    + list("aZ09_")
    + [
        *("\x85", "\u00a0", "\u2000", "\u2028", "\u3000", "\ufeff", "\x0b", "\x0c", "\x1c", "é"),
    ]
)


@SETTINGS
@given(st.text(alphabet=YAML_CHARS, max_size=300))
def test_yaml_like_headers_never_raise_and_match_libyaml(header: str) -> None:
    parsed(with_header(header))
    if not any(c in header for c in "\r"):  # the note splits lines before YAML sees them
        compare(header + "\n")


# -- constructors that raise something other than YAMLError ----------------------------------

CONSTRUCTOR_CASES = [
    "!!float abc",
    "!!bool maybe",
    "!!timestamp soon",
    "0b_",
    "0x_",
    "!!int ''",
    "!!int 1.5",
    "!!null x",
    "!!binary aGk=",
    "!!set {a, b}",
    "!foo x",
    "1" * 4301,
    "0x" + "f" * 3600,
    "1" + ":0" * 3000,
    "1" + ":0" * 400 + ".5",  # base-60 float: OverflowError
    "!!float 1" + "0" * 400,
]


@pytest.mark.parametrize("value", CONSTRUCTOR_CASES, ids=lambda v: v[:20])
def test_constructor_failures_are_problems(value: str) -> None:
    note = parsed(with_header(f"name: N\nvalue: {value}"))
    assert compare(f"name: N\nvalue: {value}\n") in ("read", "refused")
    if not note.ok:
        assert [(p.code, p.line) for p in note.problems] == [("header.yaml", 3)], note.problems


@SETTINGS
@given(
    st.sampled_from(["!!float", "!!bool", "!!timestamp", "!!int", "!!null", "!!str", ""]),
    st.one_of(
        st.from_regex(r"\A[-+]?(0[bxo])?[0-9a-fA-F_:.]{0,12}\Z"),
        st.text(alphabet="0123456789_:.eE+-xbo", max_size=20),
        st.text(max_size=12),
    ),
)
def test_tagged_and_numeric_scalars(tag: str, value: str) -> None:
    text = f"name: N\nvalue: {tag} {value}"
    parsed(with_header(text))
    if "\r" not in text:
        compare(text + "\n")


@settings(max_examples=60, deadline=None)
@given(st.integers(4200, 6000), st.sampled_from(["", "0x", "0o", "-"]))
def test_long_integers(digits: int, prefix: str) -> None:
    note = parsed(with_header(f"name: N\nn: {prefix}{'7' * digits}"))
    if digits > 4300 and prefix != "0o":  # 0o17 is YAML 1.2: libyaml reads a string
        assert not note.ok and "integer is too" in note.problems[0].message


# -- deep nesting -----------------------------------------------------------------------------


def nested(depth: int, style: str) -> str:
    if style == "flow-list":
        return "n: " + "[" * depth + "]" * depth
    if style == "flow-map":
        return "n: " + "{a: " * depth + "1" + "}" * depth
    if style == "block-list":
        return "n:\n" + "\n".join(" " * i + "-" for i in range(depth))
    return "n:\n" + "\n".join(" " * i + f"k{i}:" for i in range(1, depth + 1))


@settings(deadline=None)
@given(st.integers(1, 3000), st.sampled_from(["flow-list", "flow-map", "block-list", "block-map"]))
def test_deep_nesting(depth: int, style: str) -> None:
    note = parsed(with_header(nested(depth, style)))
    if depth >= MAX_DEPTH + 1:
        assert not note.ok
    elif depth < MAX_DEPTH - 2:
        assert note.ok, note.problems
        compare(nested(depth, style) + "\n")


# -- no silent change: Unicode spaces and control characters ---------------------------------

ODD = [
    *("\u00a0", "\u2000", "\u2005", "\u200a", "\u3000", "\u2028", "\u2029", "\x85", "\ufeff"),
    *("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\t", " "),
]
WORDS = ["NO", "yes", "on", "1", "0.5", "~", "a", "b c", "2026-01-01", "-", "x: y"]


@SETTINGS
@given(
    st.lists(
        st.tuples(st.sampled_from([*ODD, ""]), st.sampled_from(WORDS), st.sampled_from([*ODD, ""])),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["list", "map-key", "value", "block-list"]),
)
def test_unicode_spaces_and_controls_match_libyaml(
    parts: list[tuple[str, str, str]], where: str
) -> None:
    items = ["".join(p) for p in parts]
    if where == "list":
        header = "k: [" + ", ".join(items) + "]"
    elif where == "map-key":
        header = "\n".join(f"{item}: v{i}" for i, item in enumerate(items))
    elif where == "value":
        header = "\n".join(f"k{i}: {item}" for i, item in enumerate(items))
    else:
        header = "k:\n" + "\n".join(f"  - {item}" for item in items)
    parsed(with_header(header))
    compare(header + "\n")


def test_nbsp_in_a_list_is_kept() -> None:
    note = parsed(with_header("name: N\nk: [\u00a0NO, NO]"))
    assert note.header["k"] == ["\u00a0NO", False]


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_control_character_is_not_a_line_break(char: str) -> None:
    note = parsed(with_header(f"name: N\na: x{char}b: y"))
    assert not note.ok and note.problems[0].line == 3
    assert "not allowed" in note.problems[0].message


# -- differential on generated data -----------------------------------------------------------

SCALARS = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["2026-01-01", "yes", "NO", "0x1F", "1:30", "1_000", ".inf", "~", "null"]),
)
DATA = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@SETTINGS
@given(
    st.dictionaries(st.text(min_size=1, max_size=10), DATA, min_size=1, max_size=5),
    st.sampled_from([None, True, False]),
    st.sampled_from([None, '"', "'"]),
)
def test_dumped_headers_match_libyaml(data: dict, flow: bool | None, style: str | None) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, default_style=style, allow_unicode=True)
    parsed(with_header(text))
    if "\r" not in text:
        compare(text)


# -- cost linear in the input -----------------------------------------------------------------


@pytest.mark.parametrize("name", list(gen_hostile.CLASSES))
def test_cost_grows_linearly(name: str) -> None:
    """A note an eighth of the size limit is parsed in at most 8x the operations of one a
    64th of it (tests/opcount.py; the seconds are benchmarks/gen_hostile.py's, up to the
    limit). Counted below the limit: each traced operation costs ~1 us, and a constant
    overhead small beside 16 KiB of input cannot hide a quadratic term at 8x the input. The
    note just under the limit is still parsed (and is not over it: it would not be parsed)."""
    make = gen_hostile.CLASSES[name]
    size = gen_hostile.MIB - 4096
    assert len(make(size)) <= MAX_BYTES  # over the limit it would not be parsed at all
    parsed(make(size))
    linear, small, large = grows_linearly(lambda n: parsed(make(n)), size // 64)
    assert linear, f"{name}: 8x the input took {large} operations against {small}"


# -- nothing kept from one load to the next ---------------------------------------------------


def load_round(seed: int) -> None:
    notes = [
        parse_note(
            f"notes/n{i}.md",
            (
                f"{HEAD}created: 2026-01-{i % 28 + 1:02d}\nid: r{seed}-{i}\n"
                f"tags: [t{seed}-{i}, x]\nverify: {{paths: [p{i}]}}\n---\n[[link-{seed}-{i}]]\n"
            ).encode(),
        )
        for i in range(2000)
    ]
    assert all(note.ok for note in notes)


def test_repeated_loads_keep_nothing() -> None:
    """Loading new notes twice: memory after the second load (notes dropped) is where it was
    after the first; nothing process-wide (a cache, interned strings) keeps first-load
    objects alive. In a fresh interpreter, so other tests' imports and caches do not count."""
    import json
    import subprocess
    import sys

    code = """
import gc, json, tracemalloc, sys
sys.path[:0] = ["tests", "."]
from test_parse_hostile import load_round
load_round(0)  # warm up: imports, regex caches
gc.collect()
tracemalloc.start()
load_round(1)
gc.collect()
first = tracemalloc.get_traced_memory()[0]
load_round(2)
gc.collect()
print(json.dumps([first, tracemalloc.get_traced_memory()[0]]))
"""
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root
    )
    assert proc.returncode == 0, proc.stderr
    after_first, after_second = json.loads(proc.stdout.strip().splitlines()[-1])
    assert after_second - after_first < 64 * 1024, (after_first, after_second)
