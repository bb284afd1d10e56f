"""PySide6 desktop interface (the only layer that imports Qt)."""
