"""The environment of an agent process: allowlist, protocol variables, its own API key.

An agent gets a minimal base (PATH, HOME, locale, temp dir, Python paths), the
variables its node's ``envAllowlist`` names (glob patterns allowed), the
protocol variables, and the API key of its own provider only. The API key of
any other provider never reaches it, even when allowlisted.

The protocol variables come in two generations with the same values: the spec's
(``TASK_FOLDER``, ``RUN_FOLDER``, ``MESSAGE_BUS``, ``RUNS_DIR``, ``CONDUCTOR_URL``) and
conductor-loop's newer ``JRUN_*`` names for them
(:data:`desktop.contract.protocol_env.JRUN_NAMES`), so agents and
prompts written for either find what they look for.
"""

import fnmatch
import os
import shlex
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

from desktop.cli.self_launch import frozen, self_command
from desktop.contract.protocol_env import JRUN_NAMES, protocol_value, with_newer_names
from desktop.disk.keychain import API_KEY_BY_PROVIDER

__all__ = ["API_KEY_BY_PROVIDER", "JRUN_NAMES", "build_env", "bus_command", "key_provider",
           "protocol_value", "protocol_vars"]
# AGENT_CANVAS_SECRET_NAMES holds names, not secrets: `bus post` redacts by it.
BASE_VARS = ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV",
             "AGENT_CANVAS_SECRET_NAMES")
WINDOWS_BASE_VARS = ("SYSTEMROOT", "USERPROFILE", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
                     "PATHEXT", "COMSPEC")
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def protocol_vars(
    *,
    run_id: str,
    run_dir: Path,
    agent_run_dir: Path,
    agent_run_id: str,
    parent_agent_run_id: str | None,
    project_id: str,
    task_id: str,
    conductor_url: str | None,
    node_id: str,
    node_key: str | None,
    turn_number: int,
    attempt: int,
) -> dict[str, str]:
    """The variables the protocol injects (specs/agent-protocol-governance.md), each of
    :data:`JRUN_NAMES` also under its ``JRUN_*`` name."""
    env = {
        "JRUN_PROJECT_ID": project_id,
        "JRUN_TASK_ID": task_id,
        "JRUN_ID": agent_run_id,
        "RUNS_DIR": str(run_dir.parent),
        "MESSAGE_BUS": str(run_dir / "events.jsonl"),
        "TASK_FOLDER": str(run_dir),
        "RUN_FOLDER": str(agent_run_dir),
        "AGENT_CANVAS_RUN_ID": run_id,
        "AGENT_CANVAS_NODE_ID": node_id,
        "AGENT_CANVAS_TURN": str(turn_number),
        "AGENT_CANVAS_ATTEMPT": str(attempt),
    }
    if node_key:
        env["AGENT_CANVAS_NODE_KEY"] = node_key
    if parent_agent_run_id:
        env["JRUN_PARENT_ID"] = parent_agent_run_id
    if conductor_url:
        env["CONDUCTOR_URL"] = conductor_url
    return with_newer_names(env)


def _allowed(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def key_provider(provider: str, command: str | None = None) -> str:
    """Whose API key an agent gets: its provider's, or for ``acp`` the family of its command
    (an ACP adapter of Claude Code needs ANTHROPIC_API_KEY, codex-acp OPENAI_API_KEY, ...)."""
    if provider != "acp":
        return provider
    from desktop.providers.acp_presets import agent_family, command_words

    words = command_words(command)
    return (agent_family(words[0]) or "") if words else ""


def build_env(
    provider: str,
    allowlist: Iterable[str],
    injected: Mapping[str, str],
    parent: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The agent's whole environment (nothing else of ``parent`` leaks through)."""
    parent = os.environ if parent is None else parent
    patterns = list(allowlist)
    base = BASE_VARS + (WINDOWS_BASE_VARS if os.name == "nt" else ())
    own_key = API_KEY_BY_PROVIDER.get(str(provider))
    foreign_keys = set(API_KEY_BY_PROVIDER.values()) - {own_key}
    env = {
        name: value
        for name, value in parent.items()
        if (name in base or _allowed(name, patterns)) and name not in foreign_keys
    }
    if own_key and parent.get(own_key):
        env[own_key] = parent[own_key]
    env.update(injected)
    return env


def bus_command(env: Mapping[str, str]) -> str:
    """How an agent with ``env`` runs `bus post`.

    The bundle names its own executable (another ``agent-canvas`` on PATH may be
    another version); from Python, the installed command, else this interpreter.
    """
    if frozen():
        return shlex.join(self_command("bus", "post"))
    if shutil.which("agent-canvas", path=env.get("PATH")):
        return "agent-canvas bus post"
    return f"PYTHONPATH={shlex.quote(PACKAGE_ROOT)} " + shlex.join(self_command("bus", "post"))
