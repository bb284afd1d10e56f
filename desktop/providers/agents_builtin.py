"""Registration of the real-agent providers (CLI agents, ACP, REST backends).

Each is registered by name with a factory that imports its module when a provider is
made: listing what can run here (``agent-canvas validate``, the editor's checks) must not
pay for the ACP schema, aiohttp or the stream parsers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.contract.enums import Provider as Name

if TYPE_CHECKING:
    from desktop.providers.base import Provider
    from desktop.providers.offline import OfflineSetup

CLI_AGENTS = (Name.CLAUDE, Name.CODEX, Name.GEMINI)
"""The names desktop/providers/cli_agents.py's providers have."""
REST_BACKENDS = (Name.PERPLEXITY, Name.XAI)
"""The names desktop/providers/rest.py's BACKENDS serves."""


def register_agents(register: Callable[[str, Callable[[], Provider]], None],
                    offline: OfflineSetup | None = None, bin_dir: Path | None = None) -> None:
    """Register claude, codex, gemini, acp, perplexity and xai (aimed at ``offline`` if given)."""
    def cli(name: Name) -> Provider:
        from desktop.providers.cli_agents import ClaudeProvider, CodexProvider, GeminiProvider

        by_name = {cls.name: cls for cls in (ClaudeProvider, CodexProvider, GeminiProvider)}
        return by_name[name.value](offline=offline, bin_dir=bin_dir)

    def acp() -> Provider:
        from desktop.providers.acp_provider import AcpProvider

        return AcpProvider(offline=offline, bin_dir=bin_dir)

    def rest(name: str) -> Provider:
        from desktop.providers.rest import RestProvider

        url = f"{offline.node_url(None)}/v1" if offline is not None else None
        return RestProvider(name, url)

    for name in CLI_AGENTS:
        register(name.value, lambda name=name: cli(name))
    register(Name.ACP.value, acp)
    for name in REST_BACKENDS:
        register(name.value, lambda name=name: rest(name.value))
