"""One module per curation action: pure planners from a loaded palace to a Plan."""
