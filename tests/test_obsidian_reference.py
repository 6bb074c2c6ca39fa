"""curator's Obsidian link reading and resolution against the reference resolver written from
Obsidian's documented and observed behaviour (tests/obsidian_reference.py), on vaults the
generator writes with every link shape (tests/obsidian_vault.py): the same links found, each
reaching the same file and anchor."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from obsidian_reference import Answer, Vault
from obsidian_vault import generate

from curator.model.palace import Palace


def curator_answers(palace: Palace, rel: str) -> list[Answer]:
    table = palace.link_table()
    out = []
    for link in palace.by_rel[rel].links:
        text = link.target + (f"#{link.heading}" if link.heading else "")
        resolved = table.resolve(rel, link)
        problem = resolved.problem[1] if resolved.problem else None
        out.append(Answer(text, resolved.target, problem not in ("link.heading", "link.block")))
    return out


def compare(root: Path) -> int:
    reference = Vault(root)
    palace = Palace.open(root, cache=False)
    assert sorted(n.rel for n in palace.notes) == reference.notes()
    count = 0
    for rel in reference.notes():
        expected = [reference.resolve(rel, text) for text, _ in reference.links(rel)]
        assert curator_answers(palace, rel) == expected, rel
        count += len(expected)
    return count


def test_generated_vaults_agree_on_every_link(tmp_path: Path) -> None:
    total = sum(compare(_vault(tmp_path / str(seed), seed)) for seed in range(20))
    assert total > 1000  # the vaults are not trivially small


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_any_generated_vault_agrees(seed: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        compare(_vault(Path(folder) / "v", seed))


def _vault(root: Path, seed: int) -> Path:
    generate(root, seed)
    return root
