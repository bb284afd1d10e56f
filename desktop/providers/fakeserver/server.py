"""A local model server that speaks four vendor wires and plays scripted replies.

Routes (each also under ``/k/<key>/`` to pick a script key, e.g. one per node):

- ``POST /v1/messages`` Anthropic Messages (Claude Code)
- ``POST /v1/responses`` OpenAI Responses (Codex)
- ``POST /v1beta/models/<model>:streamGenerateContent`` and ``:generateContent`` (Gemini CLI)
- ``POST /v1/chat/completions`` and ``/chat/completions`` OpenAI-compatible chat (REST backends)

Every request is logged (path, key, wire, model, a summary of the body; header
values are never kept). Requests that only count tokens or warm up are answered
without consuming a scripted reply.
"""

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from desktop.providers.fakeserver import wires
from desktop.providers.fakeserver.script import DEFAULT_KEY, Script

Builder = Callable[[dict[str, Any], str, int], list[tuple[str | None, Any]]]
_BUILDERS: dict[str, Builder] = {"anthropic": wires.anthropic, "responses": wires.responses,
                                 "gemini": wires.gemini, "chat": wires.chat}


@dataclass
class Request:
    """One logged model request."""

    wire: str
    key: str
    path: str
    model: str
    stream: bool
    body: dict[str, Any]
    reply: dict[str, Any] | None = None
    headers: list[str] = field(default_factory=list)


class FakeModelServer:
    """``async with FakeModelServer(script) as server:`` serves on 127.0.0.1:``server.port``."""

    def __init__(self, script: Script | None = None, *, port: int = 0,
                 log_path: Path | None = None, default_chunk: int = 16):
        self.script = script or Script()
        self.port = port
        self.log_path = log_path
        self.default_chunk = default_chunk
        self.requests: list[Request] = []
        self._runner: web.AppRunner | None = None
        self._hung: list[asyncio.Event] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, key: str | None = None) -> str:
        """The server's address, under the ``/k/<key>`` prefix when a key is given."""
        return f"{self.url}/k/{key}" if key else self.url

    async def start(self) -> "FakeModelServer":
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        sockets = site._server.sockets if site._server else []  # type: ignore[union-attr]
        if sockets:
            self.port = sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        for event in self._hung:
            event.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> "FakeModelServer":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def model_requests(self, key: str | None = None) -> list[Request]:
        """Requests that consumed a scripted reply (optionally for one key)."""
        return [r for r in self.requests
                if r.reply is not None and (key is None or r.key == key)]

    # --- routing -------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        key = DEFAULT_KEY
        if path.startswith("/k/"):
            _, _, rest = path.partition("/k/")
            key, _, tail = rest.partition("/")
            path = "/" + tail
        if request.method != "POST":
            return web.json_response({"data": [], "object": "list"})
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = {}
        body = body if isinstance(body, dict) else {}
        wire, model, stream = self._classify(path, body)
        entry = Request(wire=wire or "unknown", key=key, path=path, model=model,
                        stream=stream, body=_summary(body),
                        headers=sorted(request.headers.keys()))
        self.requests.append(entry)
        if wire is None:
            return web.json_response({"error": {"message": f"no such route {path}"}},
                                     status=404)
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            self._log(entry)
            return web.json_response({"input_tokens": 10, "totalTokens": 10})
        reply = self.script.next_reply(wired_key(self.script, key, wire))
        entry.reply = reply
        self._log(entry)
        if "error" in reply:
            err = reply["error"]
            return web.json_response(
                wires.error_body(wire, int(err["status"]), str(err.get("message", "error"))),
                status=int(err["status"]))
        if reply.get("hang"):
            return await self._hang(request)
        size = int(reply.get("chunk") or self.default_chunk)
        events = _BUILDERS[wire](reply, model, size)
        if not stream:
            return web.json_response(_non_stream(wire, reply, model, events))
        return await self._stream(request, events, float(reply.get("delay") or 0))

    @staticmethod
    def _classify(path: str, body: dict[str, Any]) -> tuple[str | None, str, bool]:
        model = str(body.get("model") or "")
        if path.startswith("/v1/messages"):
            return "anthropic", model or "claude-fake", bool(body.get("stream"))
        if path.endswith("/responses"):
            return "responses", model or "gpt-fake", body.get("stream", True) is not False
        if path.endswith("/chat/completions"):
            return "chat", model or "chat-fake", bool(body.get("stream"))
        if "/models/" in path and ":" in path:
            name, _, method = path.rsplit("/", 1)[-1].partition(":")
            return "gemini", name, method == "streamGenerateContent"
        return None, model, False

    async def _stream(self, request: web.Request, events: list[tuple[str | None, Any]],
                      delay: float) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        try:
            for name, payload in events:
                data = payload if isinstance(payload, str) else json.dumps(payload)
                head = f"event: {name}\n" if name else ""
                await response.write(f"{head}data: {data}\n\n".encode())
                if delay:
                    await asyncio.sleep(delay)
            await response.write_eof()
        except (ConnectionResetError, asyncio.CancelledError):
            pass  # the agent went away mid-stream (stopped); nothing to finish
        return response

    async def _hang(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        released = asyncio.Event()
        self._hung.append(released)
        with contextlib.suppress(asyncio.CancelledError, ConnectionResetError):
            await released.wait()
        return response

    def _log(self, entry: Request) -> None:
        if self.log_path is None:
            return
        record = {"wire": entry.wire, "key": entry.key, "path": entry.path,
                  "model": entry.model, "stream": entry.stream, "reply": entry.reply,
                  "body": entry.body}
        with open(self.log_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, default=str) + "\n")


def wired_key(script: Script, key: str, wire: str) -> str:
    """``key:wire`` when the script has replies for it (a node whose best-of-N attempts
    run different agents, each on its own wire), else ``key``."""
    return f"{key}:{wire}" if f"{key}:{wire}" in script.replies else key


def _summary(body: dict[str, Any]) -> dict[str, Any]:
    """What a request asked, small enough to log: message roles, tool names, last input."""
    summary: dict[str, Any] = {}
    for name in ("messages", "input", "contents"):
        items = body.get(name)
        if isinstance(items, list):
            summary[name] = len(items)
            summary["last"] = json.dumps(items[-1], default=str)[:2000] if items else ""
    tools = body.get("tools")
    if isinstance(tools, list):
        names = []
        for tool in tools:
            if isinstance(tool, dict):
                names.append(tool.get("name") or (tool.get("function") or {}).get("name")
                             or ",".join(f.get("name", "") for f in
                                         tool.get("functionDeclarations", []) or []))
        summary["tools"] = names
    return summary


def _non_stream(wire: str, reply: dict[str, Any], model: str,
                events: list[tuple[str | None, Any]]) -> dict[str, Any]:
    """A whole (non-streaming) answer for wires whose clients sometimes ask for one."""
    text = wires.collect_text(reply)
    if wire == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        call = wires.tool_call(reply, "anthropic")
        if call:
            content.append({"type": "tool_use", "id": "toolu_fake_ns", "name": call[0],
                            "input": call[1]})
        return {"id": "msg_fake_ns", "type": "message", "role": "assistant", "model": model,
                "content": content or [{"type": "text", "text": ""}],
                "stop_reason": "tool_use" if call else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": max(len(text) // 4, 1)}}
    if wire == "gemini":
        parts = [p for _, chunk in events for p in chunk["candidates"][0]["content"]["parts"]]
        return {"candidates": [{"content": {"parts": parts, "role": "model"},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": events[-1][1].get("usageMetadata", {}), "modelVersion": model}
    if wire == "chat":
        return {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": max(len(text) // 4, 1),
                          "total_tokens": 10 + max(len(text) // 4, 1)}}
    return events[-1][1]["response"]
