"""Subcommands of ``agent-canvas``; each module has ``register(subparsers)``.

A handler receives the parsed arguments and returns the exit code.
"""

from desktop.commands import (
    bus,
    check,
    export,
    gui,
    import_run,
    layout,
    normalize,
    rehearse,
    replay,
    run,
    runs,
    schema,
    validate,
)

COMMAND_MODULES = [gui, validate, export, layout, schema, check, runs, replay, run, bus,
                   normalize, import_run, rehearse]
