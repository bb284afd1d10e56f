"""Provider lookup by name."""

from collections.abc import Callable

from desktop.contract.enums import Provider as ProviderName
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
    from desktop.providers.command import CommandProvider
    from desktop.providers.scripted.provider import ScriptedProvider

    register(ProviderName.SCRIPTED.value, ScriptedProvider)
    register(ProviderName.COMMAND.value, CommandProvider)
    register(ProviderName.CUSTOM.value, CommandProvider)
    from desktop.providers.agents_builtin import register_agents

    register_agents(register)
