"""The audit: each note's verification paths and read-only commands checked in a sandbox,
and the notes whose stale state changes."""
