def greet(name: str) -> str:
    """A friendly greeting for ``name``."""
    return f"Hello, {name}!"
