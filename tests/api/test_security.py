"""Bad input: every request is refused with its JSON error, and the service keeps serving."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from api_helpers import TOKEN, Api, workflow

from desktop.contract.api import MAX_BODY_BYTES

JSON = {"Content-Type": "application/json"}


def error_of(body: dict) -> dict:
    assert set(body) == {"error"}
    assert {"code", "message"} <= set(body["error"])
    return body["error"]


@pytest.mark.parametrize("headers", [{"Authorization": ""}, {"Authorization": "Bearer nope"},
                                     {"Authorization": "Basic dGVzdA=="},
                                     {"Authorization": "Bearer test-token-0123456789x"}])
async def test_missing_or_wrong_token_is_401(api: Api, headers: dict) -> None:
    for method, path in (("GET", "/api/runs"), ("GET", "/api/health"),
                         ("POST", "/api/runs"), ("GET", "/api/openapi.json"),
                         ("GET", "/api/no-such-thing")):
        body = await api.json(method, path, 401, headers=headers)
        assert error_of(body)["code"] == "unauthorized"
    await api.healthy()


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1",
                                    "https://localhost"])
async def test_foreign_or_null_origin_is_403(api: Api, origin: str) -> None:
    body = await api.json("GET", "/api/runs", 403, headers={"Origin": origin})
    assert error_of(body)["code"] == "origin_not_allowed"
    await api.healthy()


async def test_own_origin_is_allowed(api: Api) -> None:
    port = api.client.port
    for name in ("127.0.0.1", "localhost"):
        await api.json("GET", "/api/runs", 200, headers={"Origin": f"http://{name}:{port}"})


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1",
                                  "127.0.0.1", ""])
async def test_foreign_host_is_403(api: Api, host: str) -> None:
    host = host.format(port=api.client.port)
    body = await api.json("GET", "/api/runs", 403, headers={"Host": host})
    assert error_of(body)["code"] == "host_not_allowed"
    await api.healthy()


async def test_localhost_host_names_are_allowed(api: Api) -> None:
    for name in ("localhost", "127.0.0.1", "LOCALHOST"):
        await api.json("GET", "/api/health", 200, headers={"Host": f"{name}:{api.client.port}"})


async def _raw_request(api: Api, head: bytes, body_part: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", api.client.port)
    try:
        writer.write(head + body_part)
        await writer.drain()
        return await asyncio.wait_for(reader.read(65536), 20)
    finally:
        writer.close()


async def test_50mb_body_is_413_before_it_is_read(api: Api) -> None:
    size = 50 * 1024 * 1024
    head = (f"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1:{api.client.port}\r\n"
            f"Authorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n").encode()
    answer = await _raw_request(api, head, b"{" + b" " * 1000)  # the rest is never sent
    status_line, _, rest = answer.partition(b"\r\n")
    assert b" 413 " in status_line
    assert b'"body_too_large"' in rest
    await api.healthy()


async def test_oversized_chunked_body_is_413(api: Api) -> None:
    big = b'{"workflowPath": "' + b"x" * (MAX_BODY_BYTES + 10) + b'"}'
    response = await api.client.post("/api/runs", data=_chunks(big))
    assert response.status == 413
    assert error_of(await response.json())["code"] == "body_too_large"
    await api.healthy()


async def _chunks(data: bytes):
    for start in range(0, len(data), 65536):
        yield data[start:start + 65536]


@pytest.mark.parametrize("raw", [b"{", b"not json", b'{"workflowPath": "a",}', b"\xff\xfe",
                                 b"[" * 5000 + b"]" * 5000,
                                 b'{"workflow": ' + b"[" * 200 + b"]" * 200 + b"}"])
async def test_invalid_json_is_400(api: Api, raw: bytes) -> None:
    response = await api.client.post("/api/runs", data=raw, headers=JSON)
    assert response.status == 400, await response.text()
    assert error_of(await response.json())["code"] == "invalid_json"
    await api.healthy()


async def test_a_body_that_is_not_an_object_is_422(api: Api) -> None:
    for raw in (b"[]", b"3", b'"text"', b"null"):
        response = await api.client.post("/api/runs", data=raw, headers=JSON)
        assert response.status == 422
        assert error_of(await response.json())["code"] == "invalid_body"


async def test_unknown_field_is_422_naming_it(api: Api) -> None:
    body = await api.json("POST", "/api/runs", 422,
                          {"workflowPath": "x.flow.yaml", "colour": "red"})
    error = error_of(body)
    assert (error["code"], error["field"]) == ("unknown_field", "colour")
    assert "colour" in error["message"]
    body = await api.json("POST", "/api/runs", 422, {"workflow_path": "x.flow.yaml"})
    assert error_of(body)["field"] == "workflow_path"  # snake_case is not the wire name


async def test_wrong_type_is_422_naming_the_field(api: Api) -> None:
    body = await api.json("POST", "/api/runs", 422, {"workflowPath": 3})
    assert error_of(body)["field"] == "workflowPath"
    run_id = (await api.start(workflow({"a": {"script": [{"sleep": 30}]}})))["id"]
    body = await api.json("PATCH", f"/api/runs/{run_id}", 422, {"status": "flying"})
    assert error_of(body)["field"] == "status"
    body = await api.json("POST", f"/api/runs/{run_id}/chat", 422, {"nodeId": "a"})
    assert error_of(body)["field"] == "message"


async def test_invalid_inline_workflow_is_422_with_its_problems(api: Api) -> None:
    doc = workflow({"a": {"script": [{"say": "hi"}]}},
                   edges=[{"from": "a", "to": "ghost", "type": "handoff"}])
    error = error_of(await api.json("POST", "/api/runs", 422, {"workflow": doc}))
    assert error["code"] == "invalid_workflow"
    assert any("ghost" in problem for problem in error["problems"])
    error = error_of(await api.json("POST", "/api/runs", 422, {"workflow": {"nodes": 3}}))
    assert error["field"].startswith("workflow")


async def test_nonexistent_run_is_404(api: Api) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    for method, path, body in (
            ("GET", f"/api/runs/{missing}", None),
            ("PATCH", f"/api/runs/{missing}", {"status": "running"}),
            ("DELETE", f"/api/runs/{missing}", None),
            ("GET", f"/api/runs/{missing}/events", None),
            ("POST", f"/api/runs/{missing}/chat", {"nodeId": "a", "message": "hi"}),
            ("GET", "/api/runs/not-a-uuid", None),
            ("GET", "/api/runs/%2e%2e", None)):
        error = error_of(await api.json(method, path, 404, body))
        assert error["code"] in ("run_not_found", "not_found")
    await api.healthy()


# --- workflow paths ----------------------------------------------------------------------


async def test_workflow_outside_the_allowed_folders_is_403(api: Api, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "x.flow.yaml"
    outside.parent.mkdir()
    outside.write_text("name: x\n")
    for raw in (str(outside), "../elsewhere/x.flow.yaml", "/etc/passwd",
                str(api.flows / ".." / "elsewhere" / "x.flow.yaml"), "/nonexistent/x.yaml"):
        error = error_of(await api.json("POST", "/api/runs", 403, {"workflowPath": raw}))
        assert (error["code"], error["field"]) == ("path_not_allowed", "workflowPath")
    assert not (api.data / "runs").exists() or not any((api.data / "runs").iterdir())
    await api.healthy()


async def test_symlink_escapes_are_403(api: Api, tmp_path: Path) -> None:
    secret = tmp_path / "secret.flow.yaml"
    secret.write_text("name: secret\n")
    (api.flows / "link.flow.yaml").symlink_to(secret)
    (api.flows / "dirlink").symlink_to(tmp_path)
    (api.flows / "loop").symlink_to(api.flows / "loop")
    for raw in ("link.flow.yaml", "dirlink/secret.flow.yaml", "loop/x.yaml"):
        error = error_of(await api.json("POST", "/api/runs", 403, {"workflowPath": raw}))
        assert error["code"] == "path_not_allowed"


async def test_workflow_inside_a_root_runs_and_missing_one_is_422(api: Api) -> None:
    example = Path(__file__).resolve().parents[2] / "resources/examples/single-agent.flow.yaml"
    (api.flows / "mine.flow.yaml").write_bytes(example.read_bytes())
    created = await api.json("POST", "/api/runs", 201, {"workflowPath": "mine.flow.yaml"})
    assert (await api.finished(created["id"]))["status"] == "completed"
    error = error_of(await api.json("POST", "/api/runs", 422, {"workflowPath": "nope.yaml"}))
    assert error["code"] == "workflow_not_found"
    assert error["message"] == "nope.yaml: no such workflow file"
    (api.flows / "sub").mkdir()
    error = error_of(await api.json("POST", "/api/runs", 422, {"workflowPath": "sub"}))
    assert error["code"] == "workflow_not_found" and error["field"] == "workflowPath"
    assert "sub: is a folder, not a workflow file" in error["message"]


async def test_unexpected_failure_is_a_500_without_traceback(api: Api, monkeypatch) -> None:
    def broken(*_args, **_kwargs):
        raise RuntimeError("secret internals at /home/someone")

    monkeypatch.setattr(api.service, "run_list", broken)
    response = await api.client.get("/api/runs")
    text = await response.text()
    assert response.status == 500
    assert error_of(await response.json())["code"] == "internal_error"
    assert "secret internals" not in text and "Traceback" not in text
    await api.healthy()



@pytest.mark.parametrize("value", ["--1", "-", "1-", "+1", "1.0", " 1", "1e3", "٣", "0x1"])
@pytest.mark.parametrize("name", ["after", "limit", "before"])
async def test_a_query_integer_that_is_not_one_is_422_naming_it(api: Api, name: str,
                                                                value: str) -> None:
    run_id = (await api.start(workflow({"a": {"script": [{"say": "hi"}]}})))["id"]
    response = await api.client.get(f"/api/runs/{run_id}/events", params={name: value})
    assert response.status == 422, await response.text()
    error = error_of(await response.json())
    assert (error["code"], error["field"]) == ("invalid_query", name)
    await api.healthy()


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_a_body_that_is_not_encoded_as_it_says_is_400(api: Api, encoding: str) -> None:
    body = b'{"workflow": {}}'
    response = await api.client.post("/api/runs", data=body,
                                      headers={"Content-Encoding": encoding,
                                               "Content-Type": "application/json"})
    assert response.status == 400, await response.text()
    error = error_of(await response.json())
    assert error["code"] == "invalid_body" and encoding in error["message"]
    assert api.service.hosted == {}
    await api.healthy()


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "Bearer  "])
async def test_the_auth_scheme_is_case_insensitive(api: Api, scheme: str) -> None:
    response = await api.client.get("/api/runs",
                                    headers={"Authorization": f"{scheme} {TOKEN}"})
    assert response.status == 200, await response.text()


@pytest.mark.parametrize(("body", "message", "field"), [
    ({}, "give workflowPath, workflow, or both", None),
    ({"workflow": workflow({"a": {"script": "boom"}})}, None, "workflow.nodeConfigs.a.script"),
])
async def test_a_422_speaks_of_the_request_not_of_the_validator(
        api: Api, body: dict, message: str | None, field: str | None) -> None:
    response = await api.client.post("/api/runs", json=body)
    assert response.status == 422, await response.text()
    error = error_of(await response.json())
    assert "Value error" not in error["message"] and "[" not in (error.get("field") or "")
    assert error.get("field") == field
    if message is not None:
        assert error["message"] == message
