"""Scripted model replies for the fake model server.

A script maps a key (the path prefix ``/k/<key>/`` of the request; ``default``
without one) to a list of replies, played one per model request, in order.
A reply is a dict with any of:

- ``text``: the assistant's text; ``thinking``: reasoning shown before it
- ``shell``: a command for the agent's own shell tool (each wire knows its name)
- ``tool``: ``{name, args}`` for any other tool call
- ``error``: ``{status, message}`` to answer with an HTTP error
- ``delay``: seconds between streamed chunks (a slow stream); ``chunk``: chunk size
- ``hang``: true to accept the request and never answer
- ``usage``: ``{input, output}`` token counts to report
- ``times``: how many requests get this reply (default 1; an ``error`` reply
  answers every later request too, since agents retry and fall back)

A file may be a list of replies, ``{replies: [...]}``, or ``{agents: {key: [...]}}``
(with ``default`` as the key for requests without a prefix). A key may name one wire,
``<key>:<wire>`` (``anthropic``, ``responses``, ``gemini``, ``chat``): its replies go to
that wire's requests only, so two agents under one key (best-of-N attempts of a node)
each play their own. When a key's
replies run out, the last text reply is repeated (``then`` overrides it).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.disk.safe_json import loads as safe_loads
from desktop.store.safe_yaml import load_yaml, read_yaml_text

DEFAULT_KEY = "default"
EXHAUSTED = {"text": "Done."}
_REPLY_KEYS = {"text", "thinking", "shell", "tool", "error", "delay", "chunk", "hang", "usage",
               "write", "times"}


class ScriptError(ValueError):
    """A script file or reply that cannot be played; the message names the fix."""


def check_reply(reply: Any, where: str) -> dict[str, Any]:
    """``reply`` validated as a reply dict; a string is shorthand for ``{text: ...}``."""
    if isinstance(reply, str):
        return {"text": reply}
    if not isinstance(reply, dict):
        raise ScriptError(f"{where}: a reply must be a mapping like {{text: ...}}")
    unknown = set(reply) - _REPLY_KEYS
    if unknown:
        raise ScriptError(f"{where}: unknown reply field(s) {sorted(unknown)}; "
                          f"use {sorted(_REPLY_KEYS)}")
    if not set(reply) & {"text", "shell", "tool", "error", "hang", "thinking", "write"}:
        raise ScriptError(f"{where}: a reply needs text, shell, tool, write, error or hang")
    error = reply.get("error")
    if error is not None and not (isinstance(error, dict) and isinstance(error.get("status"), int)):
        raise ScriptError(f"{where}.error: give {{status: <HTTP code>, message: ...}}")
    tool = reply.get("tool")
    if tool is not None and not (isinstance(tool, dict) and isinstance(tool.get("name"), str)):
        raise ScriptError(f"{where}.tool: give {{name: <tool>, args: {{...}}}}")
    times = reply.get("times")
    if times is not None and not (isinstance(times, int) and times >= 1):
        raise ScriptError(f"{where}.times: a whole number >= 1")
    write = reply.get("write")
    if write is not None and not (isinstance(write, dict) and "path" in write):
        raise ScriptError(f"{where}.write: give {{path: <file>, content: <text>}}")
    return dict(reply)


@dataclass
class Script:
    """Replies per key, with a cursor per key."""

    replies: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    then: dict[str, Any] | None = None
    _cursor: dict[str, int] = field(default_factory=dict)
    _uses: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Any, where: str = "script") -> "Script":
        """A script from parsed YAML/JSON (list, ``{replies}`` or ``{agents}``)."""
        then = None
        if isinstance(data, list):
            table = {DEFAULT_KEY: data}
        elif isinstance(data, dict):
            if "then" in data:
                then = check_reply(data["then"], f"{where}.then")
            if "agents" in data:
                if not isinstance(data["agents"], dict):
                    raise ScriptError(f"{where}.agents: a mapping of agent key -> replies")
                table = dict(data["agents"])
                if "replies" in data:
                    table.setdefault(DEFAULT_KEY, data["replies"])
            elif "replies" in data:
                table = {DEFAULT_KEY: data["replies"]}
            else:
                raise ScriptError(f"{where}: give `replies: [...]` or `agents: {{key: [...]}}`")
        else:
            raise ScriptError(f"{where}: expected a list of replies or a mapping")
        replies: dict[str, list[dict[str, Any]]] = {}
        for key, items in table.items():
            if not isinstance(items, list):
                raise ScriptError(f"{where}.agents.{key}: a list of replies")
            replies[str(key)] = [check_reply(r, f"{where}.agents.{key}[{i}]")
                                 for i, r in enumerate(items)]
        return cls(replies=replies, then=then)

    @classmethod
    def load(cls, path: Path) -> "Script":
        """Read a script file (YAML or JSON); ScriptError naming the file when bad."""
        try:
            text = read_yaml_text(path)
            data = safe_loads(text) if path.suffix == ".json" else load_yaml(text, str(path))
        except OSError as exc:
            raise ScriptError(f"{path}: cannot read ({exc.strerror})") from exc
        except ValueError as exc:  # YamlError, JSONDecodeError
            raise ScriptError(f"{path}: not valid YAML/JSON: {exc}") from exc
        return cls.from_data(data, str(path))

    def next_reply(self, key: str) -> dict[str, Any]:
        """The next reply for ``key`` (falling back to ``default``), advancing its cursor."""
        if key not in self.replies:
            key = DEFAULT_KEY
        items = self.replies.get(key, [])
        index = self._cursor.get(key, 0)
        if index < len(items):
            reply = items[index]
            uses = self._uses.get(key, 0) + 1
            limit = reply.get("times", 0 if "error" in reply else 1)
            if limit and uses >= limit:
                self._cursor[key], self._uses[key] = index + 1, 0
            else:
                self._uses[key] = uses
            return reply
        if self.then is not None:
            return self.then
        texts = [r for r in items if "text" in r and not ({"shell", "tool", "error", "hang",
                                                            "write"} & set(r))]
        return {"text": texts[-1]["text"]} if texts else dict(EXHAUSTED)

    def reset(self) -> None:
        self._cursor.clear()
        self._uses.clear()
