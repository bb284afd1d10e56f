"""REST backends ``perplexity`` and ``xai``: OpenAI-compatible chat completions, streamed.

The API key comes from the agent's environment by name (``PERPLEXITY_API_KEY``,
``XAI_API_KEY``, per specs/agent-protocol-governance.md) and is only ever sent
in the Authorization header. The base URL can be moved with
``PERPLEXITY_BASE_URL`` / ``XAI_BASE_URL`` (the rehearsal and the tests point
it at the fake model server). No tools are offered, so nothing needs gating.
"""

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from desktop.disk.safe_json import loads as safe_loads
from desktop.providers.base import Provider, TurnOutcome, TurnRequest
from desktop.providers.parsers.common import as_dict, as_text, classify_error

MAX_ERROR_BODY = 10 * 1024 * 1024
ERROR_BODY_FILE = "http-error-body.txt"
"""An HTTP error's body, kept in the agent run folder (the event carries its first part)."""

BACKENDS = {
    "perplexity": ("https://api.perplexity.ai", "PERPLEXITY_API_KEY", "sonar"),
    "xai": ("https://api.x.ai/v1", "XAI_API_KEY", "grok-4"),
}


class RestProvider(Provider):
    """One chat-completions request per turn; text arrives as deltas."""

    can_gate = False

    def __init__(self, name: str, base_url: str | None = None):
        self.name = name
        default_url, self.key_name, self.default_model = BACKENDS[name]
        self.base_url = base_url or default_url
        self._outcome = TurnOutcome(exit_code=-1)
        self._session: aiohttp.ClientSession | None = None
        self._cancelled = False

    @property
    def outcome(self) -> TurnOutcome:
        return self._outcome

    async def cancel(self) -> None:
        self._cancelled = True
        if self._session is not None:
            await self._session.close()

    def url(self, request: TurnRequest) -> str:
        base = request.env.get(f"{self.name.upper()}_BASE_URL") or self.base_url
        return base.rstrip("/") + "/chat/completions"

    async def start(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        key = request.env.get(self.key_name, "")
        self._outcome = TurnOutcome(exit_code=1, commandline=f"POST {self.url(request)}")
        if not key:
            self._outcome.error = (f"authentication: {self.key_name} is not set; add it to "
                                   "the environment of agent-canvas")
            yield {"type": "agent.error", "fatal": True, "category": "authentication",
                   "message": self._outcome.error}
            return
        if str(request.node.permissions.cli_permissions_mode) == "gated":
            self._outcome.error = f"provider {self.name!r} cannot gate tool calls"
            yield {"type": "node.log", "stream": "stderr", "text": self._outcome.error}
            return
        body = {"model": request.config.model or self.default_model, "stream": True,
                "messages": [{"role": "user", "content": request.prompt}]}
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        texts: list[str] = []
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(
            total=request.config.limits.timeout_sec))
        try:
            async with self._session.post(self.url(request), json=body,
                                          headers=headers) as response:
                if response.status >= 400:
                    body = await _error_body(response, request.agent_run_dir)
                    event = self._error(_error_message(response.status, body["text"]),
                                        response.status)
                    event.update(body["fields"])
                    yield event
                    return
                async for event in self._stream(response, texts):
                    yield event
        except (aiohttp.ClientError, TimeoutError) as exc:
            if self._cancelled:
                self._outcome.error = "the agent was stopped"
                return
            yield self._error(f"{type(exc).__name__}: {exc}", None, "network")
            return
        finally:
            await self._session.close()
        text = "".join(texts)
        if text:
            yield {"type": "message.assistant.final", "text": text}
        self._outcome.final_text = text
        self._outcome.exit_code = 0

    async def _stream(self, response: aiohttp.ClientResponse,
                      texts: list[str]) -> AsyncIterator[dict[str, Any]]:
        async for raw in response.content:
            line = raw.decode("utf-8", errors="replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                chunk = safe_loads(data, lenient=True)
            except ValueError:
                yield {"type": "node.log", "stream": "stdout", "problem": "not-json",
                       "text": data[:4000]}
                continue
            chunk = as_dict(chunk)
            for choice in chunk.get("choices") or []:
                delta = as_dict(as_dict(choice).get("delta"))
                if delta.get("reasoning_content"):
                    yield {"type": "message.assistant.thinking.delta",
                           "text": as_text(delta["reasoning_content"])}
                if delta.get("content"):
                    texts.append(as_text(delta["content"]))
                    yield {"type": "message.assistant.delta", "text": texts[-1]}
            usage = as_dict(chunk.get("usage"))
            if usage:
                event = {"type": "telemetry.usage",
                         "inputTokens": max(int(usage.get("prompt_tokens") or 0), 0),
                         "outputTokens": max(int(usage.get("completion_tokens") or 0), 0)}
                if chunk.get("model"):
                    event["model"] = as_text(chunk["model"])
                yield event

    def _error(self, message: str, status: int | None,
               category: str | None = None) -> dict[str, Any]:
        kind = category or classify_error(message, status)
        self._outcome.error = f"{kind}: {message}"
        event: dict[str, Any] = {"type": "agent.error", "fatal": True, "category": kind,
                                 "message": message[:4000]}
        if status is not None:
            event["status"] = status
        return event


async def _error_body(response: aiohttp.ClientResponse, folder: Path | None) -> dict[str, Any]:
    """An error response's body, kept whole (up to MAX_ERROR_BODY) in the agent run folder
    as ``ERROR_BODY_FILE`` so evaluations can show it; the event names it."""
    data = await response.content.read(MAX_ERROR_BODY + 1)
    total = response.content_length or len(data)
    data = data[:MAX_ERROR_BODY]
    fields: dict[str, Any] = {"bodyBytes": max(total, len(data)),
                              "contentType": response.content_type or None,
                              "statusText": response.reason or ""}
    if folder is not None and data:
        with contextlib.suppress(OSError):
            (Path(folder) / ERROR_BODY_FILE).write_bytes(data)
            fields["bodyFile"] = ERROR_BODY_FILE
    return {"text": data.decode("utf-8", errors="replace"), "fields": fields}


def _error_message(status: int, text: str) -> str:
    try:
        body = safe_loads(text, lenient=True)
    except ValueError:
        return f"HTTP {status}: {text[:500]}"
    error = as_dict(as_dict(body).get("error"))
    return f"HTTP {status}: {as_text(error.get('message')) or text[:500]}"
