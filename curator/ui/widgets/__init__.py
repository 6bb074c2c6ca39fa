"""The app's widgets, one per module, shared by the screens."""
