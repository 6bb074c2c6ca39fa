"""Task checkpoints: numbered revisions under tasks/<slug>/, one owner at a time, and the
person's requests word for word (issue 14). `TaskService` is what every caller uses."""

from curator.tasks.service import Outcome, Row, TaskService, default_owner

__all__ = ["Outcome", "Row", "TaskService", "default_owner"]
