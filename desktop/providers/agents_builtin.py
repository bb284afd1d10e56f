"""Registration of the real-agent providers (CLI agents, ACP, REST backends)."""

from collections.abc import Callable
from pathlib import Path

from desktop.providers.base import Provider
from desktop.providers.offline import OfflineSetup


def register_agents(register: Callable[[str, Callable[[], Provider]], None],
                    offline: OfflineSetup | None = None, bin_dir: Path | None = None) -> None:
    """Register claude, codex and gemini (pointed at ``offline`` when given)."""
    from desktop.providers.cli_agents import ClaudeProvider, CodexProvider, GeminiProvider

    for cls in (ClaudeProvider, CodexProvider, GeminiProvider):
        register(cls.name, lambda cls=cls: cls(offline=offline, bin_dir=bin_dir))
