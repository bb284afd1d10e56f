"""The comparison's graph names each node's final status in the words its card uses
(done, failed, not run, ...), not the node's own status, which is idle between turns
and so idle for every node of a finished run."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
import yaml

from desktop.cli import main
from desktop.views.activity import node_activity
from desktop.views.compare import digest_run
from desktop.views.runs import open_run

FLOW = {
    "version": 1, "name": "mixed", "task": "t",
    "nodes": [{"id": "lead", "label": "Lead", "provider": "scripted", "entry": True},
              {"id": "worker", "label": "Worker", "provider": "scripted"},
              {"id": "checker", "label": "Checker", "provider": "scripted"},
              {"id": "spare", "label": "Spare", "provider": "scripted"}],
    # one after the other: a node still running when another fails is cancelled
    "edges": [{"id": "e1", "from": "lead", "to": "checker", "type": "handoff"},
              {"id": "e2", "from": "checker", "to": "worker", "type": "handoff"}],
    "nodeConfigs": {
        "lead": {"script": [{"handoff": {"to": "checker", "message": "check it"}},
                            {"say": "delegated"}]},
        "checker": {"script": [{"handoff": {"to": "worker", "message": "build it"}},
                               {"say": "checked"}]},
        "worker": {"script": [{"fail": "the build broke"}]},
        "spare": {"script": [{"say": "never"}]}},
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A failed run: Lead and Checker took their turns, Worker failed, Spare never ran."""
    tmp = tmp_path_factory.mktemp("mixed")
    flow = tmp / "mixed.flow.yaml"
    flow.write_text(yaml.safe_dump(FLOW), encoding="utf-8")
    stdin, sys.stdin = sys.stdin, io.StringIO("")
    try:
        main(["run", str(flow), "--data-dir", str(tmp / "data")])
    finally:
        sys.stdin = stdin
    [folder] = (tmp / "data" / "runs").iterdir()
    return folder


def test_each_node_shows_its_final_status(finished: Path) -> None:
    digest = digest_run(finished)
    assert digest.status == "failed"
    assert {key: node.status for key, node in digest.nodes.items()} == {
        "lead": "done", "worker": "failed", "checker": "done", "spare": "not run"}


def test_the_words_are_those_of_the_node_cards(finished: Path) -> None:
    state = open_run(finished)
    cards = {state.nodes[nid].key: shown.shown_status
             for nid, shown in node_activity(state.to_json_dict()).items()}
    assert {key: node.status for key, node in digest_run(finished).nodes.items()} == cards
