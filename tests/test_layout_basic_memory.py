"""basic-memory projects: titles, permalinks, relations as links, observations kept."""

from __future__ import annotations

from layouthelpers import FIXTURES, read_folder

from curator.model.layouts import detect
from curator.model.layouts.basic_memory import permalink_of

PROJECT = FIXTURES / "basic-memory" / "project"


def test_detected_and_titles_are_names() -> None:
    assert detect(PROJECT).layout == "basic-memory"
    folder = read_folder(PROJECT, "basic-memory")
    assert folder.notes["coffee/origins.md"].header["name"] == "Coffee Bean Origins"
    assert "type" not in folder.notes["coffee/origins.md"].header  # "note" is no palace type


def test_relations_and_permalinks_resolve_forward_refs_warn() -> None:
    folder = read_folder(PROJECT, "basic-memory")
    brewing = {t: r for t, _, r in folder.links("Coffee Brewing Methods.md")}
    assert brewing["Coffee Bean Origins"].target == "coffee/origins.md"  # by title
    assert brewing["Proper Grinding Technique"].target == "coffee/grinding.md"
    forward = brewing["Tea Brewing Methods"]
    assert forward.target is None and forward.problem[:2] == ("warning", "link.forward")
    origins = {t: r.target for t, _, r in folder.links("coffee/origins.md")}
    assert origins["coffee-brewing-methods"] == "Coffee Brewing Methods.md"  # a permalink
    grinding = {t: r.target for t, _, r in folder.links("coffee/grinding.md")}
    assert grinding["coffee/coffee-bean-origins"] == "coffee/origins.md"
    assert [p[2] for p in folder.problems()] == ["link.forward"]


def test_generated_permalinks() -> None:
    assert permalink_of("Coffee Brewing Methods.md") == "coffee-brewing-methods"
    assert permalink_of("coffee/Bean Origins.md") == "coffee/bean-origins"
