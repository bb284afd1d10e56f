"""How the app starts itself again as a child process, from a venv or from a bundle.

From a Python environment a child is ``python -m desktop COMMAND ...``. In the
PyInstaller bundle there is no interpreter on PATH and no source tree: the
executable itself is the interpreter, so a child is ``agent-canvas COMMAND ...``.
Helper programs that used to be ``python -m <module>`` (the scripted agent, the
gating MCP server, the rlimit stand-in, the fake model server) are internal
commands of the same executable, hidden from ``--help``.
"""

import importlib
import os
import sys
from collections.abc import Sequence

INTERNAL_COMMANDS: dict[str, str] = {
    "_scripted-agent": "desktop.providers.scripted.__main__",
    "_gating-mcp-server": "desktop.providers.gating.mcp_server",
    "_rlimit-exec": "desktop.runtime.rlimit_exec",
    "_fake-model-server": "desktop.providers.fakeserver.__main__",
    "_watchdog": "desktop.providers.watchdog",
}
"""Internal command -> module whose ``main(argv) -> int`` runs it."""


def frozen() -> bool:
    """True inside the PyInstaller bundle."""
    return bool(getattr(sys, "frozen", False))


def self_command(*args: str) -> list[str]:
    """The argv that runs ``agent-canvas ARGS...`` with this very installation."""
    if frozen():
        return [sys.executable, *args]
    return [sys.executable, "-m", "desktop", *args]


def script_command(internal: str, script: str) -> list[str]:
    """A helper written as a standard-library-only script (``script``, a file path).

    From Python it runs isolated, without site (``python -I -S script``: it starts in
    milliseconds and needs no package path); the bundle has no script files, so there
    it is the internal command ``internal``.
    """
    if frozen():
        return self_command(internal)
    return [sys.executable, "-I", "-S", script]


def run_internal(command: str, argv: Sequence[str]) -> int:
    """Run the internal ``command`` (a key of :data:`INTERNAL_COMMANDS`) in this process."""
    module = importlib.import_module(INTERNAL_COMMANDS[command])
    return int(module.main(list(argv)) or 0)


def restore_child_environment(environ: dict[str, str] | None = None) -> None:
    """Undo what the bundle's launcher did to the environment, for every child we start.

    PyInstaller's bootloader points ``LD_LIBRARY_PATH`` at the bundle (keeping the
    user's value in ``LD_LIBRARY_PATH_ORIG``). This process has loaded its libraries
    already; a child such as ``git``, ``bwrap`` or an agent CLI must not pick up the
    bundle's copies of libssl or libz instead of its own.
    """
    env = os.environ if environ is None else environ
    original = env.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        env["LD_LIBRARY_PATH"] = original
    else:
        env.pop("LD_LIBRARY_PATH", None)
