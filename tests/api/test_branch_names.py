"""Branch names for ``POST .../apply`` and ``POST .../pull-request``: a name git refuses,
one with a control character (a NUL once made the service fail with a 500), one that
clashes with a branch of the user's as file and folder, one git would read as another ref
(``refs/heads/main`` once made a branch ``refs/heads/refs/heads/main``), is a 422 naming
``branch`` and saying what to give instead; the user's repository is left as it was."""

from __future__ import annotations

from pathlib import Path

from api_helpers import Api
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_result_api import finished_run, git, project

_RUNS: dict[Path, tuple[Path, str]] = {}


async def a_result(api: Api, tmp_path: Path) -> tuple[Path, str]:
    """The user's repository (with a branch ``agent`` and a branch ``team/x`` of theirs,
    ``other`` checked out before ``main``, a tag ``v1`` and a remote's ``origin/main``)
    and a finished run on it; made once per service, however many examples use it."""
    if api.data not in _RUNS:
        repo = project(tmp_path)
        for name in ("agent", "team/x", "other"):
            git(repo, "branch", name)
        git(repo, "tag", "v1")
        git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
        git(repo, "checkout", "-q", "other")
        git(repo, "checkout", "-q", "main")
        _RUNS[api.data] = repo, await finished_run(api, repo)
    return _RUNS[api.data]


def looks(repo: Path) -> tuple[str, str, bool]:
    """The user's uncommitted work, their branches, and whether git's index is locked."""
    return (git(repo, "status", "--porcelain"),
            git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"),
            (repo / ".git" / "index.lock").exists())


async def test_names_git_refuses_or_that_clash_are_422s_saying_why_and_what_instead(
        api: Api, tmp_path: Path) -> None:
    repo, run_id = await a_result(api, tmp_path)
    before = looks(repo)
    assert before[0] == "M lib.txt\n?? notes.txt"  # git() strips the first blank
    for name, says in (("a\x00b", "control character"), ("a\nb", "control character"),
                       ("tab\there", "control character"), ("@{-1}", "not a branch name"),
                       ("-x", "not a branch name"), ("HEAD", "not a branch name"),
                       ("main", "already exists"), ("agent/result", "branch agent exists"),
                       ("team", "branch team/x exists"),
                       ("refs/heads/main", "refs/heads/main exists"),
                       ("refs/heads/new", "would be refs/heads/refs/heads/new"),
                       ("heads/main", "refs/heads/main exists"), ("v1", "refs/tags/v1 exists"),
                       ("origin/main", "refs/remotes/origin/main exists"),
                       ("ORIG_HEAD", "git keeps for itself")):
        refused = await api.json("POST", f"/api/runs/{run_id}/apply", 422, {"branch": name})
        error = refused["error"]
        assert (error["code"], error["field"]) == ("invalid_branch", "branch"), error
        assert says in error["message"], error
        assert any(fix in error["message"] for fix in ("try e.g.", "choose another name")), error
    assert looks(repo) == before
    assert "refs/heads/refs/heads/main" not in git(repo, "for-each-ref", "--format=%(refname)")
    for beside in ("team/y", "agent-x", "someone/team", "v1-result", "origin-main"):
        checked = await api.json("POST", f"/api/runs/{run_id}/apply", 200,
                                 {"branch": beside, "check": True})
        assert checked["branch"] == beside
    made = await api.json("POST", f"/api/runs/{run_id}/apply", 200,
                          {"branch": "agent-result/one"})
    assert made["applied"] and git(repo, "rev-parse", "agent-result/one") == made["commit"]


async def test_a_pull_request_of_a_name_with_a_control_character_or_a_nul_title_is_a_422(
        api: Api, tmp_path: Path) -> None:
    _repo, run_id = await a_result(api, tmp_path)
    for body, field in (({"branch": "a\x00b"}, "branch"), ({"branch": "a\nb"}, "branch"),
                        ({"branch": "agent", "title": "a\x00b"}, "title")):
        refused = await api.json("POST", f"/api/runs/{run_id}/pull-request", 422, body)
        assert refused["error"]["field"] == field, refused


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=30))
@example(name="\x00")  # once a 500
@example(name="x/\x00")
async def test_any_text_as_a_branch_is_checked_or_refused_naming_branch_never_a_500(
        api: Api, tmp_path: Path, name: str) -> None:
    repo, run_id = await a_result(api, tmp_path)
    before = looks(repo)
    answer = await api.client.post(f"/api/runs/{run_id}/apply",
                                   json={"branch": name, "check": True})
    body = await answer.json()
    assert answer.status in (200, 422), (name, answer.status, body)
    if answer.status == 422:
        assert body["error"]["field"] == "branch", (name, body)
    else:
        assert body["applied"] is False and body["branch"] == name
    assert looks(repo) == before
