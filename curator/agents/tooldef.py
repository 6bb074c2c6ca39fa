"""A row of the MCP server's tool table (agents/mcp.py builds the server from the rows)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolDef:
    """One row of the tool table: everything the server says about a tool comes from here.

    `fn` takes keyword arguments with type hints (the input schema comes from them); `params`
    describes each of them (a parameter without a description is refused when the server is
    built); `output` is the TypedDict of the answer (its outputSchema); `writes` says the tool
    writes something (a draft, a checkpoint), `idempotent` that calling it twice changes
    nothing more than once.
    """

    name: str
    description: str
    fn: Callable[..., Any]
    params: Mapping[str, str] = field(default_factory=dict)
    output: Any = dict[str, Any]
    writes: bool = False
    idempotent: bool = True
    title: str = ""
    bounds: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # e.g. {"ge": 50}

    @property
    def shown_title(self) -> str:
        """The title clients show: the given one, else the name in words."""
        return self.title or self.name.replace("_", " ").capitalize()
