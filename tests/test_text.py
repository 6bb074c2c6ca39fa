"""curator.model.text.clean: untrusted text made safe for a terminal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opcount import grows_linearly

from curator.model.text import clean, has_escapes, one_line

CASES = [
    ("csi-colour", "a\x1b[31mred\x1b[0mb", "aredb"),
    ("csi-clear", "x\x1b[2J\x1b[Hy", "xy"),
    ("csi-private", "x\x1b[?1049hy", "xy"),
    ("osc-bel", "x\x1b]0;window title\x07y", "xy"),
    ("osc-st", "x\x1b]8;;https://evil.invalid\x1b\\link\x1b]8;;\x1b\\y", "xlinky"),
    ("osc-unterminated", "x\x1b]0;title to the end", "x"),
    ("dcs", "x\x1bPq#0;2;0;0;0\x1b\\y", "xy"),
    ("apc", "x\x1b_hidden\x1b\\y", "xy"),
    ("lone-esc", "x\x1by", "x"),
    ("esc-at-end", "xy\x1b", "xy"),
    ("two-byte-esc", "x\x1b(0y", "xy"),
    ("c1-csi", "x\x9b31my", "xy"),
    ("c1-osc", "x\x9d0;t\x9cy", "xy"),
    ("c1-alone", "x\x85\x8ey", "xy"),
    ("c0-controls", "a\x00b\x07c\x08d\x7fe", "abcde"),
    ("cr", "over\rwrite", "over\nwrite"),
    ("crlf", "a\r\nb", "a\nb"),
    ("tab-and-newline-kept", "a\tb\nc", "a\tb\nc"),
    ("bidi-rlo", "abc\u202edcb\u202c", "abc<RLO>dcb<PDF>"),
    (
        "bidi-isolates",
        "\u2066x\u2069\u2067y\u2069\u2068z\u2069",
        "<LRI>x<PDI><RLI>y<PDI><FSI>z<PDI>",
    ),
    ("bidi-marks", "\u200e\u200f\u061c", "<LRM><RLM><ALM>"),
    ("plain-unicode", "café — naïve 日本", "café — naïve 日本"),
]


@pytest.mark.parametrize(("raw", "expected"), [pytest.param(r, e, id=i) for i, r, e in CASES])
def test_clean(raw: str, expected: str) -> None:
    out = clean(raw)
    assert out == expected
    assert not any(ch in out for ch in "\x1b\x07\x9b\x9d\x9c\x00\x7f")
    assert clean(out) == out  # idempotent
    assert has_escapes(raw) == (raw != expected and raw.replace("\r\n", "\n") != expected)


def test_one_line_folds_and_cuts() -> None:
    assert one_line("a\n\tb   c\x1b[1m d") == "a b c d"
    assert one_line("abcdefghij", 5) == "abcd…"
    assert one_line("abc", 5) == "abc"


def test_clean_without_newlines() -> None:
    assert clean("a\nb\tc\rd", keep_newlines=False) == "a b c d"


def test_has_escapes_on_clean_text() -> None:
    assert not has_escapes("plain text\nwith lines\r\nand tabs\t")


TERMINAL_CHARS = ["\x1b", "\x9b", "\x9d", "\x90", "[", "]", "\\", "\x07", "\x9c", "0", ";", "m"]


@settings(deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(TERMINAL_CHARS), st.characters()), max_size=200))
def test_cleaned_text_holds_no_escapes(text: str) -> None:
    out = clean(text)
    assert not has_escapes(out), repr(out)
    assert "\x1b" not in out and "\r" not in out
    flat = one_line(text)
    assert "\n" not in flat and not has_escapes(flat)


@pytest.mark.parametrize(
    "unit", ["\x1b[", "\x1b[0", "\x1b]", "\x1bP", "\x9b0", "\u202e", "\x1b[" + "0" * 50 + "\x00"]
)
def test_clean_costs_linear_time(unit: str) -> None:
    """8x the input costs at most 8x the operations (tests/opcount.py)."""
    linear, small, large = grows_linearly(lambda n: clean(unit * n), 10_000)
    assert linear, f"{unit!r}: 8x the input took {large} operations against {small}"


def test_the_operation_count_sees_quadratic_cost() -> None:
    """The counter behind the linear-cost tests tells a quadratic loop from a linear one."""

    def quadratic(n: int) -> None:
        text = ""
        for _ in range(n):
            text = "".join([text, "x"]).replace("y", "z")  # a C call per step
            for _ in range(len(text)):
                pass

    assert grows_linearly(lambda n: clean("\u202e" * n), 100)[0]
    assert not grows_linearly(quadratic, 100)[0]
