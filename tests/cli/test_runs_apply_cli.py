"""`agent-canvas runs result|apply` as a user runs them: the orchestrator example on their
repository with uncommitted work, its result checked, landed on a branch and onto the
working tree, their changes surviving every step; collisions and bad input exit non-zero
with the reason."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import yaml
from cli_kit import Cli, git, make_cli
from lockkit import applying_elsewhere

from desktop.cli import main
from desktop.graph.resources import examples_dir

IMPLEMENTED = ["num_utils.py", "test_num_utils.py", "test_text_utils.py", "text_utils.py"]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> Cli:
    return make_cli(capsys, monkeypatch, ["--data-dir", str(tmp_path / "data")])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The user's repository: a commit, a change to it, an untracked and an ignored file."""
    path = tmp_path / "project"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    (path / "lib.py").write_text("def helper():\n    return 1\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "init")
    (path / "lib.py").write_text("def helper():\n    return 1\n\n\ndef wip(): ...\n")
    (path / "NOTES.txt").write_text("my notes\n")
    return path


def the_example_on(repo: Path, tmp_path: Path) -> Path:
    doc = yaml.safe_load((examples_dir() / "orchestrator-two-implementers.flow.yaml")
                         .read_text())
    configs = doc.setdefault("nodeConfigs", {})
    for node in doc["nodes"]:
        configs.setdefault(node["id"], {})["workspace"] = str(repo)
    flow = tmp_path / "flow.yaml"
    flow.write_text(yaml.safe_dump(doc, sort_keys=False))
    return flow


def test_a_run_s_result_lands_on_a_branch_and_the_tree_and_the_user_s_work_survives(
        cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    [listed] = orjson.loads(cli("runs", "list", "--json").out)
    run8 = listed["id"][:8]
    status = git(repo, "status", "--porcelain")

    shown = cli("runs", "result", run8)
    assert shown.code == 0 and f"branch canvas/{run8}/orchestrator" in shown.out
    assert all(name in shown.out for name in IMPLEMENTED)
    result = orjson.loads(cli("runs", "result", run8, "--json").out)
    assert [f["path"] for f in result["files"]] == IMPLEMENTED
    assert "def clamp" in cli("runs", "result", run8, "--diff", "num_utils.py").out

    checked = cli("runs", "apply", run8, "--check")
    assert checked.code == 0 and "applies cleanly" in checked.out
    landed = cli("runs", "apply", run8, "--branch", "agent/result")
    assert landed.code == 0, landed.err
    assert git(repo, "ls-tree", "--name-only", "agent/result").split() == sorted(
        [".gitignore", "lib.py", *IMPLEMENTED])
    assert git(repo, "rev-parse", "agent/result^") == git(repo, "rev-parse", "main")
    assert git(repo, "status", "--porcelain") == status
    assert (repo / "lib.py").read_text().endswith("def wip(): ...\n")

    took = cli("runs", "apply", run8, "--file", "num_utils.py", "--file", "test_num_utils.py")
    assert took.code == 0 and "applied 2 files to your working tree" in took.out
    assert (repo / "num_utils.py").is_file() and not (repo / "text_utils.py").exists()
    assert (repo / "lib.py").read_text().endswith("def wip(): ...\n")
    assert (repo / "NOTES.txt").read_text() == "my notes\n"
    assert git(repo, "diff", "--cached", "--name-only") == ""  # their index as it was

    (repo / "text_utils.py").write_text("# the user's own\n")
    collides = cli("runs", "apply", run8)
    assert collides.code == 1 and "collides: text_utils.py" in collides.out
    assert (repo / "text_utils.py").read_text() == "# the user's own\n"
    assert not (repo / "test_text_utils.py").exists()  # nothing changed
    history = cli("runs", "result", run8).out
    assert "applied to branch agent/result" in history and "applied to the working tree" \
        in history


def test_bad_input_exits_2_with_the_reason(cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    run8 = orjson.loads(cli("runs", "list", "--json").out)[0]["id"][:8]
    for args, reason in ((("nope",), "no run matches"),
                         ((run8, "--file", "README.md"), "did not change README.md"),
                         ((run8, "--branch", "bad..name"), "not a branch name"),
                         # `--branch "$NAME"` with NAME unset: refused, not the working tree
                         ((run8, "--branch", ""), "not a branch name"),
                         ((run8, "--pull-request"), "--pull-request needs --branch"),
                         ((run8, "--branch", "x", "--pull-request"), "no remote")):
        said = cli("runs", "apply", *args)
        assert said.code == 2 and reason in said.err, (args, said)
    assert git(repo, "branch", "--list", "x") == ""  # refused before anything was made
    assert not (repo / "num_utils.py").exists()  # and nothing landed on the working tree


def test_a_branch_that_would_miss_the_user_s_uncommitted_start_says_so(
        cli, repo: Path, tmp_path: Path) -> None:
    (repo / "text_utils.py").write_text("# started by the user, not committed\n")
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    run8 = orjson.loads(cli("runs", "list", "--json").out)[0]["id"][:8]
    for extra, verb in ((["--check"], "would collide"), ([], "collides")):
        said = cli("runs", "apply", run8, "--branch", "agent/result", *extra)
        assert said.code == 1 and "collides: text_utils.py" in said.out, said
        assert f"1 file {verb} with your last commit" in said.out
        assert "Commit those edits first, or apply to your working tree" in said.out
    assert git(repo, "branch", "--list", "agent/result") == ""
    onto_tree = cli("runs", "apply", run8, "--check")
    assert onto_tree.code == 0 and "applies cleanly" in onto_tree.out


def test_a_finished_run_says_where_its_result_is_and_how_to_take_it(
        cli, repo: Path, tmp_path: Path) -> None:
    ran = cli("run", str(the_example_on(repo, tmp_path)))
    assert ran.code == 0
    run8 = orjson.loads(cli("runs", "list", "--json").out)[0]["id"][:8]
    told = ran.err.splitlines()
    assert f"result: branch canvas/{run8}/orchestrator (node orchestrator) in {repo}, " \
           f"{len(IMPLEMENTED)} files changed" in told
    [apply_line] = [line for line in told if "agent-canvas runs apply" in line]
    # the command it names works as printed (with the run's data folder)
    words = apply_line.split("agent-canvas ", 1)[1].split(" [", 1)[0].split()
    assert words[-2:] == ["--data-dir", str(tmp_path / "data")]
    assert main([*words, "--check"]) == 0


def test_a_run_whose_result_changes_nothing_says_so(cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    assert cli("runs", "apply", orjson.loads(cli("runs", "list", "--json").out)[0]["id"][:8]
               ).code == 0  # its files are now in the user's tree, so in the next base
    again = cli("run", str(the_example_on(repo, tmp_path)))
    assert again.code == 0
    assert "no change against the run's base" in again.err
    assert "runs apply" not in again.err


def test_an_apply_while_the_run_is_being_applied_elsewhere_is_refused_at_once(
        cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    run_id = orjson.loads(cli("runs", "list", "--json").out)[0]["id"]
    status = git(repo, "status", "--porcelain")
    with applying_elsewhere(tmp_path / "data" / "runs" / run_id):  # the app, say
        for args in ((), ("--branch", "agent/result")):
            said = cli("runs", "apply", run_id[:8], *args)
            assert said.code == 2 and said.out == ""
            assert said.err == (f"error: another apply of run {run_id[:8]} is under way (in "
                                "the app, a service or a terminal): let that one finish, "
                                "then apply again\n")
        assert git(repo, "status", "--porcelain") == status
        assert git(repo, "branch", "--list", "agent/result") == ""
        assert cli("runs", "apply", run_id[:8], "--check").code == 0
    assert cli("runs", "apply", run_id[:8]).code == 0


def test_run_workspace_puts_an_example_on_the_user_s_repository_node_by_node(
        cli, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    example = examples_dir() / "orchestrator-two-implementers.flow.yaml"
    status = git(repo, "status", "--porcelain")
    monkeypatch.chdir(tmp_path)  # the folder is named as a user types it: from here
    ran = cli("run", str(example), "--workspace", "project")
    assert ran.code == 0, ran.err
    [listed] = orjson.loads(cli("runs", "list", "--json").out)
    run8 = listed["id"][:8]
    shown = orjson.loads(cli("runs", "result", run8, "--json").out)
    assert [f["path"] for f in shown["files"]] == IMPLEMENTED
    # each implementer worked in its own worktree of the user's repository
    base = git(repo, "rev-parse", f"canvas/{run8}/impl-text~1")
    for node, mine in (("impl-text", "text_utils.py"), ("impl-num", "num_utils.py")):
        changed = git(repo, "diff", "--name-only", base, f"canvas/{run8}/{node}").split()
        assert changed == sorted([mine, f"test_{mine}"])
    assert git(repo, "status", "--porcelain") == status
    assert (repo / "lib.py").read_text().endswith("def wip(): ...\n")


@pytest.mark.parametrize(("named", "says"), [("nowhere", "does not exist"),
                                             ("project/lib.py", "is not a folder")])
def test_run_workspace_that_is_no_folder_exits_2_before_anything_runs(
        cli, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str,
        says: str) -> None:
    monkeypatch.chdir(tmp_path)
    ran = cli("run", str(examples_dir() / "single-agent.flow.yaml"), "--workspace", named)
    assert ran.code == 2
    assert ran.err.startswith(f"--workspace {named}: {tmp_path / named} {says}")
    assert not (tmp_path / "data" / "runs").exists() or not any(
        (tmp_path / "data" / "runs").iterdir())


@pytest.mark.parametrize("option", [["--workspace", "project"], ["--executor", "local"]])
def test_a_missing_subflow_is_bad_input_with_an_override_too(
        cli, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        option: list[str]) -> None:
    flow = tmp_path / "top.flow.yaml"  # its subflow's file stayed behind
    flow.write_text((examples_dir() / "subflow-review.flow.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    ran = cli("run", str(flow), *option)
    assert ran.code == 2
    assert "subflow file 'review.flow.yaml' not found" in ran.err
    assert "invalid workflow (1 error)" in ran.err


def test_an_apply_to_the_working_tree_is_undone_and_the_user_s_work_survives(
        cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    run8 = orjson.loads(cli("runs", "list", "--json").out)[0]["id"][:8]
    status = git(repo, "status", "--porcelain")
    nothing = cli("runs", "apply", run8, "--undo")
    assert nothing.code == 1 and "no application to your working tree to undo" in nothing.out
    assert cli("runs", "apply", run8).code == 0
    (repo / "text_utils.py").write_text("# rewritten by me\n")
    collides = cli("runs", "apply", run8, "--undo")
    assert collides.code == 1 and "collides: text_utils.py" in collides.out
    assert (repo / "num_utils.py").is_file()  # nothing changed
    refused = cli("runs", "apply", run8, "--undo", "--file", "num_utils.py")
    assert refused.code == 2 and "--undo takes back the latest apply" in refused.err
    (repo / "text_utils.py").unlink()
    (repo / "later.txt").write_text("mine\n")
    checked = cli("runs", "apply", run8, "--undo", "--check")
    assert checked.code == 0 and "would change: num_utils.py" in checked.out
    undone = cli("runs", "apply", run8, "--undo")
    assert undone.code == 0 and "undid the application" in undone.out, undone
    assert (repo / "later.txt").read_text() == "mine\n"
    (repo / "later.txt").unlink()
    assert git(repo, "status", "--porcelain") == status
    assert (repo / "lib.py").read_text().endswith("def wip(): ...\n")
    assert "(undone at " in cli("runs", "result", run8).out


def test_an_apply_is_undone_after_the_result_branch_was_deleted_by_hand(
        cli, repo: Path, tmp_path: Path) -> None:
    assert cli("run", str(the_example_on(repo, tmp_path))).code == 0
    run8 = orjson.loads(cli("runs", "list", "--json").out)[0]["id"][:8]
    status = git(repo, "status", "--porcelain")
    branch = orjson.loads(cli("runs", "result", run8, "--json").out)["branch"]
    assert cli("runs", "apply", run8).code == 0
    git(repo, "update-ref", "-d", f"refs/heads/{branch}")  # git branch -D refuses: a worktree
    gone = cli("runs", "result", run8)
    assert gone.code != 0 and f"branch {branch} is gone" in gone.err
    assert f"runs apply {run8} --undo` still puts back" in gone.err
    undone = cli("runs", "apply", run8, "--undo")
    assert undone.code == 0 and "undid the application" in undone.out, undone
    assert git(repo, "status", "--porcelain") == status
    assert not (repo / "num_utils.py").exists()
