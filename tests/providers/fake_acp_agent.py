"""A scripted ACP agent for the provider tests: plain JSON-RPC lines on stdin/stdout.

What it does in a prompt turn depends on words in the prompt:
``TOOL`` (a shell call under permission, then a file write and a diff),
``ESCAPE`` (tries to read a file outside the workspace), ``PLAN`` (a plan
update), ``WEIRD`` (an unknown update kind and a non-JSON line), ``HANG``
(waits for session/cancel), ``FAIL`` (answers the prompt with an error).
Every turn thinks, streams a message and reports usage. ``session/load`` of
``fake-session-1`` replays its history before the answer, of ``fake-session-late``
after it.
"""

import json
import sys
import time

SESSION = "fake-session-1"
LATE_SESSION = "fake-session-late"
state = {"cwd": ".", "next": 100}


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def update(update_kind: str, **fields) -> None:
    send({"jsonrpc": "2.0", "method": "session/update",
          "params": {"sessionId": SESSION, "update": {"sessionUpdate": update_kind, **fields}}})


def text(kind: str, value: str) -> None:
    update(kind, content={"type": "text", "text": value})


def call(method: str, params: dict) -> dict:
    """Send a request to the client and wait for its answer."""
    state["next"] += 1
    rid = state["next"]
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("id") == rid and "method" not in msg:
            return msg
    raise SystemExit(0)


def tool_turn() -> None:
    tool = {"toolCallId": "call-1", "title": "echo hi > out.txt", "kind": "execute",
            "status": "pending", "rawInput": {"command": "echo hi > out.txt"}}
    update("tool_call", **tool)
    options = [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
               {"optionId": "always", "name": "Always", "kind": "allow_always"},
               {"optionId": "no", "name": "Reject", "kind": "reject_once"}]
    answer = call("session/request_permission",
                  {"sessionId": SESSION, "toolCall": tool, "options": options})
    outcome = answer.get("result", {}).get("outcome", {})
    if outcome.get("optionId") != "yes":
        update("tool_call_update", toolCallId="call-1", status="failed",
               content=[{"type": "content", "content": {"type": "text", "text": "rejected"}}])
        return
    update("tool_call_update", toolCallId="call-1", status="in_progress")
    path = f"{state['cwd']}/out.txt"
    call("fs/write_text_file", {"sessionId": SESSION, "path": path, "content": "hi\n"})
    update("tool_call_update", toolCallId="call-1", status="completed",
           content=[{"type": "content", "content": {"type": "text", "text": "wrote it"}},
                    {"type": "diff", "path": path, "oldText": None, "newText": "hi\n"}])


def prompt(rid: int, words: str) -> None:
    text("agent_thought_chunk", "Let me think.")
    if "PLAN" in words:
        update("plan", entries=[
            {"content": "Read", "priority": "high", "status": "completed"},
            {"content": "Write", "priority": "medium", "status": "in_progress"}])
    if "WEIRD" in words:
        update("mystery_update", payload=[1, 2, 3])
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    if "TOOL" in words:
        tool_turn()
    if "ESCAPE" in words:
        answer = call("fs/read_text_file", {"sessionId": SESSION, "path": "/etc/hostname"})
        text("agent_message_chunk", "read refused. " if "error" in answer else "read worked. ")
    if "HANG" in words:
        for line in sys.stdin:
            if json.loads(line).get("method") == "session/cancel":
                send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "cancelled"}})
                return
        return
    if "FAIL" in words:
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32603, "message": "HTTP 401: invalid api key"}})
        return
    text("agent_message_chunk", "All ")
    text("agent_message_chunk", "done.")
    send({"jsonrpc": "2.0", "id": rid, "result": {
        "stopReason": "end_turn",
        "usage": {"inputTokens": 12, "outputTokens": 5, "totalTokens": 17}}})


def load(rid: int, session: str | None) -> None:
    """Replay the session, then answer; ``LATE_SESSION`` answers first and replays a
    moment later, as Gemini CLI does (its replay is not awaited before its answer)."""
    if session not in (SESSION, LATE_SESSION):
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32002, "message": "Resource not found"}})
        return
    if session == LATE_SESSION:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
        time.sleep(0.5)
    text("user_message_chunk", "earlier question")
    text("agent_message_chunk", "earlier answer")
    if session == SESSION:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})


def main() -> None:
    sys.stderr.write("fake acp agent ready\n")
    sys.stderr.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": 1, "agentCapabilities": {"loadSession": True}}})
        elif method == "session/new":
            state["cwd"] = params.get("cwd", ".")
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": SESSION}})
        elif method == "session/load":
            state["cwd"] = params.get("cwd", ".")
            load(rid, params.get("sessionId"))
        elif method == "session/prompt":
            words = " ".join(b.get("text", "") for b in params.get("prompt", []))
            prompt(rid, words)
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid,
                  "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
