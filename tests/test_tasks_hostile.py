"""A checkpoint revision is text an agent wrote: reading any bytes either gives a checkpoint
or one BadCheckpoint sentence, never another exception (issue 11's crash classes included)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.tasks.checkpoint import parse
from curator.tasks.errors import BadCheckpoint

HOSTILE_VALUES = [
    "!!float abc", "!!bool maybe", "!!timestamp soon", "0b_", "0x_", "1e400", "-1e400",
    "9" * 5000, "1:" * 2000 + "0", "[" * 500, "{" * 500, "&a x", "*a", "!!binary ===",
    "\x0bowner: x", "\u00a0NO", "NaN", "[1, 2", '"unterminated',
]  # fmt: skip
KEYS = ["task", "revision", "owner", "saved_at", "status", "unverified", "next_action", "x"]


def _read(data: bytes) -> None:
    try:
        parse(data)
    except BadCheckpoint:
        pass


@settings(deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    _read(data)
    _read(b"---\n" + data + b"\n---\n## Objective\nx\n")


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(KEYS), st.sampled_from(HOSTILE_VALUES) | st.text(max_size=40)),
        max_size=12,
    )
)
def test_hostile_header_values(fields: list[tuple[str, str]]) -> None:
    head = "".join(f"{k}: {v}\n" for k, v in [("task", "t"), ("revision", "1"), *fields])
    _read(f"---\n{head}---\n## Objective\nDo it.\n".encode("utf-8", "surrogatepass"))
