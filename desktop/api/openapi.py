"""The OpenAPI 3.1 document of the service, built from the route table and pydantic models."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from desktop import __version__
from desktop.api.routes import STREAM_DOC, Route
from desktop.contract.api import ErrorResponse
from desktop.graph.document import WorkflowDocument

_REF = "#/components/schemas/{model}"
_SEQ = {"type": "integer", "minimum": 1, "maximum": 2**53 - 1}
_QUERY: dict[str, tuple[dict[str, Any], str, bool]] = {
    "limit": ({"type": "integer", "minimum": 1, "maximum": 1000},
              "events per page (default 100)", False),
    "before": (_SEQ, "page backwards from this seq (exclusive); newest page when absent",
               False),
    "after": ({**_SEQ, "minimum": 0}, "page forwards from this seq (exclusive)", False),
    "force": ({"type": "string", "enum": ["true", "false", "1", "0", "yes", "no"]},
              "delete a live run too (it is stopped first)", False),
    "at": (_SEQ, "a seq: also say which fork point it snaps to", False),
    "path": ({"type": "string", "minLength": 1, "maxLength": 512},
             "a file the run changed, as the result lists it", True),
}
_REASONS = {400: "invalid JSON, or a request line or header the HTTP parser refuses",
            401: "missing or wrong token", 403: "Host, Origin or path not allowed",
            404: "unknown run, node, edge or approval", 409: "conflict with the run's state",
            408: "the body did not arrive in full in time (the connection is closed)",
            413: "body too large",
            415: "the body is not declared JSON: send Content-Type: application/json",
            422: "invalid field", 500: "service error",
            503: "the service holds as many connections as it serves at once (sent as the "
                 "connection opens, before the request is read); try again in a moment"}


def document(routes: tuple[Route, ...]) -> dict[str, Any]:
    """The whole OpenAPI 3.1 document."""
    models: list[type[BaseModel]] = [ErrorResponse, WorkflowDocument]
    for route in routes:
        for model in (route.body, route.response):
            if model is not None and model not in models:
                models.append(model)
    pairs = [(model, "validation") for model in models]
    keys, schema = models_json_schema(pairs, ref_template=_REF)
    refs = {model: keys[(model, "validation")]["$ref"] for model in models}
    defs = schema.get("$defs", {})
    # CreateRun takes the document as a plain object (the graph's own validation names
    # each problem); its schema is the document's
    document_ref = {"$ref": refs[WorkflowDocument]}
    defs["CreateRun"]["properties"]["workflow"] = {
        "anyOf": [document_ref, {"type": "null"}], "default": None,
        "description": "a workflow document (its graph rules, such as unique node ids and "
                       "edges between existing nodes, are checked too: 422 naming each)"}
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(_path(route.path), {})[route.method.lower()] = _operation(route, refs)
    paths[_path("/api/runs/{run_id}/stream")] = {"get": STREAM_DOC}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Agent Canvas local service", "version": __version__,
                 "description": "The engine's REST API; see also the WebSocket stream."},
        "paths": paths,
        "components": {
            "schemas": defs,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


def _path(path: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: "{" + _camel(m.group(1)) + "}", path)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _operation(route: Route, refs: dict[type[BaseModel], dict[str, str] | str]) -> dict:
    op: dict[str, Any] = {"summary": route.summary, "operationId": route.handler.__name__}
    params = [{"name": _camel(name), "in": "path", "required": True,
               "schema": {"type": "string"}} for name in re.findall(r"\{(\w+)\}", route.path)]
    params += [{"name": name, "in": "query", "required": _QUERY[name][2],
                "schema": _QUERY[name][0], "description": _QUERY[name][1]}
               for name in route.query]
    if route.etag:
        params.append({"name": "If-None-Match", "in": "header", "required": False,
                       "schema": {"type": "string"},
                       "description": "the ETag of a copy the client holds: 304 while it "
                                      "is current"})
    if params:
        op["parameters"] = params
    if route.body is not None:
        op["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": {"$ref": refs[route.body]}}}}
    ok: dict[str, Any] = {"description": "success"}
    if route.response is not None:
        ok["content"] = {"application/json": {"schema": {"$ref": refs[route.response]}}}
    error = {"content": {"application/json": {"schema": {"$ref": refs[ErrorResponse]}}}}
    responses: dict[str, Any] = {str(route.status): ok}
    if route.etag:
        ok["headers"] = {"ETag": {"schema": {"type": "string"},
                                  "description": "changes whenever the answer does"}}
        responses["304"] = {"description": "not modified: the ETag is one sent in "
                                           "If-None-Match", "headers": ok["headers"]}
    # 408: a body that does not arrive in time; 415: one not sent as JSON; 503: a
    # connection over the cap
    bodied = (408, 415) if route.body is not None else ()
    for status in sorted({400, 401, 403, 500, 503, *bodied, *route.errors}):
        responses[str(status)] = {"description": _REASONS.get(status, "error"), **error}
    op["responses"] = responses
    return op
