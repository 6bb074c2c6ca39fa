"""The wings' import rules (ARCHITECTURE.md), proven in fresh interpreters."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from palacehelpers import MakePalace, note_text

import curator

PACKAGE_DIR = Path(curator.__file__).parent


def modules(package: str) -> list[str]:
    folder = PACKAGE_DIR / package.removeprefix("curator.").replace(".", "/")
    return sorted(f"{package}.{m.name}" for m in pkgutil.iter_modules([str(folder)]))


def run_python(code: str, cwd: Path | None = None) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


PROBE = """
import importlib, json, sys
loaded, failed = {}, {}
for name in dict.fromkeys(sys.argv[1:]):
    before = set(sys.modules)
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = repr(exc)
    loaded[name] = sorted(set(sys.modules) - before)
print(json.dumps({"loaded": loaded, "failed": failed}))
"""


def loaded_by(*names: str) -> dict[str, dict[str, object]]:
    """`names` imported in turn in one fresh interpreter: the modules each import loaded
    first (what an earlier one loaded is not loaded again, so a module a wing must not load
    shows under the first import that reached it), and the imports that failed. One
    interpreter, not one a name: every module loaded by the imports together is loaded by
    one of them alone, and a fresh interpreter costs ~0.2 s of CPU."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *names], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


MODEL = ["curator.config", "curator.errors", *modules("curator.model")]
CORE = [
    "curator.cli",
    "curator.config",
    "curator.model.palace",
    "curator.model.check",
    "curator.writer",
    *modules("curator.writer"),
    *modules("curator.search"),
    *modules("curator.audit"),
    *modules("curator.cli"),
]
FORBIDDEN_IN_MODEL = ("git", "lancedb", "textual", "curator.writer", "curator.search")
FORBIDDEN_IN_MODEL += ("curator.audit", "curator.ui", "curator.cli")


def forbidden(loaded: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.fixture(scope="module")
def probed() -> dict[str, dict[str, object]]:
    """The model's modules imported first, then the core's (the wings apart from the app)."""
    return loaded_by(*MODEL, *CORE)


def test_probe_sees_what_it_should() -> None:
    # guards the probe itself: importing the app shell must show up, or the tests are vacuous
    found = loaded_by("curator.cli.common", "textual.app")
    assert found["failed"] == {}
    loaded: dict[str, list[str]] = found["loaded"]  # type: ignore[assignment]
    assert forbidden(loaded["curator.cli.common"], ("curator.model",)) != []
    assert forbidden(loaded["textual.app"], ("textual",)) != []


def test_model_imports_no_git_lancedb_textual_or_other_wings(
    probed: dict[str, dict[str, object]],
) -> None:
    loaded: dict[str, list[str]] = probed["loaded"]  # type: ignore[assignment]
    assert set(MODEL) <= set(loaded)
    wrong = {n: found for n in MODEL if (found := forbidden(loaded[n], FORBIDDEN_IN_MODEL))}
    assert wrong == {}
    assert not [n for n in MODEL if n in probed["failed"]]  # type: ignore[operator]


def test_core_never_imports_textual(probed: dict[str, dict[str, object]]) -> None:
    loaded: dict[str, list[str]] = probed["loaded"]  # type: ignore[assignment]
    assert probed["failed"] == {}
    every = [m for found in loaded.values() for m in found]
    assert [m for m in every if m.split(".")[0] == "textual"] == []
    assert "curator.model.palace" in every


def test_list_and_check_do_not_import_lancedb_and_list_no_numpy(make_palace: MakePalace) -> None:
    """`list` reads headers: numpy (~90 ms a process) is for scores it never makes; `check`
    and `show` load no index, table or app either."""
    root = make_palace(
        {
            "notes/project/a.md": note_text("A", body="[[b]]\n"),
            "notes/project/b.md": note_text("B", body="[[a]]\n"),
        }
    )
    code = f"""
import contextlib, io, json, sys
from curator.cli import main
codes, numpy = [], []
for argv in (["--palace", {str(root)!r}, "list"], ["--palace", {str(root)!r}, "check"],
             ["--palace", {str(root)!r}, "show", "a"]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        codes.append(main(argv))
    numpy.append("numpy" in sys.modules)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("lancedb", "textual", "pyarrow"))
print(json.dumps({{"codes": codes, "heavy": heavy, "numpy after list": numpy[0]}}))
"""
    result = run_python(code)
    assert result["codes"] == [0, 1, 0]  # check: INDEX.md is missing, so out of date
    assert result["heavy"] == []
    assert result["numpy after list"] is False


@pytest.mark.parametrize(
    "package", ["curator.model", "curator.search", "curator.audit", "curator.writer"]
)
def test_packages_have_modules(package: str) -> None:
    # guards the discovery above: an empty list would make the hygiene tests pass vacuously
    assert len(modules(package)) >= 3, modules(package)


def test_import_linter_contracts_hold() -> None:
    """pyproject.toml's contracts (imports inside functions count too), checked by lint-imports."""
    linter = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(linter), "--no-cache"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PACKAGE_DIR.parent,
    )
    assert "Contracts:" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert " 0 broken" in proc.stdout


def test_import_linter_sees_a_broken_contract(tmp_path: Path) -> None:
    """The contracts are not vacuous: a model module that imports the writer breaks one."""
    import shutil

    copy = tmp_path / "repo"
    shutil.copytree(PACKAGE_DIR, copy / "curator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PACKAGE_DIR.parent / "pyproject.toml", copy / "pyproject.toml")
    (copy / "curator" / "model" / "leak.py").write_text(
        "def f():\n    from curator.writer import plan\n    return plan\n"
    )
    linter = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run(
        [str(linter), "--no-cache"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=copy,
        env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode != 0
    assert "curator.model.leak -> curator.writer" in proc.stdout
