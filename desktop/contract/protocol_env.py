"""The names of the agent protocol's injected variables, in both generations.

specs/agent-protocol-governance.md names them ``TASK_FOLDER``, ``RUN_FOLDER``,
``MESSAGE_BUS``, ``RUNS_DIR`` and ``CONDUCTOR_URL``; conductor-loop, where the spec comes
from, has since renamed them ``JRUN_TASK_FOLDER``, ``JRUN_RUN_FOLDER``,
``JRUN_MESSAGE_BUS``, ``JRUN_RUNS_DIR`` and ``JRUN_CONDUCTOR_URL``. Agents get both, with
the same values; readers accept either.
"""

from collections.abc import Mapping

JRUN_NAMES: dict[str, str] = {
    "TASK_FOLDER": "JRUN_TASK_FOLDER",
    "RUN_FOLDER": "JRUN_RUN_FOLDER",
    "MESSAGE_BUS": "JRUN_MESSAGE_BUS",
    "RUNS_DIR": "JRUN_RUNS_DIR",
    "CONDUCTOR_URL": "JRUN_CONDUCTOR_URL",
}
"""The spec's name of a protocol variable -> conductor-loop's newer name for it."""


def with_newer_names(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` plus, for each spec name in it, its ``JRUN_*`` name with the same value."""
    out = dict(env)
    for old, new in JRUN_NAMES.items():
        if old in env:
            out[new] = env[old]
    return out


def protocol_value(env: Mapping[str, str], name: str) -> str | None:
    """The value of the spec's variable ``name`` in ``env``, under either generation's name."""
    return env.get(name) or env.get(JRUN_NAMES.get(name, name)) or None
