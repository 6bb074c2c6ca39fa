"""benchmarks/code_shape.py's issue-32 measures find what they name, on a package written here."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _design():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("code_shape", ROOT / "benchmarks/code_shape.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.design


@functools.cache
def _curators_design() -> dict[str, list[str]]:
    """The measures over curator itself, walked once a test process (a few seconds each)."""
    return _design()(ROOT / "curator")  # type: ignore[no-any-return]


def test_measures_find_each_shape(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "writer").mkdir(parents=True)
    (pkg / "ui").mkdir()
    (pkg / "writer" / "repo.py").write_text("import git\n", encoding="utf-8")
    (pkg / "ui" / "paint.py").write_text(
        "from textual.screen import Screen\n"
        "class A(Screen):\n"
        "    def hook(self) -> None:\n"
        "        pass\n"
        "    def own(self) -> None:\n"
        "        self._mine = 1\n"
        "        self.app._css_update_count = self._mine\n"
        "class OneSession:\n"
        "    if TYPE_CHECKING:\n"
        "        def elsewhere(self) -> None: ...\n"
        "class TwoSession: ...\n",
        encoding="utf-8",
    )
    found = _design()(pkg)
    assert len(found["session_classes"]) == 2
    assert [p.split()[-1] for p in found["pass_only_overrides"]] == ["A.hook"]
    assert [p.split()[-1] for p in found["private_textual_attributes"]] == ["_css_update_count"]
    assert len(found["writer_imports_gitpython"]) == 1
    assert [p.split()[-1] for p in found["type_checking_methods"]] == ["OneSession.elsewhere"]


def test_curator_has_one_session_class() -> None:
    """The CLI, the app and the MCP server each hold one `curator.session.Session`."""
    found = _curators_design()["session_classes"]
    assert [f.split()[-1] for f in found] == ["Session"]
    assert found[0].startswith(str(ROOT / "curator" / "session"))


def test_an_import_for_annotations_is_no_import_path(tmp_path: Path) -> None:
    """A package that imports Searcher under TYPE_CHECKING (to annotate) does not offer it."""
    pkg = tmp_path / "pkg"
    (pkg / "a").mkdir(parents=True)
    (pkg / "b").mkdir()
    (pkg / "a" / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from x import Searcher\n",
        encoding="utf-8",
    )
    (pkg / "b" / "__init__.py").write_text("from x import Searcher\n", encoding="utf-8")
    found = _design()(pkg)["searcher_paths"]
    assert len(found) == 1 and "/b/" in found[0]


def test_curator_has_one_searcher_path_and_no_pass_only_override() -> None:
    """Searcher is imported from curator.search.searcher alone; the palace-only searcher is a
    Searcher over another candidate source (no subclass overriding with `pass`)."""
    found = _curators_design()
    assert [f.split()[-1] for f in found["searcher_paths"]] == ["class"]
    assert found["pass_only_overrides"] == []


def test_curator_uses_no_private_textual_attribute() -> None:
    """Nothing reaches into Textual's private state (it changes without notice)."""
    assert _curators_design()["private_textual_attributes"] == []


def test_no_class_is_half_of_a_split() -> None:
    """No class promises methods under TYPE_CHECKING that another half provides (the index
    store holds its tables and their writer instead of inheriting a writing half)."""
    assert _curators_design()["type_checking_methods"] == []


def test_no_function_lives_for_the_tests_alone() -> None:
    """Every function the tests call is one curator uses (basic-memory's observation parser,
    the index's header-only rows and the session's if-ready searcher were kept for a test)."""
    assert _curators_design()["test_only_functions"] == []


def test_agents_import_no_private_name_of_another_module() -> None:
    """The agents' doors use the service's public checks (a result count: `result_limit`)."""
    import ast

    private = [
        f"{path.name}: {alias.name}"
        for path in (ROOT / "curator" / "agents").glob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("curator")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert private == []
