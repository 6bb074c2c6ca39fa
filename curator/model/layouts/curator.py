"""curator's own layout: notes/ by type, INDEX.md, every header field required."""

from __future__ import annotations

from curator.model.layouts.base import Layout

LAYOUT = Layout()
