"""No import cycles between curator's modules (imports inside functions and under
TYPE_CHECKING count: grimp reads them all)."""

from __future__ import annotations

import grimp

# Known cycles still to cut, each listed whole so a new module joining one fails the test.
# The list only shrinks (it is empty: any cycle fails).
KNOWN: list[frozenset[str]] = []


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(frozenset(component))
    return out


def test_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [frozenset("abc")]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_beyond_the_known_list() -> None:
    graph = grimp.build_graph("curator")
    modules = graph.modules
    edges = {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}
    found = cycles(edges)
    assert [sorted(c) for c in found if c not in KNOWN] == []
    # a known cycle that is gone leaves the list
    assert [sorted(c) for c in KNOWN if c not in found] == []


def _benchmark_imports() -> dict[str, set[str]]:
    """benchmarks/ (scripts, not a package): which sibling modules each imports, at the top,
    in a function or in a child script's text (`import x` on a line of its own)."""
    import ast
    import re
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "benchmarks"
    names = {p.stem for p in folder.glob("*.py")}
    edges: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        text = path.read_text()
        found: set[str] = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
        found |= set(re.findall(r"^\s*(?:from|import) (\w+)", text, re.M))
        edges[path.stem] = (found & names) - {path.stem}
    return edges


def test_no_import_cycles_in_benchmarks() -> None:
    edges = _benchmark_imports()
    assert "bench_search" in edges and "search_floor" in edges["bench_engine"]
    assert [sorted(c) for c in cycles(edges)] == []
