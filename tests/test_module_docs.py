"""Every module of curator says in its docstring which idea it holds (issue 24: a module is
one idea, split at seams, not to fit a line count)."""

from __future__ import annotations

import ast
from pathlib import Path

import curator

PACKAGE = Path(curator.__file__).parent


def test_every_module_has_a_docstring() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100  # the whole package, not an empty glob
    missing = [
        str(path.relative_to(PACKAGE.parent))
        for path in modules
        if not (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").strip()
    ]
    assert missing == []
