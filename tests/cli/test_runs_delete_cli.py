"""`agent-canvas runs delete` as a user runs it: runs on their repository deleted with
their worktrees (pooled) and branches while the user's own branch, index and uncommitted
work stay; live runs refused without --force; a reference that names no run, or
several, deletes nothing and exits 2. In this process and through a service."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
import yaml
from cli_kit import Cli, git, make_cli
from own_work import own_repo
from service_process import ServeProcess

from desktop.store.runs import engine_alive, hold_engine_lock


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


@dataclass
class UserRepo:
    """The user's repository and what of it must survive any deletion."""

    path: Path

    def seen(self) -> dict[str, str]:
        return {"status": git(self.path, "status", "--porcelain"),
                "staged": git(self.path, "diff", "--cached"),
                "unstaged": git(self.path, "diff"),
                "head": git(self.path, "rev-parse", "HEAD"),
                "branch": git(self.path, "branch", "--show-current"),
                "branches": git(self.path, "branch", "--list", "main", "feature",
                                "--format=%(refname:short) %(objectname)")}

    def canvas_branches(self, run_id: str) -> str:
        return git(self.path, "branch", "--list", f"canvas/{run_id[:8]}/*")

    def canvas_refs(self, run_id: str) -> str:
        return git(self.path, "for-each-ref", f"refs/canvas/{run_id[:8]}/",
                   f"refs/heads/canvas/{run_id[:8]}/")

    def worktrees(self) -> str:
        return git(self.path, "worktree", "list", "--porcelain")


@pytest.fixture
def repo(tmp_path: Path) -> UserRepo:
    """A commit on main, a branch of the user's own, a staged change, an unstaged change
    and an untracked file."""
    return UserRepo(own_repo(tmp_path / "project"))


def flow(tmp_path: Path, repo: UserRepo, *, gated: bool = False) -> Path:
    """Two nodes in worktrees of ``repo`` (``gated``: one, waiting for an approval)."""
    if gated:
        doc = {"name": "gated", "task": "t",
               "nodes": [{"id": "worker", "label": "Worker", "entry": True,
                          "permissions": {"cliPermissionsMode": "gated"}}],
               "nodeConfigs": {"worker": {"workspace": str(repo.path), "script": [
                   {"shell": "echo one"}, {"say": "done"}, {"done": True}]}}}
    else:
        doc = {"name": "two", "task": "t",
               "nodes": [{"id": "lead", "label": "Lead", "entry": True},
                         {"id": "helper", "label": "Helper"}],
               "nodeConfigs": {
                   "lead": {"workspace": str(repo.path), "script": [
                       {"edit": {"path": "new.txt", "content": "the agent's\n"}},
                       {"handoff": {"to": "helper", "message": "go"}}]},
                   "helper": {"workspace": str(repo.path), "script": [{"say": "on it"}]}},
               "edges": [{"from": "lead", "to": "helper"}]}
    path = tmp_path / f"{doc['name']}.flow.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def run_ids(cli: Cli) -> list[str]:
    """Every run, newest first."""
    return [r["id"] for r in orjson.loads(cli("runs", "list", "--json").out)]


def started(cli: Cli, *args: str, code: int) -> str:
    """The id of the run ``run ARGS`` starts (exiting with ``code``); the service is shared
    by this module's tests, so not simply the only run."""
    before = set(run_ids(cli))
    said = cli("run", *args)
    assert said.code == code, said.err
    [new] = [i for i in run_ids(cli) if i not in before]
    return new


def assert_gone(run_id: str, folder: Path, repo: UserRepo) -> None:
    """Nothing of the run is left: its folder, worktrees, branches and refs."""
    assert not folder.exists()
    assert run_id not in repo.worktrees()
    assert repo.canvas_branches(run_id) == ""
    assert repo.canvas_refs(run_id) == ""


def test_runs_go_with_their_worktrees_and_branches_and_the_user_s_work_stays(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    first, second = run_ids(cli)
    assert repo.canvas_branches(first) and repo.canvas_branches(second)
    before = repo.seen()

    said = cli("runs", "delete", first[:8], second)
    assert said.code == 0, said.err
    lines = said.out.splitlines()
    assert len(lines) == 2
    for run_id, line in zip((first, second), lines, strict=True):
        folder = tmp_path / "data" / "runs" / run_id
        assert line.startswith(f"deleted run {run_id[:8]}: folder {folder}, 2 worktrees (")
        assert f"2 branches removed (canvas/{run_id[:8]}/helper, canvas/{run_id[:8]}/lead)" \
            in line
        assert_gone(run_id, folder, repo)
    # the pool keeps what it can take (4 per repository) and the rest is removed: 4
    # worktrees wait in the data folder, each in git's list, detached
    assert all("(2 pooled for the next run, 0 removed)" in line for line in lines)
    pool = sorted((tmp_path / "data" / "worktree-pool").glob("*/*"))
    assert len(pool) == 4 and all(str(p) in repo.worktrees() for p in pool)
    assert "refs/heads/canvas/" not in repo.worktrees()
    assert repo.seen() == before
    assert git(repo.path, "branch", "--list", "canvas/*") == ""
    assert run_ids(cli) == []


def test_a_reference_that_names_no_run_or_several_deletes_nothing(
        cli: Cli, tmp_path: Path) -> None:
    one = flow_without_git(tmp_path)
    assert cli("run", str(one)).code == 0
    [real] = run_ids(cli)
    runs = tmp_path / "data" / "runs"
    twins = ["aaaaaaaa-1111-4111-8111-111111111111", "aaaaaaaa-2222-4222-8222-222222222222"]
    for twin in twins:
        shutil.copytree(runs / real, runs / twin)

    missing = cli("runs", "delete", real[:8], "nope")
    assert missing.code == 2
    assert f"no run matches 'nope' in {runs}" in missing.err
    ambiguous = cli("runs", "delete", real[:8], "aaaa")
    assert ambiguous.code == 2
    assert "'aaaa' matches 2 runs (aaaaaaaa-1, aaaaaaaa-2); give more of the id" \
        in ambiguous.err
    assert missing.out == ambiguous.out == ""
    assert sorted(p.name for p in runs.iterdir()) == sorted([real, *twins])

    said = cli("runs", "delete", "aaaaaaaa-1")
    assert said.code == 0, said.err
    assert said.out == f"deleted run aaaaaaaa: folder {runs / twins[0]}, no worktrees, " \
                       "0 branches removed\n"


def flow_without_git(tmp_path: Path) -> Path:
    path = tmp_path / "hello.flow.yaml"
    path.write_text(yaml.safe_dump({"name": "hello", "task": "t", "nodes": [
        {"id": "a", "label": "A", "entry": True}],
        "nodeConfigs": {"a": {"script": [{"say": "hi"}]}}}))
    return path


def test_a_run_an_engine_holds_is_refused_with_or_without_force(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    held, free = run_ids(cli)
    folder = tmp_path / "data" / "runs" / held
    with hold_engine_lock(folder):  # as an `agent-canvas run` in another terminal does
        said = cli("runs", "delete", held[:8], free[:8])
        assert said.code == 1
        assert f"error: run {held[:8]} is live" in said.err and "--force" in said.err
        assert said.out.startswith(f"deleted run {free[:8]}:")  # the others still go
        forced = cli("runs", "delete", held[:8], "--force")
        assert forced.code == 1 and forced.out == ""
        assert f"run {held[:8]} is held by an engine outside a service" in forced.err
        assert "Ctrl-C" in forced.err
    assert folder.is_dir() and repo.canvas_branches(held)
    assert cli("runs", "delete", held[:8]).code == 0
    assert_gone(held, folder, repo)


def test_a_run_with_a_worktree_the_user_locked_stays_whole_and_the_error_says_how_to_go_on(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    kept, other = run_ids(cli)
    folder = tmp_path / "data" / "runs" / kept
    lead = folder / "worktrees" / "lead"
    git(repo.path, "worktree", "lock", "--reason", "my fix is in here", str(lead))

    def traces() -> tuple[object, ...]:
        trees = [t for t in repo.worktrees().split("\n\n") if kept in t]
        return trees, repo.canvas_refs(kept), sorted(folder.rglob("*"))

    before = traces()

    said = cli("runs", "delete", kept[:8], other[:8])
    assert said.code == 1
    assert said.err == (
        f"error: run {kept[:8]} not deleted, nothing was changed: kept canvas/{kept[:8]}/lead:"
        f" locked by you (my fix is in here); git worktree unlock {lead}, then delete the "
        "run again\n")
    assert said.out.startswith(f"deleted run {other[:8]}:")  # the others still go
    assert_gone(other, tmp_path / "data" / "runs" / other, repo)
    assert traces() == before and len(before[0]) == 2

    git(repo.path, "worktree", "unlock", str(lead))
    assert cli("runs", "delete", kept[:8]).code == 0
    assert_gone(kept, folder, repo)


def test_a_dry_run_says_which_picked_run_deleting_would_refuse_and_why(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    for _ in range(2):
        assert cli("run", str(flow(tmp_path, repo))).code == 0
    edited, other = run_ids(cli)
    for n, run_id in enumerate((edited, other)):
        assert cli("runs", "apply", run_id[:8], "--branch", f"took-{n}").code == 0
    tree = tmp_path / "data" / "runs" / edited / "worktrees" / "lead"
    (tree / "mine.txt").write_text("the user's, made after the run\n")
    later = tree.stat().st_mtime + 5
    os.utime(tree / "mine.txt", (later, later))

    dry = cli("runs", "delete", "--applied", "--dry-run")
    lines = dry.out.splitlines()
    assert dry.code == 0 and len(lines) == 2
    assert lines[0].startswith(f"would delete run {edited[:8]}: ") and lines[0].endswith(
        "(refused: 1 worktree of it holding work made after it ended)")
    assert lines[1].startswith(f"would delete run {other[:8]}: ") and "refused" not in lines[1]
    said = cli("runs", "delete", "--applied")
    assert said.code == 1 and said.out.startswith(f"deleted run {other[:8]}: ")
    assert f"{tree}: 1 uncommitted change (mine.txt)" in said.err
    assert run_ids(cli) == [edited]


# --- through a service ------------------------------------------------------------------


def test_applied_runs_are_picked_listed_first_with_dry_run_then_deleted(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    kept, taken = run_ids(cli)
    assert cli("runs", "apply", taken[:8], "--branch", "took-it").code == 0
    before = repo.seen()

    dry = cli("runs", "delete", "--applied", "--dry-run")
    assert dry.code == 0 and dry.out.splitlines() == [
        f"would delete run {taken[:8]}: two, completed, last event "
        f"{orjson.loads(cli('runs', 'list', '--json').out)[1]['updatedAt']}"]
    assert run_ids(cli) == [kept, taken]  # a dry run deletes nothing
    none = cli("runs", "delete", "--applied", "--older-than", "1d")
    assert none.code == 0 and none.out == "" and "no run matches" in none.err
    said = cli("runs", "delete", "--applied")
    assert said.code == 0 and said.out.startswith(f"deleted run {taken[:8]}: ")
    assert_gone(taken, tmp_path / "data" / "runs" / taken, repo)
    assert run_ids(cli) == [kept] and repo.canvas_branches(kept)
    assert git(repo.path, "rev-parse", "--verify", "--quiet", "took-it")  # the user's now
    assert repo.seen() == before


@pytest.mark.parametrize("args", [[], ["abc", "--applied"], ["--dry-run"]])
def test_runs_are_named_or_picked_not_both_nor_neither(cli: Cli, args: list[str]) -> None:
    said = cli("runs", "delete", *args)
    assert said.code == 2 and said.err.startswith("error: ")


def test_an_age_that_is_none_is_a_usage_error(cli: Cli,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli("runs", "delete", "--older-than", "soon")
    assert exited.value.code == 2
    assert "'soon' is no age: give a number and a unit" in capsys.readouterr().err


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    svc = ServeProcess(tmp_path_factory.mktemp("delete-service"))
    yield svc
    svc.stop()


@pytest.fixture
def remote(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
           service: ServeProcess) -> Cli:
    """A command with ``--server URL`` (its token from the service's data folder)."""
    return make_cli(capsys, monkeypatch, ["--server", service.url,
                                          "--data-dir", str(service.data_dir)])


@pytest.fixture
def local(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          service: ServeProcess) -> Cli:
    """A command in this process on the service's data folder."""
    return make_cli(capsys, monkeypatch, ["--data-dir", str(service.data_dir)])


def test_over_the_server_a_live_run_goes_only_with_force(
        remote: Cli, service: ServeProcess, repo: UserRepo, tmp_path: Path) -> None:
    live = started(remote, str(flow(tmp_path, repo, gated=True)), code=3)  # waits, live
    done = started(remote, str(flow(tmp_path, repo)), code=0)
    before = repo.seen()

    refused = remote("runs", "delete", live[:8])
    assert refused.code == 1 and refused.out == ""
    assert f"error: run {live[:8]} is live" in refused.err and "--force" in refused.err
    assert (service.data_dir / "runs" / live).is_dir()
    unknown = remote("runs", "delete", done[:8], "nope")
    assert unknown.code == 2 and "the service has no run matching 'nope'" in unknown.err
    assert (service.data_dir / "runs" / done).is_dir()

    said = remote("runs", "delete", live[:8], done[:8], "--force")
    assert said.code == 0, said.err
    gated, two = said.out.splitlines()
    assert gated.startswith(f"deleted run {live[:8]}: folder "
                            f"{service.data_dir / 'runs' / live}, 1 worktree (")
    assert gated.endswith(f"1 branch removed (canvas/{live[:8]}/worker) and its base ref")
    assert two.startswith(f"deleted run {done[:8]}:") and "2 branches removed" in two
    for run_id in (live, done):
        assert_gone(run_id, service.data_dir / "runs" / run_id, repo)
    assert repo.seen() == before
    assert not {live, done} & set(run_ids(remote))


def test_over_the_server_a_live_run_with_a_locked_worktree_is_refused_and_goes_on(
        remote: Cli, local: Cli, service: ServeProcess, repo: UserRepo,
        tmp_path: Path) -> None:
    live = started(remote, str(flow(tmp_path, repo, gated=True)), code=3)
    tree = service.data_dir / "runs" / live / "worktrees" / "worker"
    git(repo.path, "worktree", "lock", str(tree))
    refusal = (f"error: run {live[:8]} not deleted, nothing was changed: kept "
               f"canvas/{live[:8]}/worker: locked by you; git worktree unlock {tree}, then "
               "delete the run again\n")
    for cli in (remote, local):  # through the service, and handed to it by --force here
        said = cli("runs", "delete", live[:8], "--force")
        assert said.code == 1 and said.out == "" and said.err == refusal
        assert engine_alive(tree.parent.parent)  # not stopped: the service still runs it
    git(repo.path, "worktree", "unlock", str(tree))
    assert remote("runs", "delete", live[:8], "--force").code == 0
    assert_gone(live, service.data_dir / "runs" / live, repo)


def test_over_the_server_the_runs_picked_are_those_the_service_lists(
        remote: Cli, service: ServeProcess, repo: UserRepo, tmp_path: Path) -> None:
    kept = started(remote, str(flow(tmp_path, repo)), code=0)
    taken = started(remote, str(flow(tmp_path, repo)), code=0)
    assert remote("runs", "apply", taken[:8], "--branch", f"took-{taken[:8]}").code == 0
    dry = remote("runs", "delete", "--applied", "--dry-run")
    assert dry.code == 0 and dry.out.startswith(f"would delete run {taken[:8]}: two, ")
    assert {kept, taken} <= set(run_ids(remote))
    said = remote("runs", "delete", "--applied")
    assert said.code == 0 and said.out.startswith(f"deleted run {taken[:8]}: ")
    assert_gone(taken, service.data_dir / "runs" / taken, repo)
    assert kept in run_ids(remote)


def test_in_this_process_force_has_the_service_stop_and_delete_its_run(
        remote: Cli, local: Cli, service: ServeProcess, repo: UserRepo,
        tmp_path: Path) -> None:
    live = started(remote, str(flow(tmp_path, repo, gated=True)), code=3)
    refused = local("runs", "delete", live[:8])
    assert refused.code == 1 and "--force" in refused.err
    said = local("runs", "delete", live[:8], "--force", "--json")
    assert said.code == 0, said.err
    [went] = orjson.loads(said.out)
    assert went["runId"] == live and went["refsDeleted"] == [
        f"refs/canvas/{live[:8]}/base", f"refs/heads/canvas/{live[:8]}/worker"]
    assert_gone(live, service.data_dir / "runs" / live, repo)
    assert live not in run_ids(remote)


def test_deleting_a_run_whose_apply_could_be_undone_says_how_to_undo_it_by_hand(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    assert cli("run", str(flow(tmp_path, repo))).code == 0
    [run_id] = run_ids(cli)
    before = repo.seen()
    assert cli("runs", "apply", run_id[:8]).code == 0
    assert repo.seen() != before
    said = cli("runs", "delete", run_id[:8], "--json")
    assert said.code == 0
    [lost] = orjson.loads(said.out)[0]["undoLost"]
    assert lost["repo"] == str(repo.path)
    [warning] = [line for line in said.err.splitlines() if "no longer be undone" in line]
    assert warning.endswith(lost["byHand"])
    assert_gone(run_id, tmp_path / "data" / "runs" / run_id, repo)
    subprocess.run(lost["byHand"], shell=True, check=True, cwd=tmp_path)
    assert repo.seen() == before


def test_the_undo_by_hand_names_the_linked_worktree_the_result_was_applied_to(
        cli: Cli, repo: UserRepo, tmp_path: Path) -> None:
    """A run on a linked worktree of the user's (``git worktree add``) applies its result
    there; the command that undoes it by hand must change that worktree, not the main one."""
    linked = UserRepo(tmp_path / "linked")
    git(repo.path, "worktree", "add", "-q", "-b", "mine", str(linked.path))
    (linked.path / "mine.txt").write_text("the user's, uncommitted\n")
    assert cli("run", str(flow(tmp_path, linked))).code == 0
    [run_id] = run_ids(cli)
    main_before, before = repo.seen(), linked.seen()
    assert cli("runs", "apply", run_id[:8]).code == 0
    assert linked.seen() != before and repo.seen() == main_before
    said = cli("runs", "delete", run_id[:8], "--json")
    assert said.code == 0, said.err
    [lost] = orjson.loads(said.out)[0]["undoLost"]
    assert lost["repo"] == str(linked.path)
    subprocess.run(lost["byHand"], shell=True, check=True, cwd=tmp_path)
    assert linked.seen() == before and repo.seen() == main_before


def test_prune_takes_only_what_runs_deleted_by_hand_left(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        repo: UserRepo, tmp_path: Path) -> None:
    """A run folder removed with rm -rf leaves its branches and refs in the user's
    repository; ``runs prune`` removes them, and keeps a run this data folder still has,
    a run of another data folder (its worktrees are on disk), a leftover branch the user
    checked out, and a canvas/ branch of the user's own."""
    here = make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])
    other = make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "other")])
    for _ in range(4):
        assert here("run", str(flow(tmp_path, repo))).code == 0
    away, held, gone, stays = run_ids(here)
    assert other("run", str(flow(tmp_path, repo))).code == 0
    [elsewhere] = run_ids(other)
    # a worktree on a drive not plugged in, locked so that git keeps it
    git(repo.path, "worktree", "lock", "--reason", "on my USB drive",
        str(tmp_path / "data" / "runs" / away / "worktrees" / "lead"))
    for run_id in (gone, held, away):
        shutil.rmtree(tmp_path / "data" / "runs" / run_id)
    git(repo.path, "worktree", "prune")
    git(repo.path, "worktree", "add", "-q", str(tmp_path / "mine"), f"canvas/{held[:8]}/lead")
    git(repo.path, "branch", "canvas/deadbeef/mine")  # named like a run's, but the user's
    before = repo.seen()

    dry = here("runs", "prune", str(repo.path), "--dry-run")
    assert dry.code == 1 and f"would remove what run {gone[:8]} left" in dry.out
    assert repo.canvas_refs(gone)
    planned = {r["runId"]: r for r in orjson.loads(
        here("runs", "prune", str(repo.path), "--dry-run", "--json").out)}
    assert set(planned) == {gone, held, elsewhere, away}
    assert planned[gone]["kept"] is None and not planned[gone]["removed"]
    said = here("runs", "prune", str(repo.path))
    assert said.code == 1, said.err
    assert said.out.startswith(f"removed what run {gone[:8]} left in {repo.path}: 2 branches")
    assert repo.canvas_refs(gone) == "" and gone[:8] not in repo.worktrees()
    assert f"kept what run {held[:8]} left in {repo.path}: canvas/{held[:8]}/lead is " \
           f"checked out in {tmp_path / 'mine'}" in said.err
    assert f"kept what run {elsewhere[:8]} left" in said.err and "another data folder" in said.err
    assert f"kept what run {away[:8]} left" in said.err and "is locked" in said.err
    for run_id in (held, stays, elsewhere, away):
        assert repo.canvas_branches(run_id)
    assert git(repo.path, "branch", "--list", "canvas/deadbeef/mine")
    assert repo.seen() == before
    assert other("runs", "show", elsewhere[:8]).code == 0


def test_prune_keeps_a_branch_the_user_committed_on(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        repo: UserRepo, tmp_path: Path) -> None:
    """Deleting it would lose the user's commit: the refusal says how to keep it or let
    it go, and once the branch is theirs alone the rest of the run's refs go."""
    here = make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])
    assert here("run", str(flow(tmp_path, repo))).code == 0
    [run_id] = run_ids(here)
    tree = tmp_path / "data" / "runs" / run_id / "worktrees" / "lead"
    (tree / "fix.txt").write_text("the user's fix\n")
    git(tree, "add", "fix.txt")
    git(tree, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-qm",
        "my fix")
    mine = git(tree, "rev-parse", "HEAD")
    shutil.rmtree(tmp_path / "data" / "runs" / run_id)
    git(repo.path, "worktree", "prune")

    said = here("runs", "prune", str(repo.path))
    assert said.code == 1, said.err
    branch = f"canvas/{run_id[:8]}/lead"
    assert f"kept what run {run_id[:8]} left in {repo.path}: {branch}'s newest commit, " \
           f"{mine[:7]}" in said.err and "(my fix), is not the run's" in said.err
    assert git(repo.path, "rev-parse", branch) == mine

    git(repo.path, "branch", "-D", branch)  # as the refusal says, when it is not needed
    assert here("runs", "prune", str(repo.path)).code == 0
    assert repo.canvas_refs(run_id) == ""
