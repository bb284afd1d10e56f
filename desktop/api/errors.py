"""The service's error answers: one JSON shape ``{"error": {code, message, field?,
problems?}}``, from an :class:`ApiError` a handler raised, a validation error or a
refused engine command."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from pydantic import ValidationError

from desktop.api.api_error import ApiError
from desktop.contract.api import ErrorDetail, ErrorResponse
from desktop.graph.fields import is_schema_part
from desktop.runtime.control import CommandError, Conflict, Invalid, NotFound


def answer(exc: ApiError) -> web.Response:
    """The JSON answer to a request a handler refused with ``exc``."""
    return error_response(exc.status, exc.code, exc.message, exc.field, exc.problems or None)


def error_body(code: str, message: str, field: str | None = None,
               problems: list[str] | None = None) -> dict[str, Any]:
    detail = ErrorDetail(code=code, message=message, field=field, problems=problems)
    return ErrorResponse(error=detail).to_json_dict()


def error_response(status: int, code: str, message: str, field: str | None = None,
                   problems: list[str] | None = None) -> web.Response:
    return web.json_response(error_body(code, message, field, problems), status=status)


def internal_error() -> web.Response:
    """The 500 answer to a request the service failed on: no traceback, no detail."""
    return error_response(500, "internal_error",
                          "the service failed on this request; its log has the details")


def from_validation(exc: ValidationError, prefix: str = "") -> ApiError:
    """422 naming the first offending field (dotted, camelCase as sent)."""
    first = exc.errors()[0]
    loc = [str(part) for part in first.get("loc", ()) if not is_schema_part(part)]
    field = ".".join([prefix, *loc] if prefix else loc) or None
    if first.get("type") == "extra_forbidden":
        message = f"unknown field {field!r}; remove it (see GET /api/openapi.json)"
        code = "unknown_field"
    elif first.get("type") == "missing":
        message = f"missing field {field!r}"
        code = "missing_field"
    else:
        said = str(first.get("msg")).removeprefix("Value error, ")
        message = f"{field}: {said}" if field else said
        code = "invalid_field"
    return ApiError(422, code, message, field)


_COMMAND_STATUS: dict[type[CommandError], tuple[int, str]] = {
    NotFound: (404, "not_found"),
    Conflict: (409, "conflict"),
    Invalid: (422, "invalid_command"),
}


def from_command(exc: CommandError) -> ApiError:
    status, code = _COMMAND_STATUS.get(type(exc), (409, "conflict"))
    return ApiError(status, code, exc.message, exc.field)
