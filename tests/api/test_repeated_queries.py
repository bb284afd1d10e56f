"""A query parameter given twice is a 422 naming it: ``?force=true&force=false`` on a
DELETE once deleted a live run on the strength of its first value, and ``?path=a&path=b``
showed one file's diff as if the other had not been asked for."""

from __future__ import annotations

from api_helpers import Api, slow

NO_RUN = "/api/runs/00000000-0000-4000-8000-000000000000"


async def test_each_query_parameter_given_twice_is_refused_naming_it(api: Api) -> None:
    for method, path, name in (
            ("DELETE", f"{NO_RUN}?force=true&force=false", "force"),
            ("DELETE", f"{NO_RUN}?force=true&force=true", "force"),
            ("GET", f"{NO_RUN}/result/diff?path=a.py&path=b.py", "path"),
            ("GET", f"{NO_RUN}/events?limit=1&limit=2", "limit"),
            ("GET", f"{NO_RUN}/events?after=1&after=1", "after"),
            ("GET", f"{NO_RUN}/fork-points?at=1&at=2", "at"),
            ("GET", f"{NO_RUN}/stream?after=0&after=5", "after")):
        refused = await api.json(method, path, 422)
        error = refused["error"]
        assert (error["code"], error["field"]) == ("invalid_query", name), (path, error)
        assert "give it once" in error["message"]


async def test_a_live_run_is_not_deleted_by_a_force_given_twice(api: Api) -> None:
    run_id = (await api.start(slow()))["id"]
    await api.json("DELETE", f"/api/runs/{run_id}?force=true&force=false", 422)
    assert run_id in api.service.hosted and (api.data / "runs" / run_id).is_dir()
    await api.json("DELETE", f"/api/runs/{run_id}?force=true", 200)
    assert not (api.data / "runs" / run_id).exists()
