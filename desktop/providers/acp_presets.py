"""The ACP agents the ``acp`` provider knows by name, and how each takes a model.

A node's ``command`` is a preset name or a full command line. The model
family of the command (from its executable's name) decides how the node's
``model`` reaches the agent, since ACP itself has no portable way to pick one
before the session starts:

- ``gemini --acp``: ``--model NAME``
- ``codex-acp`` (``@zed-industries/codex-acp``): ``-c model="NAME"``
- ``claude-agent-acp`` / ``claude-code-acp`` (the Claude Agent SDK adapters):
  ``ANTHROPIC_MODEL=NAME`` in the environment, which the SDK reads

``codex-acp`` also gets ``approval_policy="untrusted"`` and
``sandbox_mode="danger-full-access"`` unless the node's args set them: with
Codex's own defaults a command its sandbox allows runs without a permission
request, so it would never reach the gate, and its bubblewrap sandbox is
missing on many Linux machines (the command then fails inside it). With these
two settings every command that is not known to be read-only is asked about,
and the gate (approval broker, blocklist, planning mode) decides, as it does
for the Claude adapter.
"""

import json
import shlex
from pathlib import Path

PRESETS: dict[str, list[str]] = {
    "gemini": ["gemini", "--acp"],
    "claude": ["claude-agent-acp"],
    "claude-code-acp": ["claude-code-acp"],
    "codex": ["codex-acp"],
}
DEFAULT_PRESET = "gemini"
CODEX_POLICY = {"approval_policy": "untrusted", "sandbox_mode": "danger-full-access"}


def command_words(command: str | None) -> list[str]:
    """The preset's words, or the command line split like a shell would."""
    command = (command or DEFAULT_PRESET).strip()
    return list(PRESETS.get(command) or shlex.split(command) or PRESETS[DEFAULT_PRESET])


def agent_family(binary: str) -> str | None:
    """Which model family a command talks to (``claude``, ``codex``, ``gemini`` or None)."""
    name = Path(binary).name
    for family in ("gemini", "claude", "codex"):
        if name.startswith(family):
            return family
    return None


def codex_overrides(args: list[str]) -> set[str]:
    """Config keys that ``-c key=value`` / ``--config key=value`` words in ``args`` set."""
    keys: set[str] = set()
    for index, word in enumerate(args):
        value = None
        if word in ("-c", "--config") and index + 1 < len(args):
            value = args[index + 1]
        elif word.startswith("--config="):
            value = word.removeprefix("--config=")
        elif word.startswith("-c") and len(word) > 2:
            value = word[2:]
        if value and "=" in value:
            keys.add(value.split("=", 1)[0].strip())
    return keys


def family_args(family: str | None, model: str | None, args: list[str]) -> list[str]:
    """Words that pass ``model`` (and Codex's approval settings) unless ``args`` do."""
    words: list[str] = []
    if family == "gemini":
        if model and "-m" not in args and "--model" not in args:
            words += ["--model", model]
    elif family == "codex":
        given = codex_overrides(args)
        if model and "model" not in given:
            words += ["-c", f"model={json.dumps(model)}"]
        for key, value in CODEX_POLICY.items():
            if key not in given:
                words += ["-c", f"{key}={json.dumps(value)}"]
    return words


def family_env(family: str | None, model: str | None) -> dict[str, str]:
    """Environment that passes ``model`` to agents that take it from there."""
    if family == "claude" and model:
        return {"ANTHROPIC_MODEL": model}
    return {}
