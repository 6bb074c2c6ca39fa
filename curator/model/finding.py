"""Findings: problems in the palace, each with a file, a line and a sentence."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    severity: Severity
    code: str
    message: str

    def format(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message} [{self.code}]"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
