"""A secret in a draft's name never reaches its file name (issue 11): `ls`, shell history and
git's messages show file names. Generated names with secrets of every kind the scanner knows,
anywhere in the name, around arbitrary text."""

from __future__ import annotations

import string
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.writer.capture import capture, slugify
from curator.writer.secrets import added_secrets, scan

ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits


def _token(prefix: str, alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size).map(lambda s: prefix + s)


SECRETS = st.one_of(
    _token("AKIA", UPPER_NUM, 16),
    _token("sk_live_", ALNUM, 24),
    _token("ghp_", ALNUM, 36),
    _token("xoxb-", ALNUM, 20),
    _token("AIza", ALNUM, 35),
)
WORDS = st.text(string.ascii_letters + " -_.,:", max_size=40)


def _core(secret: str) -> str:
    """The part of the secret a slug could carry: lower-case letters and digits."""
    return "".join(c for c in secret.lower() if c.isalnum())


@settings(deadline=None)
@given(before=WORDS, secret=SECRETS, after=WORDS)
def test_no_flagged_secret_survives_into_the_slug(before: str, secret: str, after: str) -> None:
    name = f"{before} {secret} {after}"
    assert scan(name), name  # the generator makes what the scanner flags
    slug = slugify(name)
    core = _core(secret)
    around = slugify(f"{before} {after}")  # what the text around the secret gives anyway
    # no run of 12 characters of the secret is left in the slug (unless the text has it too)
    runs = [core[i : i + 12] for i in range(len(core) - 11)]
    assert not [r for r in runs if r in slug and r not in around], (name, slug)


@settings(deadline=None)
@given(name=st.text(max_size=200))
def test_slug_is_safe_for_any_name(name: str) -> None:
    slug = slugify(name)
    assert slug and len(slug) <= 60
    assert set(slug) <= set(string.ascii_lowercase + string.digits + "-")


def test_capture_file_name_leaves_the_secret_out(sample_palace: Path) -> None:
    secret = "sk_live_" + "a1B2c3D4e5F6g7H8i9J0k1L2"
    result = capture(sample_palace, type="project", name=f"Stripe key {secret} rotates", body="b\n")
    assert "a1b2c3d4" not in result.path.lower()
    assert result.path.endswith("stripe-key-rotates.md")


@settings(deadline=None)
@given(text=WORDS, held=SECRETS, pasted=SECRETS, where=st.integers(0, 40))
def test_an_edit_reports_only_the_secret_it_adds(
    text: str, held: str, pasted: str, where: int
) -> None:
    """`added_secrets` (an edited merge's check) names a pasted secret and never one the text
    already held, wherever the edit puts it."""
    before = f"{text}\nkept: {held}\n"
    cut = min(where, len(before))
    after = f"{before[:cut]} {pasted} {before[cut:]}"
    assert added_secrets(before, before) == []
    added = added_secrets(before, after)
    if pasted != held and pasted not in before:
        assert added, (before, after)
        assert any(hit.preview == pasted[:4] + "…" for hit in added), (before, after)
