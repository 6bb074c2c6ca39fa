"""The palace as files on disk: layouts, parsing, validation, links, rooms. Reads only; knows
no git, index or UI."""
