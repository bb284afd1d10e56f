"""The scripted agent program: plays a deterministic script as a real agent process.

Script forms (any of them may nest inside another):

- a list of steps;
- ``{"turns": [script, script, ...]}`` picks by turn number (the last one repeats);
- ``{"attempts": [script, ...]}`` picks by restart attempt within a turn (untilDone);
- ``{"when": [{"inboxContains": "text", "steps": script}, ...], "default": script}``
  picks the first entry whose text occurs in the inbox (case-insensitive);
- ``{"models": {"name": script, ...}, "default": script}`` picks by the node's
  ``model`` (a best-of-N attempt may name its own);
- ``{"steps": script}``.

Each step is a dict with one key; see :data:`STEP_KINDS`. The agent prints
contract events as JSON lines; for each tool call it prints ``tool.proposed``
and reads one resolution line (``{"status", "modifiedArgs", "reason"}``) on stdin.
"""

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from desktop.disk.safe_json import loads as safe_loads

STEP_KINDS = (
    "say", "think", "shell", "edit", "bus", "handoff", "spawn_node", "create_edge", "fail",
    "sleep", "hang", "repeat_output", "write_output", "done", "emit_raw", "deltas", "usage",
)
BUS_TYPES = ("PROGRESS", "FACT", "ERROR", "DECISION", "QUESTION")
MAX_TOOL_OUTPUT = 16 * 1024


class ScriptError(ValueError):
    """The script has a shape this agent does not understand."""


def select_steps(script: Any, turn: int, attempt: int, inbox_text: str,
                 model: str | None = None) -> list[dict]:
    """The steps to play for this turn, attempt, inbox and model."""
    if script is None:
        return []
    if isinstance(script, list):
        return script
    if not isinstance(script, dict):
        raise ScriptError(f"a script is a list of steps or a mapping, not {type(script).__name__}")
    for key, index in (("turns", turn), ("attempts", attempt)):
        if key in script:
            options = script[key]
            if not isinstance(options, list) or not options:
                raise ScriptError(f"'{key}' must be a non-empty list of scripts")
            return select_steps(options[min(max(index, 1), len(options)) - 1],
                                turn, attempt, inbox_text, model)
    if "models" in script:
        models = script["models"]
        if not isinstance(models, dict):
            raise ScriptError("'models' must map model names to scripts")
        chosen = models[model] if model in models else script.get("default", [])
        return select_steps(chosen, turn, attempt, inbox_text, model)
    if "when" in script:
        haystack = inbox_text.lower()
        for entry in script["when"] or []:
            needle = str(entry.get("inboxContains", "")).lower()
            if needle and needle in haystack:
                return select_steps(entry.get("steps", []), turn, attempt, inbox_text, model)
        return select_steps(script.get("default", []), turn, attempt, inbox_text, model)
    if "steps" in script:
        return select_steps(script["steps"], turn, attempt, inbox_text, model)
    raise ScriptError("a script mapping needs 'turns', 'attempts', 'models', 'when' or "
                      "'steps'")


def validate_script(script: Any, where: str = "script") -> list[str]:
    """Problems with a script (every branch), as ``"where: message"`` strings."""
    if isinstance(script, list):
        problems = []
        for i, step in enumerate(script):
            if not isinstance(step, dict) or len(step) != 1:
                problems.append(f"{where}[{i}]: a step is a mapping with exactly one key")
            elif next(iter(step)) not in STEP_KINDS:
                problems.append(f"{where}[{i}]: unknown step {next(iter(step))!r}; "
                                f"use one of {', '.join(STEP_KINDS)}")
        return problems
    if not isinstance(script, dict):
        return [f"{where}: must be a list of steps or a mapping"]
    for key in ("turns", "attempts"):
        if key in script:
            options = script[key]
            if not isinstance(options, list) or not options:
                return [f"{where}.{key}: must be a non-empty list of scripts"]
            return [p for i, o in enumerate(options)
                    for p in validate_script(o, f"{where}.{key}[{i}]")]
    if "models" in script:
        models = script["models"]
        if not isinstance(models, dict) or not models:
            return [f"{where}.models: must map model names to scripts"]
        return [p for name, o in models.items()
                for p in validate_script(o, f"{where}.models.{name}")] + (
            validate_script(script["default"], f"{where}.default") if "default" in script
            else [])
    if "when" in script:
        problems = []
        for i, entry in enumerate(script.get("when") or []):
            if not isinstance(entry, dict) or "inboxContains" not in entry:
                problems.append(f"{where}.when[{i}]: needs 'inboxContains' and 'steps'")
                continue
            problems += validate_script(entry.get("steps", []), f"{where}.when[{i}].steps")
        return problems + validate_script(script.get("default", []), f"{where}.default")
    if "steps" in script:
        return validate_script(script["steps"], f"{where}.steps")
    return [f"{where}: a script mapping needs 'turns', 'attempts', 'models', 'when' or "
            "'steps'"]


def inbox_text(items: list[dict]) -> str:
    """Everything an inbox says, as one text to search."""
    parts = []
    for item in items:
        parts.append(str(item.get("text", "")))
        payload = (item.get("envelope") or {}).get("payload") or {}
        parts.append(str(payload.get("message", "")))
        if payload.get("structured"):
            parts.append(json.dumps(payload["structured"], sort_keys=True))
    return "\n".join(parts)


class ScriptedAgent:
    """Plays steps, printing events on ``out`` and reading resolutions from ``inp``."""

    def __init__(self, run_folder: Path, cwd: Path, out=None, inp=None):
        self.run_folder = run_folder
        self.cwd = cwd
        self.out = out or sys.stdout
        self.inp = inp or sys.stdin
        self._handoffs: list[dict] = []
        self._resolution: dict = {}

    def emit(self, event: dict) -> None:
        self.out.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.out.flush()

    def play(self, steps: list[dict]) -> int:
        """Run the steps in order; the process exit code."""
        for step in steps:
            if not isinstance(step, dict) or len(step) != 1:
                return self._fail(f"bad step {step!r}: a step is a mapping with one key")
            kind, value = next(iter(step.items()))
            handler = getattr(self, f"_step_{kind}", None)
            if handler is None:
                return self._fail(f"unknown step {kind!r}; use one of {', '.join(STEP_KINDS)}")
            code = handler(value)
            if code is not None:
                return code
        return 0

    # --- messages -------------------------------------------------------------

    def _message(self, text: str, delta: str, final: str) -> None:
        text = str(text)
        message_id = str(uuid.uuid4())
        words = text.split(" ")
        size = max(1, -(-len(words) // 4))  # about four deltas per message
        for i in range(0, len(words), size):
            piece = " ".join(words[i : i + size]) + (" " if i + size < len(words) else "")
            event = {"type": delta, "text": piece}
            if delta == "message.assistant.delta":
                event["messageId"] = message_id
            self.emit(event)
        event = {"type": final, "text": text}
        if final == "message.assistant.final":
            event["messageId"] = message_id
        self.emit(event)

    def _step_say(self, text: str) -> None:
        self._message(text, "message.assistant.delta", "message.assistant.final")

    _step_repeat_output = _step_say

    def _step_think(self, text: str) -> None:
        self._message(text, "message.assistant.thinking.delta",
                      "message.assistant.thinking.final")

    def _step_deltas(self, spec: int | dict) -> None:
        """``N`` deltas at once, or ``{"count": N, "perSecond": R}`` paced (a long stream
        from a one-line script, for soak runs)."""
        if isinstance(spec, dict):
            count, rate = int(spec.get("count", 0)), float(spec.get("perSecond", 0) or 0)
        else:
            count, rate = int(spec), 0.0
        message_id = str(uuid.uuid4())
        write = self.out.write
        head = '{"type":"message.assistant.delta","messageId":"' + message_id + '","text":"t'
        start = time.monotonic()
        for i in range(count):
            write(f'{head}{i} "}}\n')
            if rate > 0:
                self.out.flush()
                pause = start + (i + 1) / rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
        self.out.flush()
        self.emit({"type": "message.assistant.final", "text": f"{count} deltas",
                   "messageId": message_id})

    def _step_emit_raw(self, line: str) -> None:
        self.out.write(str(line) + "\n")
        self.out.flush()

    def _step_usage(self, usage: dict) -> None:
        """One ``telemetry.usage`` event (``inputTokens``, ``outputTokens``, ``costUsd``,
        ``model``), or ``repeat`` of them (0: without end) ``everySec`` apart: an agent
        that keeps spending."""
        fields = {k: v for k, v in usage.items() if k not in ("repeat", "everySec")}
        repeat, every = int(usage.get("repeat", 1)), float(usage.get("everySec", 0))
        done = 0
        while repeat <= 0 or done < repeat:
            self.emit({"type": "telemetry.usage", **fields})
            done += 1
            if every > 0:
                time.sleep(every)

    # --- tool calls -------------------------------------------------------------

    def _tool(self, name: str, args: dict, run) -> None:
        """Propose a tool call, wait for the resolution, run it unless denied."""
        tool_id = str(uuid.uuid4())
        self.emit({"type": "tool.proposed", "tool": {"id": tool_id, "name": name, "args": args}})
        line = self.inp.readline()
        try:
            resolution = safe_loads(line) if line.strip() else {}
        except json.JSONDecodeError:
            resolution = {}
        self._resolution = resolution
        status = resolution.get("status", "denied")
        if status not in ("approved", "modified"):
            reason = resolution.get("reason") or ("denied" if line else "no resolution received")
            self.emit({"type": "tool.completed", "toolId": tool_id, "result": {"ok": False},
                       "error": {"message": reason}})
            return
        if status == "modified" and isinstance(resolution.get("modifiedArgs"), dict):
            args = resolution["modifiedArgs"]
        self.emit({"type": "tool.started", "toolId": tool_id, "args": args})
        try:
            result, error = run(args)
        except Exception as exc:  # a failing tool is reported, the agent carries on
            result, error = {"ok": False}, {"message": f"{type(exc).__name__}: {exc}"}
        event = {"type": "tool.completed", "toolId": tool_id, "result": result}
        if error:
            event["error"] = error
        self.emit(event)

    def _step_shell(self, cmd: str) -> None:
        def run(args: dict):
            proc = subprocess.run(str(args.get("cmd", "")), shell=True, cwd=self.cwd,
                                  capture_output=True, stdin=subprocess.DEVNULL)
            output = (proc.stdout + proc.stderr).decode("utf-8", errors="replace")
            result = {"ok": proc.returncode == 0, "exitCode": proc.returncode,
                      "output": output[-MAX_TOOL_OUTPUT:]}
            error = None if proc.returncode == 0 else {"message": f"exit code {proc.returncode}"}
            return result, error

        self._tool("command", {"cmd": cmd}, run)

    def _step_edit(self, spec: dict) -> None:
        def run(args: dict):
            target = (self.cwd / str(args["path"])).resolve()
            if not target.is_relative_to(self.cwd.resolve()):
                return {"ok": False}, {"message": f"{args['path']} is outside the workspace"}
            target.parent.mkdir(parents=True, exist_ok=True)
            content = str(args.get("content", ""))
            target.write_text(content, encoding="utf-8")
            return {"ok": True, "exitCode": 0, "output": f"wrote {len(content)} characters"}, None

        self._tool("edit_file", dict(spec), run)

    def _agent_management(self, name: str, spec: dict) -> None:
        def run(_args: dict):
            # The engine applied the change when it approved it; its result names what was made.
            made = self._resolution.get("result") or {}
            return {"ok": True, "exitCode": 0, "output": f"{name} applied", **made}, None

        self._tool(name, dict(spec), run)

    def _step_spawn_node(self, spec: dict) -> None:
        self._agent_management("spawn_node", spec)

    def _step_create_edge(self, spec: dict) -> None:
        self._agent_management("create_edge", spec)

    # --- files, bus, control ------------------------------------------------------

    def _write(self, name: str, text: str) -> None:
        target = self.run_folder / name
        tmp = target.with_name(f".{name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)

    def _step_write_output(self, text: str) -> None:
        self._write("output.md", str(text))

    def _step_done(self, _value: Any) -> None:
        self._write("DONE", "done\n")

    def _step_handoff(self, spec: dict) -> None:
        data = {"to": spec.get("to"), "message": spec.get("message", ""),
                "structured": spec.get("structured") or {}, "status": spec.get("status"),
                "artifacts": spec.get("artifacts") or []}
        self._handoffs.append(data)
        # One directive stays an object (the documented shape); several become a list.
        payload = self._handoffs[0] if len(self._handoffs) == 1 else self._handoffs
        self._write("handoff.json", json.dumps(payload, indent=2, ensure_ascii=False))

    def _step_bus(self, spec: dict) -> int | None:
        from desktop.providers.bus_client import BusError, post_message

        try:
            post_message(str(spec.get("type", "PROGRESS")), str(spec.get("message", "")),
                         handoff=spec.get("handoff"))
        except BusError as exc:
            sys.stderr.write(f"bus post failed: {exc}\n")
        return None

    def _step_sleep(self, seconds: float) -> None:
        time.sleep(float(seconds))

    def _step_hang(self, _value: Any) -> None:
        while True:
            time.sleep(3600)

    def _step_fail(self, reason: str) -> int:
        return self._fail(str(reason))

    def _fail(self, reason: str) -> int:
        sys.stderr.write(reason + "\n")
        sys.stderr.flush()
        return 1
