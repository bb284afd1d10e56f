"""The workspace's trip to a worker and back: bundle, clone, patch, apply; path rewriting."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from desktop.runtime import workspace_ship as ws
from desktop.runtime.executor import bus_events
from desktop.runtime.worker_host import PathMap


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


def _repo(folder: Path) -> Path:
    folder.mkdir(parents=True)
    _git(folder, "init", "-q")
    (folder / "kept.txt").write_text("committed\n")
    (folder / "gone.txt").write_text("to delete\n")
    _git(folder, "add", ".")
    _git(folder, "commit", "-qm", "start")
    (folder / "kept.txt").write_text("changed, not committed\n")
    (folder / "new.txt").write_text("untracked\n")
    (folder / ".gitignore").write_text("ignored.txt\n")
    (folder / "ignored.txt").write_text("stays home\n")
    return folder


def _trip(workspace: Path, worker: Path) -> tuple[ws.Shipment, Path]:
    shipment = ws.pack(workspace)
    there = ws.unpack(shipment.bundle, shipment.base, worker / "repo", prefix=shipment.prefix,
                      exclude=shipment.exclude)
    return shipment, there


def _work(there: Path) -> None:
    (there / "kept.txt").write_text("edited on the worker\n")
    (there / "gone.txt").unlink()
    (there / "bin.dat").write_bytes(bytes(range(256)) * 4)


@pytest.mark.parametrize("layout", ["repo", "subfolder", "no-git"])
def test_the_change_made_on_the_worker_lands_in_the_engines_workspace(
        tmp_path: Path, layout: str) -> None:
    if layout == "repo":
        workspace = _repo(tmp_path / "engine")
    elif layout == "subfolder":
        workspace = _repo(tmp_path / "engine") / "sub" / "dir"
        workspace.mkdir(parents=True)
        (workspace / "kept.txt").write_text("in the subfolder\n")
        (workspace / "gone.txt").write_text("to delete\n")
    else:
        workspace = tmp_path / "plain"
        workspace.mkdir()
        (workspace / "kept.txt").write_text("plain\n")
        (workspace / "gone.txt").write_text("to delete\n")
    shipment, there = _trip(workspace, tmp_path / "worker")
    assert (there / "kept.txt").read_text() == (workspace / "kept.txt").read_text()
    assert not (there / "ignored.txt").exists()  # what git ignores does not travel
    _work(there)
    patch = ws.patch_since(there, shipment.base)
    assert ws.apply_patch(shipment, patch) is None
    assert (workspace / "kept.txt").read_text() == "edited on the worker\n"
    assert not (workspace / "gone.txt").exists()
    assert (workspace / "bin.dat").read_bytes() == bytes(range(256)) * 4
    assert not (workspace / ".git").exists() or layout != "no-git"
    shipment.close()


def test_a_patch_that_no_longer_applies_changes_nothing_and_says_why(tmp_path: Path) -> None:
    workspace = _repo(tmp_path / "engine")
    shipment, there = _trip(workspace, tmp_path / "worker")
    (there / "kept.txt").write_text("worker's version\n")
    (there / "new.txt").write_text("worker's new\n")
    patch = ws.patch_since(there, shipment.base)
    (workspace / "kept.txt").write_text("someone else's version\n")
    problem = ws.apply_patch(shipment, patch)
    assert problem is not None and "kept.txt" in problem
    assert (workspace / "new.txt").read_text() == "untracked\n"  # all or nothing
    assert "+someone else's version" in ws.change_since_start(shipment).decode()


def test_a_thin_bundle_needs_the_repository_it_builds_on(tmp_path: Path) -> None:
    origin = _repo(tmp_path / "origin")
    clone = tmp_path / "engine"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    (clone / "local.txt").write_text("not pushed\n")
    shipment = ws.pack(clone, since="HEAD")
    full = ws.pack(clone)
    assert len(shipment.bundle) < len(full.bundle)
    there = ws.unpack(shipment.bundle, shipment.base, tmp_path / "w1", repo=str(origin))
    assert (there / "local.txt").read_text() == "not pushed\n"
    unrelated = tmp_path / "unrelated"
    unrelated.mkdir()
    _git(unrelated, "init", "-q")
    (unrelated / "other.txt").write_text("another project\n")
    _git(unrelated, "add", ".")
    _git(unrelated, "commit", "-qm", "other")
    with pytest.raises(ws.ShipError, match="push it"):
        ws.unpack(shipment.bundle, shipment.base, tmp_path / "w2", repo=str(unrelated))


# folder names as a Path gives them: no trailing or doubled slash ("/e/a/" is "/e/a")
_name = st.text("abcxyz/_.-", min_size=1, max_size=12).filter(
    lambda n: not n.startswith("/") and not n.endswith("/") and "//" not in n)


@given(st.lists(_name, min_size=1, max_size=4, unique=True), _name)
@example(["_", "_/_"], "_")  # "/e/_" + "/_" is the other folder, "/e/_/_", itself
def test_path_rewriting_replaces_whole_names_only(names: list[str], tail: str) -> None:
    table = {f"/e/{n}": f"/w/{i}" for i, n in enumerate(names)}
    paths = PathMap(table)
    for engine, worker in table.items():
        assert paths.text(engine) == worker
        inside = f"{engine}/{tail}"
        deeper = [k for k in table if len(k) > len(engine)
                  and (inside == k or inside.startswith(k + "/"))]
        # the longest folder wins: inside another listed folder, that one's worker folder
        longest = max(deeper, key=len) if deeper else engine
        assert paths.text(inside) == table[longest] + inside[len(longest):]
        assert paths.text(f"x={engine}:{engine}") == f"x={worker}:{worker}"
        longer = f"{engine}Z"
        if longer not in table:
            assert paths.text(longer).endswith("Z")
        assert paths.reverse().text(paths.text(inside)) == inside \
            or any(f"/w/{i}" in engine for i in range(len(names)))


@given(st.lists(st.dictionaries(st.sampled_from(["type", "busType", "message", "handoffTo",
                                                 "agentRunId", "seq", "runId"]),
                                st.one_of(st.text(max_size=5), st.integers(), st.none(),
                                          st.sampled_from(["bus.message", "FACT", "ERROR"])))))
@example([{"type": "bus.message", "busType": "FACT", "message": "m", "agentRunId": "x",
           "handoffTo": "b", "seq": 1}, {"type": "bus.message", "busType": "NOPE",
                                         "message": "m"}])
def test_relayed_bus_posts_keep_only_checked_fields_of_the_agent_run(raw: list[dict]) -> None:
    kinds = ("PROGRESS", "FACT", "ERROR", "DECISION", "QUESTION")
    relayed = bus_events(raw, "run-1")
    for event in relayed:
        assert event["type"] == "bus.message" and event["agentRunId"] == "run-1"
        assert set(event) <= {"type", "busType", "message", "agentRunId", "handoffTo"}
        assert event["busType"] in kinds
    # and every well-formed post is relayed, in order, with its message and handoff
    posts = [r for r in raw if r.get("type") == "bus.message" and r.get("busType") in kinds
             and isinstance(r.get("message"), str)]
    assert [(e["busType"], e["message"], e.get("handoffTo")) for e in relayed] == [
        (r["busType"], r["message"],
         r["handoffTo"] if isinstance(r.get("handoffTo"), str) and r["handoffTo"] else None)
        for r in posts]
