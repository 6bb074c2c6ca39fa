"""curator: curate and review an AI agent's long-term memory palace."""

__version__ = "0.1.0"

#: the file that makes a folder a palace (read by `curator.config`); here so that finding a
#: palace (a hook on every prompt) does not load the config schema
CONFIG_NAME = "palace.toml"
