"""The app starting itself again: from a venv (`python -m desktop`) and from the bundle."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktop.cli import entry as cli
from desktop.cli.self_launch import (
    INTERNAL_COMMANDS,
    restore_child_environment,
    script_command,
    self_command,
)
from desktop.graph import resources
from desktop.providers.reaper import WATCHDOG
from desktop.providers.scripted.provider import ScriptedProvider
from desktop.runtime import agent_env, sandbox


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Pretend to be the PyInstaller bundle: a frozen executable in tmp_path/app."""
    exe = tmp_path / "app" / "agent-canvas"
    exe.parent.mkdir()
    exe.touch()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    return exe


def test_from_a_venv_the_interpreter_runs_the_package():
    assert self_command("serve", "--port", "0") == [
        sys.executable, "-m", "desktop", "serve", "--port", "0"]


def test_in_the_bundle_the_executable_runs_itself(frozen: Path):
    assert self_command("_scripted-agent") == [str(frozen), "_scripted-agent"]


def test_every_launch_site_goes_through_self_command(frozen: Path):
    assert ScriptedProvider().argv(None) == [str(frozen), "_scripted-agent"]  # type: ignore[arg-type]
    limits = sandbox.Sandbox.model_validate({"backend": "none", "limits": {"maxCpuSec": 5}})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox.shutil, "which", lambda _name: None)  # no prlimit
        assert sandbox.rlimit_prefix(limits)[:2] == [str(frozen), "_rlimit-exec"]
    assert agent_env.bus_command({"PATH": "/usr/bin"}) == f"{frozen} bus post"
    assert script_command("_watchdog", str(WATCHDOG)) == [str(frozen), "_watchdog"]


def test_from_a_venv_a_script_helper_runs_isolated():
    assert script_command("_watchdog", str(WATCHDOG)) == [sys.executable, "-I", "-S",
                                                          str(WATCHDOG)]


def test_the_bundle_does_not_point_agents_at_a_source_tree(frozen: Path, tmp_path: Path):
    config = SimpleNamespace(script=None, model=None)
    request = SimpleNamespace(agent_run_dir=tmp_path, config=config,
                              inbox=[], env={"PATH": "/usr/bin"}, turn_number=1)
    env, _ = ScriptedProvider().prepare(request)  # type: ignore[arg-type]
    assert "PYTHONPATH" not in env


def test_internal_commands_have_a_main_and_stay_out_of_help():
    for module in INTERNAL_COMMANDS.values():
        assert callable(importlib.import_module(module).main)
    text = cli.build_parser().format_help()
    assert not any(name in text for name in INTERNAL_COMMANDS)


def test_the_cli_runs_an_internal_command_in_a_child():
    result = subprocess.run(
        [*self_command("_rlimit-exec", "--cpu=7:9", "--"), "sh", "-c", "ulimit -t"],
        capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "7"


@pytest.mark.parametrize(("before", "after"), [
    ({"LD_LIBRARY_PATH": "/bundle", "LD_LIBRARY_PATH_ORIG": "/mine"},
     {"LD_LIBRARY_PATH": "/mine"}),
    ({"LD_LIBRARY_PATH": "/bundle"}, {}),
    ({"HOME": "/h"}, {"HOME": "/h"}),
])
def test_children_get_the_users_library_path_back(before, after):
    env = dict(before)
    restore_child_environment(env)
    assert env == after


def test_the_bundle_finds_its_resources_inside(frozen: Path, monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path):
    inside = tmp_path / "app" / "_internal"
    (inside / "resources" / "examples").mkdir(parents=True)
    monkeypatch.setattr(sys, "_MEIPASS", str(inside), raising=False)
    monkeypatch.delenv(resources.ENV_VAR, raising=False)
    assert resources.examples_dir() == inside / "resources" / "examples"


def test_the_app_icon_ships_scalable_and_in_every_size():
    files = resources.app_icon_files()
    assert files[0].suffix == ".svg"
    sizes = [int(p.parent.name.partition("x")[0]) for p in files[1:]]
    assert sizes == sorted(sizes) and {16, 32, 48, 256} <= set(sizes)
