"""Provider lookup by name.

Built-in providers are registered as factories that import their module when a provider
is made, so listing the names (``agent-canvas validate``) imports no provider at all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.contract.enums import Provider as ProviderName

if TYPE_CHECKING:
    from desktop.providers.base import Provider

_FACTORIES: dict[str, Callable[[], Provider]] = {}


def register(name: str, factory: Callable[[], Provider]) -> None:
    """Make ``factory`` the maker of providers called ``name``."""
    _FACTORIES[name] = factory


def create(name: str) -> Provider:
    """A fresh provider instance; ValueError naming the known ones if unknown."""
    _load_builtin()
    if name not in _FACTORIES:
        known = ", ".join(sorted(_FACTORIES))
        raise ValueError(f"provider {name!r} is not available here (available: {known})")
    return _FACTORIES[name]()


def available() -> list[str]:
    """Names of the providers that can run on this machine."""
    _load_builtin()
    return sorted(_FACTORIES)


def can_gate(name: str) -> bool:
    """Whether the named provider can hold tool calls for approval."""
    _load_builtin()
    factory = _FACTORIES.get(name)
    return bool(factory and factory().can_gate)


def _load_builtin() -> None:
    if _FACTORIES:
        return
    from desktop.providers.agents_builtin import register_agents

    def scripted() -> Provider:
        from desktop.providers.scripted.provider import ScriptedProvider

        return ScriptedProvider()

    def command() -> Provider:
        from desktop.providers.command import CommandProvider

        return CommandProvider()

    register(ProviderName.SCRIPTED.value, scripted)
    register(ProviderName.COMMAND.value, command)
    register(ProviderName.CUSTOM.value, command)

    register_agents(register)
