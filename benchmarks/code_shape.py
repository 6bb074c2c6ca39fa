"""Module and function sizes of a package: `python benchmarks/code_shape.py [curator]`.

Prints the largest modules, the number over 400 lines, and the median, p90 and largest function
length (lines from `def` to the last line of the body), so a refactor can report before/after.
Also the measures issue 32 names: classes called *Session, modules a Searcher can be imported
from, `pass`-only methods of subclasses, private Textual attributes (an underscore name used
on an object, in a module importing Textual, that curator never defines on its own `self`),
whether curator/writer imports GitPython, methods declared under TYPE_CHECKING for another
half of a class, and functions only the tests call.
"""

from __future__ import annotations

import ast
import re
import statistics
import sys
from collections import Counter
from pathlib import Path


def _defined_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every name the package defines itself: functions, classes, assigned names and attributes."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name | ast.arg):
                names.add(node.id if isinstance(node, ast.Name) else node.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


def _pass_only(cls: ast.ClassDef) -> list[str]:
    if not cls.bases:
        return []
    return [
        f"{cls.name}.{item.name}"
        for item in cls.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        and all(isinstance(s, ast.Pass) or _is_docstring(s) for s in item.body)
        and any(isinstance(s, ast.Pass) for s in item.body)
    ]


def _declared_for_type_checking(cls: ast.ClassDef) -> list[str]:
    """Methods a class declares under `if TYPE_CHECKING:` (a half of a class split in two,
    promising what the other half provides) instead of holding the object that has them."""
    return [
        f"{cls.name}.{item.name}"
        for stmt in cls.body
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test)
        for item in stmt.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


# methods a framework calls by name (Textual), never called from curator's own code
_FRAMEWORK_HOOKS = frozenset({"check_action", "get_system_commands", "compose", "render"})


def _test_only(trees: dict[Path, ast.Module], tests: Path) -> list[str]:
    """Functions and methods that nothing in the package refers to but the tests do (kept
    alive for a test alone: remove them, or use them)."""
    used: Counter[str] = Counter()
    defined: list[tuple[str, str]] = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                used[node.id] += 1
            elif isinstance(node, ast.Attribute):
                used[node.attr] += 1
            elif isinstance(node, ast.alias):
                used[(node.asname or node.name).split(".")[-1]] += 1
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used[node.value] += 1  # __all__, getattr by name
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                hook = node.name.startswith(("_", "action_", "on_", "watch_", "validate_"))
                if not hook and not node.decorator_list and node.name not in _FRAMEWORK_HOOKS:
                    defined.append((node.name, f"{path}:{node.lineno} {node.name}"))
    if not tests.is_dir():
        return []
    test_words = Counter(
        word for p in tests.rglob("*.py") for word in re.findall(r"\w+", p.read_text("utf-8"))
    )
    return [where for name, where in defined if not used[name] and test_words[name]]


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the imports under `if TYPE_CHECKING:` (for annotations; nothing can import
    the name from that module at run time, so they are no import path)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            found |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return found


def design(root: Path) -> dict[str, list[str]]:
    """The issue-32 measures, each a list of where it was found."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))}
    ours = _defined_names(trees)
    found: dict[str, list[str]] = {
        "session_classes": [],
        "searcher_paths": [],
        "pass_only_overrides": [],
        "type_checking_methods": [],
        "test_only_functions": _test_only(trees, root.parent / "tests"),
        "private_textual_attributes": [],
        "writer_imports_gitpython": [],
    }
    for path, tree in trees.items():
        text = path.read_text(encoding="utf-8")
        annotations_only = _type_checking_only(tree)
        for node in ast.walk(tree):
            where = f"{path}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ClassDef):
                if node.name.endswith("Session"):
                    found["session_classes"].append(f"{where} {node.name}")
                if node.name == "Searcher":
                    found["searcher_paths"].append(f"{where} class")
                found["pass_only_overrides"] += [f"{where} {n}" for n in _pass_only(node)]
                found["type_checking_methods"] += [
                    f"{where} {n}" for n in _declared_for_type_checking(node)
                ]
            elif isinstance(node, ast.ImportFrom) and any(a.name == "Searcher" for a in node.names):
                if path.name == "__init__.py" and id(node) not in annotations_only:
                    found["searcher_paths"].append(f"{where} re-export")
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                private = not node.attr.startswith("__") and node.attr not in ours
                textual = "import textual" in text or "from textual" in text
                if (
                    private
                    and textual
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")
                ):
                    found["private_textual_attributes"].append(f"{where} {node.attr}")
            elif isinstance(node, ast.Import | ast.ImportFrom) and "writer" in path.parts:
                module = node.module if isinstance(node, ast.ImportFrom) else None
                names = [module] if module else [a.name for a in node.names]
                if any(n == "git" or (n or "").startswith("git.") for n in names):
                    found["writer_imports_gitpython"].append(where)
        if path.name == "__init__.py" and "Searcher" in text and "__getattr__" in text:
            found["searcher_paths"].append(f"{path} __getattr__")
    return found


def shape(root: Path) -> dict[str, object]:
    modules: list[tuple[int, str]] = []
    functions: list[tuple[int, str]] = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        modules.append((len(text.splitlines()), str(path)))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((length, f"{path}:{node.lineno} {node.name}"))
    lengths = sorted(n for n, _ in functions)
    return {
        "modules": len(modules),
        "lines": sum(n for n, _ in modules),
        "largest_modules": sorted(modules, reverse=True)[:5],
        "modules_over_400": sum(1 for n, _ in modules if n > 400),
        "functions": len(lengths),
        "function_median": statistics.median(lengths),
        "function_p90": lengths[int(0.9 * (len(lengths) - 1))],
        "functions_over_60": sorted((f for f in functions if f[0] > 60), reverse=True),
    }


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "curator")
    data = shape(root)
    print(
        f"{data['modules']} modules, {data['lines']} lines; over 400 lines: "
        f"{data['modules_over_400']}"
    )
    for n, name in data["largest_modules"]:  # type: ignore[attr-defined]
        print(f"  {n:5d}  {name}")
    print(
        f"{data['functions']} functions: median {data['function_median']} lines, "
        f"p90 {data['function_p90']}"
    )
    over = data["functions_over_60"]
    print(f"functions over 60 lines: {len(over)}")  # type: ignore[arg-type]
    for n, name in over:  # type: ignore[attr-defined]
        print(f"  {n:5d}  {name}")
    for measure, places in design(root).items():
        print(f"{measure}: {len(places)}")
        for place in places:
            print(f"  {place}")


if __name__ == "__main__":
    main()
