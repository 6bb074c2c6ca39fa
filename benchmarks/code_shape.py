"""Module and function sizes of a package: `python benchmarks/code_shape.py [curator]`.

Prints the largest modules, the number over 400 lines, and the median, p90 and largest function
length (lines from `def` to the last line of the body), so a refactor can report before/after.
"""

from __future__ import annotations

import ast
import statistics
import sys
from pathlib import Path


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


if __name__ == "__main__":
    main()
