"""The two folders shipped inside the wheel from the repo's top level: styles/ and sample_palace/.

An installed curator has them as the packages curator.styles and curator.sample_palace
(setup.py maps them). Run from a checkout (`python -m pytest`, `python -m curator` in the repo),
`curator` is imported from the source folder, where that mapping does not apply: there they
are the repo's own folders beside curator/.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


def shipped_folder(name: str) -> Path:
    """The folder shipped as `curator.<name>`: 'styles' or 'sample_palace'."""
    spec = importlib.util.find_spec(f"curator.{name}")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parent.parent / name
