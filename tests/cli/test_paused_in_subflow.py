"""A run left cleanly paused while a subflow node's step is open (a request inside the
subflow waited and the input ended) reads `paused`, in `runs show` and `runs list`, not
`interrupted`: a subflow step runs no process of its own, so nothing was cut short."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest
import yaml

from desktop.cli import main
from desktop.views.runs import open_run

INNER = {"name": "inner", "task": "t",
         "nodes": [{"id": "checker", "label": "Checker", "entry": True,
                    "permissions": {"cliPermissionsMode": "gated"}}],
         "nodeConfigs": {"checker": {"script": [{"shell": "echo checked"}, {"say": "ok"}]}}}
OUTER = {"name": "outer", "task": "t",
         "nodes": [{"id": "writer", "label": "Writer", "entry": True},
                   {"id": "review", "label": "Review", "kind": "subflow",
                    "flow": "inner.flow.yaml"}],
         "nodeConfigs": {"writer": {"script": [{"say": "written"}]}},
         "edges": [{"from": "writer", "to": "review"}]}


def _cli(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_run_paused_inside_a_subflow_reads_paused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "inner.flow.yaml").write_text(yaml.safe_dump(INNER))
    (tmp_path / "outer.flow.yaml").write_text(yaml.safe_dump(OUTER))
    data = ["--data-dir", str(tmp_path / "data")]
    code, _out, err = _cli(capsys, monkeypatch, "run", str(tmp_path / "outer.flow.yaml"),
                           *data)
    assert code == 3 and "is paused; continue with" in err, err
    [folder] = (tmp_path / "data" / "runs").iterdir()
    state = open_run(folder)
    assert state.status == "paused" and not state.interrupted
    code, out, _ = _cli(capsys, monkeypatch, "runs", "show", folder.name[:8], *data)
    assert code == 0
    assert f"run {folder.name}  paused" in out and "interrupted" not in out
    [row] = orjson.loads(_cli(capsys, monkeypatch, "runs", "list", "--json", *data)[1])
    assert row["status"] == "paused"
