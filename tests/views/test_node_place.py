"""Where a node of a run works, as its canvas menu offers it: its own worktree and branch,
else the folder it shares; a folder gone or on another machine is said, not offered."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from desktop.views.node_place import node_place

LEAD = "node-lead"


def _state(tmp_path: Path) -> dict:
    return {"nodes": {
        LEAD: {"key": "lead", "label": "Lead", "git": {
            "branch": "canvas/1a2b3c4d/lead", "worktree": "worktrees/lead",
            "workdir": "worktrees/lead/app"}},
        "node-helper": {"key": "helper", "label": "Helper"}},
        "nodeConfigs": {"node-helper": {"workspace": str(tmp_path / "shared")}}}


def test_a_node_in_its_own_worktree_is_found_by_key_or_id(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "r1"
    (run_dir / "worktrees" / "lead" / "app").mkdir(parents=True)
    for key in ("lead", LEAD):
        place = node_place(_state(tmp_path), run_dir, key)
        assert place is not None and place.node_id == LEAD and place.label == "Lead"
        assert place.folder == run_dir / "worktrees" / "lead" / "app"
        assert place.worktree and place.what == "worktree"
        assert place.branch == "canvas/1a2b3c4d/lead" and place.unreachable is None


def test_a_shared_folder_a_gone_one_and_a_remote_run_are_said(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "r1"
    (tmp_path / "shared").mkdir()
    helper = node_place(_state(tmp_path), run_dir, "helper")
    assert helper is not None and helper.folder == tmp_path / "shared"
    assert not helper.worktree and helper.what == "working folder" and helper.branch is None
    assert helper.unreachable is None
    gone = node_place(_state(tmp_path), run_dir, "lead")  # the run deleted: no worktree
    assert gone is not None and gone.unreachable is not None
    assert str(run_dir / "worktrees" / "lead" / "app") in gone.unreachable
    far = node_place(_state(tmp_path), run_dir, "helper", remote=True)
    assert far is not None and far.unreachable == \
        "the run is held by a service on another machine"


@given(key=st.text(max_size=12).filter(lambda k: k not in ("lead", LEAD, "bad")))
def test_a_key_the_run_lacks_has_no_place(key: str) -> None:
    state = {"nodes": {LEAD: {"key": "lead"}, "bad": "not a node"}}
    assert node_place(state, Path("/nowhere"), key) is None
    assert node_place(None, Path("/nowhere"), key) is None
