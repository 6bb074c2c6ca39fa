"""The wheel, installed into a fresh venv outside the checkout, is the whole of curator.

Editable installs hide a wheel that leaves packages out (a hand-kept package list once shipped
121 of 172 modules and `curator` failed on import), so this builds the real wheel from the
checkout's files, installs it without the checkout on any path, imports every module and runs
the commands a new user runs first. The dependencies come from this test run's environment
(a path in the fresh venv), so only curator itself is under test and nothing is downloaded.
The venv is made without pip of its own (seeding one takes seconds); this run's pip installs
the wheel into it with `--python`, as it would with its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _checkout_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    return [name for name in out.decode().split("\0") if name and (REPO / name).is_file()]


def _source_modules() -> set[str]:
    found = set()
    for path in (REPO / "curator").rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.add(".".join(parts))
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel built from this checkout installed in it; its bin folder."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    for name in _checkout_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, src / name)
    dist = base / "dist"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps"]
    subprocess.run(
        # the build requirements are in this environment (the test extra): no isolated
        # environment for them
        [*pip_wheel, "--no-build-isolation", "-w", str(dist), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("curator-*.whl")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)  # pip installs into it from outside
    bin_dir = env_dir / "bin"
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python")]
    subprocess.run(
        [*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    # The dependencies, from this environment: a plain path line (its .pth files, among them
    # the editable install of the checkout, are not processed from there).
    purelib = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return bin_dir


def _run(bin_dir: Path, cwd: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CURATOR_PALACE")}
    env.update(
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@e", HOME=str(cwd),
    )  # fmt: skip
    return subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=600
    )


def test_the_wheel_holds_every_module(installed: Path, tmp_path: Path) -> None:
    script = (
        "import importlib, importlib.util, pkgutil, curator\n"
        "walk = pkgutil.walk_packages(curator.__path__, 'curator.')\n"
        "names = ['curator'] + [m.name for m in walk]\n"
        "for name in names:\n"
        "    if name.endswith('.__main__'):  # an entry point: it runs when imported\n"
        "        assert importlib.util.find_spec(name) is not None\n"
        "    else:\n"
        "        importlib.import_module(name)\n"
        "from importlib.resources import files\n"
        "assert files('curator.styles').joinpath('app.tcss').is_file()\n"
        "assert files('curator.sample_palace').joinpath('palace.toml').is_file()\n"
        "print(curator.__file__); print('\\n'.join(names))\n"
    )
    proc = _run(installed, tmp_path, str(installed / "python"), "-c", script)
    assert proc.returncode == 0, proc.stderr
    location, *names = proc.stdout.splitlines()
    assert Path(location).is_relative_to(installed.parent), location  # not the checkout
    assert set(names) >= _source_modules(), sorted(_source_modules() - set(names))


def test_the_installed_commands_run(installed: Path, tmp_path: Path) -> None:
    curator = str(installed / "curator")
    for argv in ([curator, "--help"], [curator, "mcp", "--help"], [curator, "demo", "--help"]):
        proc = _run(installed, tmp_path, *argv)
        assert proc.returncode == 0 and "usage: curator" in proc.stdout, proc.stderr
    palace = tmp_path / "p"
    proc = _run(installed, tmp_path, curator, "init", str(palace))
    assert proc.returncode == 0, proc.stderr
    proc = _run(
        installed,
        tmp_path,
        curator,
        "--palace",
        str(palace),
        "capture",
        "--type",
        "project",
        "--name",
        "Deploys run from tags",
        "--description",
        "Pushing a version tag starts the deploy.",
        stdin="Deploys run when a version tag is pushed.\n",
    )
    assert proc.returncode == 0, proc.stderr
    draft = proc.stdout.splitlines()[0]
    assert (palace / draft).is_file()
    proc = _run(installed, tmp_path, curator, "--palace", str(palace), "promote", draft, "--yes")
    assert proc.returncode == 0, proc.stderr
    proc = _run(installed, tmp_path, curator, "--palace", str(palace), "search", "version tag")
    assert proc.returncode == 0, proc.stderr
    assert "Deploys run from tags" in proc.stdout
