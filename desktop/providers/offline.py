"""Pointing the real agent CLIs at a local model server, with no network and no real keys.

:class:`OfflineSetup` prepares one private home folder (Claude Code config,
Codex ``config.toml``, Gemini CLI ``settings.json``) and gives the environment
that makes each CLI talk only to ``base_url`` (the fake model server), with a
per-node path prefix so one server can play a different script per node.
Used by the integration tests and by ``agent-canvas rehearse``.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from desktop.disk.atomic import atomic_write_text

PLACEHOLDER_KEY = "rehearsal-key-not-secret"
"""The API key value the fake server accepts; it is not a secret."""

CODEX_MODEL = "gpt-5.5"
GEMINI_MODEL = "gemini-2.5-pro"

_CODEX_CONFIG = """\
model = "{model}"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "{base_url}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
remote_plugin = false
apps = false
api_key_model_discovery = false
in_app_updates = false
daemon_auto_start = false
unbounded_connection_retries = false

[analytics]
enabled = false

[otel]
exporter = "none"
"""

_GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True,
                "enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


@dataclass
class OfflineSetup:
    """A private home for the agent CLIs and the env that points them at ``base_url``."""

    base_url: str
    home: Path

    def prepare(self) -> "OfflineSetup":
        """Write the CLIs' config files into ``home`` (idempotent)."""
        (self.home / ".claude").mkdir(parents=True, exist_ok=True)
        (self.home / ".gemini").mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.home / ".gemini" / "settings.json",
                          json.dumps(_GEMINI_SETTINGS, indent=2))
        return self

    def node_url(self, node_key: str | None) -> str:
        """The server address for one node (its own script key)."""
        return f"{self.base_url}/k/{node_key}" if node_key else self.base_url

    def codex_home(self, node_key: str | None) -> Path:
        """A CODEX_HOME per node: its config.toml names the node's server address."""
        folder = self.home / ".codex" / (node_key or "default")
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / "config.toml",
                          _CODEX_CONFIG.format(model=CODEX_MODEL,
                                               base_url=self.node_url(node_key)))
        return folder

    def env_for(self, agent: str, node_key: str | None) -> dict[str, str]:
        """Environment overrides that send ``agent``'s model calls to the fake server."""
        env = {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
               "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
        url = self.node_url(node_key)
        if agent == "claude":
            env.update({
                "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
                "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": PLACEHOLDER_KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0",
            })
        elif agent == "codex":
            env.update({"CODEX_HOME": str(self.codex_home(node_key)),
                        "OPENAI_API_KEY": PLACEHOLDER_KEY})
        elif agent == "gemini":
            env.update({"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": PLACEHOLDER_KEY,
                        "GEMINI_TELEMETRY_ENABLED": "false"})
        return env


def default_model(agent: str) -> str | None:
    """The model a rehearsal passes when the node names none."""
    return {"codex": CODEX_MODEL, "gemini": GEMINI_MODEL}.get(agent)
