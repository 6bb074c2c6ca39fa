"""The action planners, one module each under :mod:`curator.writer.actions`; this module keeps
the names callers import (``from curator.writer.planners import plan_promote``)."""

from __future__ import annotations

from curator.writer.actions.common import (
    MERGED_DIR,
    PROMOTED_DIR,
    REJECTED_DIR,
    ActionError,
    inbound,
    slugify,
    with_index,
)
from curator.writer.actions.edit import plan_edit
from curator.writer.actions.index import plan_index
from curator.writer.actions.merge import plan_merge, plan_merge_draft
from curator.writer.actions.promote import plan_promote, promote_fields, validate_promote
from curator.writer.actions.reject import plan_reject
from curator.writer.actions.retire import plan_retire
from curator.writer.actions.review import plan_mark_reviewed
from curator.writer.actions.supersede import plan_supersede

__all__ = [
    "MERGED_DIR",
    "PROMOTED_DIR",
    "REJECTED_DIR",
    "ActionError",
    "inbound",
    "plan_edit",
    "plan_index",
    "plan_mark_reviewed",
    "plan_merge",
    "plan_merge_draft",
    "plan_promote",
    "plan_reject",
    "plan_retire",
    "plan_supersede",
    "promote_fields",
    "slugify",
    "validate_promote",
    "with_index",
]
