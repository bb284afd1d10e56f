"""A run whose repository is gone, or is no longer a git repository: its result, an apply
and a fork say that, not that its branch was removed or its commits collected, and
deleting the run still takes its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

from api_helpers import Api
from test_result_api import finished_run, project


async def test_a_run_whose_repository_went_says_so_everywhere(
        api: Api, tmp_path: Path) -> None:
    repo = project(tmp_path)
    gone, plain = await finished_run(api, repo), await finished_run(api, repo)
    shutil.rmtree(repo / ".git")  # the folder stays; it is a repository no more
    for ask in (("GET", f"/api/runs/{plain}/result", None),
                ("POST", f"/api/runs/{plain}/apply", {"check": True})):
        refused = await api.json(*ask[:2], 409, ask[2])
        assert "no longer a git repository" in refused["error"]["message"], refused
    shutil.rmtree(repo)
    refused = await api.json("GET", f"/api/runs/{gone}/result", 409)
    assert "is gone" in refused["error"]["message"]
    for run_id in (gone, plain):
        last = (await api.json("GET", f"/api/runs/{run_id}", 200))["lastSeq"]
        for at in (1, last):  # the first point, and the run's end
            forked = await api.json("POST", f"/api/runs/{run_id}/fork", 409,
                                    {"at": at, "start": False})
            message = forked["error"]["message"]
            assert "gone or no longer a git repository" in message, message
            assert "collected" not in message
        await api.json("DELETE", f"/api/runs/{run_id}", 200)
        assert not (api.data / "runs" / run_id).exists()
