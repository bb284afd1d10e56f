"""Which request bodies the service reads as JSON: those whose Content-Type says JSON.

A body is taken as JSON only when it is declared so: ``application/json`` or a
structured ``application/*+json`` type (RFC 6839), with parameters allowed, a
``charset`` among them only if it is UTF-8 (RFC 8259 8.1: JSON on the wire is UTF-8).
Anything else (``text/plain``; ``application/x-www-form-urlencoded``, which ``curl -d``
sends; a form; no Content-Type at all) is refused with 415 naming the header and the fix,
rather than guessed at: a client that sends the wrong type has usually sent the wrong
thing too, and a body with no type is, by RFC 9110 8.3, arbitrary bytes. An empty body
needs no type: there is nothing to interpret (the API's clients send none with a
command whose fields are all optional).
"""

from __future__ import annotations

from desktop.api.api_error import ApiError

HEADER = "Content-Type"
FIX = ("send Content-Type: application/json (with curl: "
       "-H 'Content-Type: application/json')")
_UTF8 = ("utf-8", "utf8")


def parse_media_type(value: str) -> tuple[str, dict[str, str]]:
    """``type/subtype`` (lowercase) and the parameters (names lowercase, values unquoted)
    of a Content-Type header value."""
    head, *parts = value.split(";")
    params: dict[str, str] = {}
    for part in parts:
        name, eq, raw = part.partition("=")
        if eq:
            params[name.strip().lower()] = raw.strip().strip('"')
    return head.strip().lower(), params


def is_json(media_type: str) -> bool:
    """``application/json`` or a structured syntax suffix ``application/<name>+json``."""
    kind, _, subtype = media_type.partition("/")
    return kind == "application" and (
        subtype == "json" or (subtype.endswith("+json") and len(subtype) > len("+json")))


def check_json_body(content_type: str | None, body: bytes) -> None:
    """Refuse (415) a non-empty ``body`` whose ``content_type`` header does not say JSON."""
    if not body:
        return
    if content_type is None:
        raise ApiError(415, "unsupported_media_type",
                       f"the body has no {HEADER} header, so it is not read as JSON; {FIX}",
                       HEADER)
    media_type, params = parse_media_type(content_type)
    if not is_json(media_type):
        raise ApiError(415, "unsupported_media_type",
                       f"the body was sent as {HEADER}: {content_type[:100]!r}; the service "
                       f"reads JSON only: {FIX}", HEADER)
    charset = params.get("charset")
    if charset is not None and charset.lower() not in _UTF8:
        raise ApiError(415, "unsupported_media_type",
                       f"the body was sent in charset {charset[:40]!r}; JSON is read as UTF-8 "
                       f"only: encode it as UTF-8 and send Content-Type: application/json "
                       "(or charset=utf-8)", HEADER)
