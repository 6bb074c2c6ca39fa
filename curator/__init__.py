"""curator: curate and review an AI agent's long-term memory palace."""

__version__ = "0.1.0"
