"""Registration of the real-agent providers (CLI agents, ACP, REST backends)."""

from collections.abc import Callable
from pathlib import Path

from desktop.providers.base import Provider
from desktop.providers.offline import OfflineSetup


def register_agents(register: Callable[[str, Callable[[], Provider]], None],
                    offline: OfflineSetup | None = None, bin_dir: Path | None = None) -> None:
    """Register claude, codex, gemini, acp, perplexity and xai (aimed at ``offline`` if given)."""
    from desktop.providers.cli_agents import ClaudeProvider, CodexProvider, GeminiProvider
    from desktop.providers.rest import BACKENDS, RestProvider

    for cls in (ClaudeProvider, CodexProvider, GeminiProvider):
        register(cls.name, lambda cls=cls: cls(offline=offline, bin_dir=bin_dir))
    from desktop.providers.acp_provider import AcpProvider

    register(AcpProvider.name, lambda: AcpProvider(offline=offline, bin_dir=bin_dir))
    for name in BACKENDS:
        url = f"{offline.node_url(None)}/v1" if offline is not None else None
        register(name, lambda name=name, url=url: RestProvider(name, url))
