"""Role templates read once per process for titles, descriptions and the palette."""

from __future__ import annotations

from functools import lru_cache

from desktop.graph.roles import (
    RoleFileError,
    RoleNotFoundError,
    RoleTemplate,
    load_role,
    role_names,
)


@lru_cache(maxsize=1)
def roles() -> dict[str, RoleTemplate]:
    """Every readable role template by name (a broken file is left out, not fatal)."""
    out = {}
    for name in role_names():
        try:
            out[name] = load_role(name)
        except (RoleFileError, RoleNotFoundError):
            continue
    return out


def role_title(name: str) -> str:
    role = roles().get(name)
    return role.title if role else name.replace("-", " ").replace("_", " ").title()


def role_description(name: str) -> str:
    role = roles().get(name)
    return role.description if role else ""
