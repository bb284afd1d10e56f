"""The top-level dispatcher: lazy command loading, help, unknown words."""

import subprocess
import sys

import pytest

from desktop import __version__
from desktop.cli import COMMANDS, load, main


def test_every_command_module_registers_its_name() -> None:
    import argparse

    for name in COMMANDS:
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(dest="command")
        load(name).register(sub)
        assert name in sub.choices, name


def test_bus_post_does_not_import_the_heavy_layers() -> None:
    code = ("import sys\nfrom desktop.cli import main\n"
            "try:\n    main(['bus', 'post', '--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('networkx', 'rich', 'desktop.runtime.engine', 'PySide6')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_version_loads_no_command_module() -> None:
    code = ("import sys\nfrom desktop.cli import main\nmain(['--version'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('desktop.cli.')"
            " and m not in ('desktop.cli.entry', 'desktop.cli.self_launch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()
    assert out[0] == f"agent-canvas {__version__}" and out[-1] == "[]"


def test_unknown_word_is_an_error_naming_the_commands(capsys: pytest.CaptureFixture) -> None:
    assert main(["frobnicate"]) == 2
    err = capsys.readouterr().err
    assert "'frobnicate' is neither a command nor a workflow file" in err
    assert "validate" in err


def test_help_lists_every_command(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out
