"""The ``files`` of ``POST .../apply``: an empty list is a 422 saying to list some or leave
it out (it was a 200 saying the result was already there); a long list of files the run
did not change gets a short answer naming the first few and how many more (a hundred
thousand once came back as a 1 MB message), and nothing in the repository changes."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
from api_helpers import Api
from test_result_api import finished_run, git, project


async def test_an_empty_files_list_is_refused_saying_what_to_give(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    before = git(repo, "status", "--porcelain")
    for body in ({"files": []}, {"files": [], "branch": "agent/none"}):
        refused = await api.json("POST", f"/api/runs/{run_id}/apply", 422, body)
        assert refused["error"]["field"] == "files"
        assert "leave files out" in refused["error"]["message"]
    assert git(repo, "status", "--porcelain") == before
    assert git(repo, "branch", "--list", "agent/none") == ""


async def test_a_huge_list_of_unknown_files_gets_a_short_answer_naming_some(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    run_id = await finished_run(api, repo)
    before = git(repo, "status", "--porcelain")
    files = ["left.txt"] + [f"missing/{i}.txt" for i in range(99_000)] + ["nope"] * 900
    body = io.BytesIO(orjson.dumps({"files": files}))  # a stream: aiohttp warns on big bytes
    answer = await api.client.post(f"/api/runs/{run_id}/apply", data=body,
                                   headers={"Content-Type": "application/json"})
    text = await answer.text()
    assert answer.status == 422 and len(text) < 2000, (answer.status, len(text))
    error = (await answer.json())["error"]
    assert error["field"] == "files"
    assert "missing/0.txt" in error["message"] and "and 98,991 more" in error["message"]
    assert "its files are: left.txt, right.txt" in error["message"]
    assert git(repo, "status", "--porcelain") == before
