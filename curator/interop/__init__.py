"""Memory from other stores in, snapshots out: mem0, OpenMemory and JSONL imports (as drafts,
through capture) and `jsonl`/`mem0` exports."""
