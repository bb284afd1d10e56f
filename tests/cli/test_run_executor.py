"""`agent-canvas run --executor`: where a whole run's agents run."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback_link import install

from desktop.cli import main
from desktop.graph import validate as validate_mod

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"


@pytest.fixture
def run(capsys, monkeypatch):
    monkeypatch.setattr(validate_mod, "_ray_missing", lambda: False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))

    def call(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err
    return call


def test_executor_option_puts_every_agent_on_the_cluster(run, tmp_path, monkeypatch) -> None:
    worker = install(monkeypatch, tmp_path / "worker")
    code, out, err = run("run", str(EXAMPLE), "--data-dir", str(tmp_path / "data"),
                         "--executor", "ray://head.example:10001", "--json")
    assert code == 0, err
    events = [orjson.loads(line) for line in out.splitlines()]
    assert events[0]["executor"]["address"] == "ray://head.example:10001"
    assert len(worker.hosts) == len([e for e in events if e["type"] == "turn.status"
                                     and e["status"] == "started"]) > 0


def test_unreachable_cluster_exits_paused_with_the_reason(run, tmp_path, monkeypatch) -> None:
    install(monkeypatch, tmp_path / "worker", unreachable={"ray://down.example:10001"})
    code, out, err = run("run", str(EXAMPLE), "--data-dir", str(tmp_path / "data"),
                         "--executor", "ray://down.example:10001")
    assert code == 3
    assert "cannot be reached" in out + err


def test_a_bad_executor_option_is_bad_input(run, tmp_path) -> None:
    code, _, err = run("run", str(EXAMPLE), "--data-dir", str(tmp_path), "--executor", "k8s")
    assert code == 2 and "ray://HOST:PORT" in err
