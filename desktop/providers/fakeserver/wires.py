"""The four streaming wires, as lists of SSE events built from one scripted reply.

Each builder returns ``[(event_name | None, json_payload | str), ...]``; the
server writes them with the reply's delay between them. Tool names follow each
agent's own shell tool: Claude Code ``Bash``, Codex ``exec_command``, Gemini CLI
``run_shell_command``, chat completions ``shell``.
"""

import itertools
import json
import time
from typing import Any

_ids = itertools.count(1)


def _id(prefix: str) -> str:
    return f"{prefix}_fake{next(_ids):06d}"


def chunks(text: str, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (at least one piece)."""
    size = max(int(size or 0), 1)
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def tool_call(reply: dict[str, Any], wire: str) -> tuple[str, dict[str, Any]] | None:
    """``(name, args)`` of the reply's tool call on ``wire``, or None."""
    if "shell" in reply:
        cmd = str(reply["shell"])
        return {
            "anthropic": ("Bash", {"command": cmd, "description": "Run a command"}),
            "responses": ("exec_command", {"cmd": cmd}),
            "gemini": ("run_shell_command", {"command": cmd, "description": "Run a command"}),
            "chat": ("shell", {"command": cmd}),
        }[wire]
    if "write" in reply:
        path, content = str(reply["write"]["path"]), str(reply["write"].get("content", ""))
        if wire == "anthropic":
            return "Write", {"file_path": path, "content": content}
        if wire == "gemini":
            return "write_file", {"file_path": path, "content": content}
        quoted = content.replace("'", "'\\''")
        return tool_call({"shell": f"printf '%s' '{quoted}' > '{path}'"}, wire)
    tool = reply.get("tool")
    if isinstance(tool, dict):
        return str(tool["name"]), dict(tool.get("args") or {})
    return None


def _usage(reply: dict[str, Any], text: str) -> tuple[int, int]:
    usage = reply.get("usage") or {}
    return int(usage.get("input", 12)), int(usage.get("output", max(len(text) // 4, 1)))


def anthropic(reply: dict[str, Any], model: str, size: int) -> list[tuple[str | None, Any]]:
    """Anthropic Messages SSE for one reply."""
    text = str(reply.get("text", ""))
    tin, tout = _usage(reply, text)
    out: list[tuple[str | None, Any]] = [("message_start", {
        "type": "message_start", "message": {
            "id": _id("msg"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": 1}}})]
    index = 0

    def block(start: dict, deltas: list[dict]) -> None:
        nonlocal index
        out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                            "content_block": start}))
        for delta in deltas:
            out.append(("content_block_delta", {"type": "content_block_delta",
                                                "index": index, "delta": delta}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if reply.get("thinking"):
        block({"type": "thinking", "thinking": ""},
              [{"type": "thinking_delta", "thinking": c}
               for c in chunks(str(reply["thinking"]), size)]
              + [{"type": "signature_delta", "signature": "fake-signature"}])
    if text:
        block({"type": "text", "text": ""},
              [{"type": "text_delta", "text": c} for c in chunks(text, size)])
    call = tool_call(reply, "anthropic")
    if call:
        block({"type": "tool_use", "id": _id("toolu"), "name": call[0], "input": {}},
              [{"type": "input_json_delta", "partial_json": json.dumps(call[1])}])
    out.append(("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": "tool_use" if call else "end_turn",
                                            "stop_sequence": None},
                                  "usage": {"output_tokens": tout}}))
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def responses(reply: dict[str, Any], model: str, size: int) -> list[tuple[str | None, Any]]:
    """OpenAI Responses SSE for one reply."""
    text = str(reply.get("text", ""))
    tin, tout = _usage(reply, text)
    rid = _id("resp")
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model}
    out: list[tuple[str | None, Any]] = [
        ("response.created", {"type": "response.created",
                              "response": {**base, "status": "in_progress", "output": []}})]
    items: list[dict[str, Any]] = []
    seq = 0

    def add(item: dict[str, Any], events: list[dict[str, Any]], done: dict[str, Any]) -> None:
        nonlocal seq
        pos = len(items)
        out.append(("response.output_item.added", {"type": "response.output_item.added",
                                                   "output_index": pos, "item": item}))
        for event in events:
            out.append((event["type"], {**event, "output_index": pos, "item_id": item["id"]}))
        out.append(("response.output_item.done", {"type": "response.output_item.done",
                                                  "output_index": pos, "item": done}))
        items.append(done)
        seq += 1

    if reply.get("thinking"):
        thought = str(reply["thinking"])
        rs = _id("rs")
        add({"id": rs, "type": "reasoning", "summary": []},
            [{"type": "response.reasoning_summary_text.delta", "summary_index": 0, "delta": c}
             for c in chunks(thought, size)],
            {"id": rs, "type": "reasoning",
             "summary": [{"type": "summary_text", "text": thought}]})
    if text:
        mid = _id("msg")
        add({"id": mid, "type": "message", "role": "assistant", "status": "in_progress",
             "content": []},
            [{"type": "response.output_text.delta", "content_index": 0, "delta": c}
             for c in chunks(text, size)],
            {"id": mid, "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]})
    call = tool_call(reply, "responses")
    if call:
        fid, args = _id("fc"), json.dumps(call[1])
        add({"id": fid, "type": "function_call", "call_id": _id("call"), "name": call[0],
             "arguments": "", "status": "in_progress"},
            [{"type": "response.function_call_arguments.delta", "delta": args}],
            {"id": fid, "type": "function_call", "call_id": f"call_{fid}", "name": call[0],
             "arguments": args, "status": "completed"})
    out.append(("response.completed", {"type": "response.completed", "response": {
        **base, "status": "completed", "output": items,
        "usage": {"input_tokens": tin, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": tout, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": tin + tout}}}))
    return out


def gemini(reply: dict[str, Any], model: str, size: int) -> list[tuple[str | None, Any]]:
    """Gemini streamGenerateContent (alt=sse) chunks for one reply."""
    text = str(reply.get("text", ""))
    tin, tout = _usage(reply, text)
    parts: list[dict[str, Any]] = []
    if reply.get("thinking"):
        parts += [{"text": c, "thought": True} for c in chunks(str(reply["thinking"]), size)]
    if text:
        parts += [{"text": c} for c in chunks(text, size)]
    call = tool_call(reply, "gemini")
    if call:
        parts.append({"functionCall": {"name": call[0], "args": call[1]}})
    parts = parts or [{"text": ""}]
    out: list[tuple[str | None, Any]] = []
    for i, part in enumerate(parts):
        chunk: dict[str, Any] = {"candidates": [{"content": {"parts": [part], "role": "model"},
                                                 "index": 0}],
                                 "modelVersion": model, "responseId": _id("gresp")}
        if i == len(parts) - 1:
            chunk["candidates"][0]["finishReason"] = "STOP"
            chunk["usageMetadata"] = {"promptTokenCount": tin, "candidatesTokenCount": tout,
                                      "totalTokenCount": tin + tout}
        out.append((None, chunk))
    return out


def chat(reply: dict[str, Any], model: str, size: int) -> list[tuple[str | None, Any]]:
    """OpenAI-compatible chat completions chunks for one reply (ends with [DONE])."""
    text = str(reply.get("text", ""))
    tin, tout = _usage(reply, text)
    cid = _id("chatcmpl")

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

    out: list[tuple[str | None, Any]] = [(None, chunk({"role": "assistant", "content": ""}))]
    if reply.get("thinking"):
        out += [(None, chunk({"reasoning_content": c}))
                for c in chunks(str(reply["thinking"]), size)]
    if text:
        out += [(None, chunk({"content": c})) for c in chunks(text, size)]
    call = tool_call(reply, "chat")
    if call:
        out.append((None, chunk({"tool_calls": [{
            "index": 0, "id": _id("call"), "type": "function",
            "function": {"name": call[0], "arguments": json.dumps(call[1])}}]})))
    out.append((None, chunk({}, "tool_calls" if call else "stop",
                            usage={"prompt_tokens": tin, "completion_tokens": tout,
                                   "total_tokens": tin + tout})))
    out.append((None, "[DONE]"))
    return out


def error_body(wire: str, status: int, message: str) -> dict[str, Any]:
    """The JSON body of an HTTP error on ``wire``."""
    if wire == "anthropic":
        kind = {401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    if wire == "gemini":
        state = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": state}}
    kind = {401: "invalid_request_error", 404: "invalid_request_error",
            429: "rate_limit_exceeded"}.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "code": str(status)}}


def collect_text(reply: dict[str, Any]) -> str:
    """The reply's text (used for non-streaming answers)."""
    return str(reply.get("text", ""))
