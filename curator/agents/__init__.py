"""The agents' side of curator: an MCP server, hooks for agent tools, and memory packs in
context files. Agents read; agents write only drafts; people promote.

- `service.Memory`: what an agent may do with a palace (one visibility gate, size caps).
- `mcp`: `curator mcp`, the stdio MCP server (tools come from a small registry).
- `hooks`: `curator hook claude-code|generic EVENT` (never blocks, always logs).
- `install`: merge the hooks into Claude Code's settings.json and take them out again.
- `context`: the managed memory-pack section of CLAUDE.md / AGENTS.md, and its check rule.
"""
