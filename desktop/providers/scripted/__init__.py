"""The built-in scripted agent: a real process playing a deterministic script."""
