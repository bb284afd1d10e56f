"""The ``agent-canvas`` command line: :func:`main` (desktop/cli/entry.py) and its
subcommands, one module each with ``register(subparsers)``.

A handler receives the parsed arguments and returns the exit code. Modules are
imported only when their command is used, so ``agent-canvas bus post`` (run by
agents, often) does not pay for networkx, rich or the engine.
"""

import importlib
from types import ModuleType

COMMANDS: dict[str, str] = {
    "gui": "gui",
    "validate": "validate",
    "export": "export",
    "layout": "layout",
    "diff": "diff",
    "schema": "schema",
    "check": "check",
    "verify": "verify",
    "runs": "runs",
    "replay": "replay",
    "run": "run",
    "resume": "run",
    "fork": "fork",
    "bus": "bus",
    "normalize": "normalize",
    "import": "import_run",
    "rehearse": "rehearse",
    "eval": "eval",
    "serve": "serve",
}
"""Command name -> module in this package that registers it."""


def load(command: str) -> ModuleType:
    """The module registering ``command``."""
    return importlib.import_module(f"desktop.cli.{COMMANDS[command]}")


def modules(only: str | None = None) -> list[ModuleType]:
    """The modules to register: the one for ``only``, or all of them in help order."""
    if only is not None:
        return [load(only)]
    names = dict.fromkeys(COMMANDS.values())
    return [importlib.import_module(f"desktop.cli.{name}") for name in names]


def main(argv: "list[str] | None" = None) -> int:
    """Entry point of the console script (desktop/cli/entry.py); the exit code."""
    from desktop.cli.entry import main as entry_main

    return entry_main(argv)
