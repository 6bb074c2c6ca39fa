"""The terminal app (Textual): screens over the palace that reach the core only through
`curator.ui.services`."""
