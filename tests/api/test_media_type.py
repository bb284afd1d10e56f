"""A body is read as JSON only when its Content-Type says JSON; else 415 naming the header
and the fix (desktop/api/media_type.py)."""

from __future__ import annotations

import pytest
from api_helpers import Api
from hypothesis import given
from hypothesis import strategies as st

from desktop.api.api_error import ApiError
from desktop.api.media_type import check_json_body

BODY = b'{"workflowPath": "no-such.flow.yaml"}'
"""Read as JSON, it names a missing file: 422 workflow_not_found, and no run starts."""


def refusal(error: dict) -> None:
    assert error["code"] == "unsupported_media_type"
    assert error["field"] == "Content-Type"
    assert "send Content-Type: application/json" in error["message"]


@pytest.mark.parametrize("content_type", [
    "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
    "application/octet-stream", "application/json-seq", "application/+json", "json",
    "application/json; charset=latin-1", "application/json; charset=utf-16", None])
async def test_a_body_not_declared_json_is_415_and_not_read(
        api: Api, content_type: str | None) -> None:
    if content_type is None:  # else aiohttp's client adds application/octet-stream
        response = await api.client.post("/api/runs", data=BODY,
                                         skip_auto_headers=("Content-Type",))
    else:
        response = await api.client.post("/api/runs", data=BODY,
                                         headers={"Content-Type": content_type})
    assert response.status == 415, await response.text()
    refusal((await response.json())["error"])
    assert api.service.hosted == {}


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "Application/JSON;Charset=UTF-8",
    'application/json; charset="utf-8"', "application/vnd.agent-canvas+json",
    "application/merge-patch+json; charset=utf-8"])
async def test_json_media_types_with_parameters_are_read(api: Api, content_type: str) -> None:
    response = await api.client.post("/api/runs", data=BODY,
                                     headers={"Content-Type": content_type})
    assert response.status == 422, await response.text()
    assert (await response.json())["error"]["code"] == "workflow_not_found"


async def test_curl_d_on_a_patch_or_a_command_is_415(api: Api) -> None:
    """``curl -d`` sends application/x-www-form-urlencoded, on every method."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for method, path, body in (("PATCH", "/api/runs/x", b'{"status": "paused"}'),
                               ("POST", "/api/approvals/x/resolve", b'{"status": "approved"}')):
        response = await api.client.request(method, path, data=body, headers=form)
        assert response.status == 415, (method, path, await response.text())
        refusal((await response.json())["error"])


async def test_an_empty_body_needs_no_content_type(api: Api) -> None:
    response = await api.client.post("/api/runs/no-such-run/step",
                                     skip_auto_headers=("Content-Type",))
    assert response.status == 404, await response.text()  # read (as {}), not refused


async def test_the_openapi_document_states_415_for_every_body(api: Api) -> None:
    doc = await api.json("GET", "/api/openapi.json", 200)
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            assert ("415" in operation["responses"]) == ("requestBody" in operation), \
                (method, path)


names = st.from_regex(r"[a-z0-9][a-z0-9.-]{0,20}", fullmatch=True)
spaces = st.sampled_from(["", " ", "  "])


@given(name=names, before=spaces, after=spaces, upper=st.booleans(),
       charset=st.sampled_from([None, "utf-8", "UTF-8", "utf8", '"utf-8"']),
       other=st.sampled_from(["", "; profile=x", "; q=1"]))
def test_json_and_structured_json_types_pass_with_any_spacing_case_or_utf8_charset(
        name: str, before: str, after: str, upper: bool, charset: str | None,
        other: str) -> None:
    for media_type in ("application/json", f"application/{name}+json"):
        value = media_type.upper() if upper else media_type
        value += other + (f";{before}charset{after}={charset}" if charset else "")
        check_json_body(f"{before}{value}{after}", b"{}")  # does not raise


@given(kind=names, subtype=names)
def test_other_types_are_refused_naming_the_header(kind: str, subtype: str) -> None:
    if kind == "application" and (subtype == "json" or subtype.endswith("+json")):
        return
    with pytest.raises(ApiError) as refused:
        check_json_body(f"{kind}/{subtype}", b"{}")
    assert refused.value.status == 415 and refused.value.field == "Content-Type"
    check_json_body(f"{kind}/{subtype}", b"")  # an empty body is never refused
