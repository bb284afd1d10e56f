"""The folded run state as a :class:`RunState`, rebuilt reusing the parts that did not change.

Validating the whole state costs milliseconds once a run has dozens of nodes,
configs, edges and artifacts, and the engine asks for the model after nearly
every turn-level event. Between two such events usually one node and a couple
of entries change, so each keyed entry's validated model is kept with the
JSON bytes it was built from; an entry whose bytes are unchanged is handed to
pydantic as the model it already is (instances are not validated again) and
only the rest is validated. The result equals ``validate_state(copy_json(s))``.
"""

from __future__ import annotations

from typing import Any

import orjson

from desktop.contract.state import RunState
from desktop.store.reducer import State, copy_json
from desktop.store.state_repair import validate_state

# Top-level fields holding entries by id, each entry validated as a model (or a list of them).
_KEYED = ("nodes", "nodeConfigs", "edges", "artifacts", "pendingApprovals", "inboxes")
_FIELD = {alias: name for name, field in RunState.model_fields.items()
          if (alias := field.alias or name) in _KEYED}


def _key(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value)
    except TypeError:  # an odd value: validate it afresh every time
        return None


class StateModels:
    """Builds RunState models from the reducer's dict, reusing unchanged entries."""

    def __init__(self) -> None:
        self._parts: dict[str, dict[str, tuple[bytes, Any]]] = {}

    def build(self, s: State) -> RunState:
        """``s`` as a RunState (``s`` itself is neither kept nor changed)."""
        mixed: dict[str, Any] = {}
        keys: dict[str, dict[str, bytes]] = {}
        for top, value in s.items():
            if top not in _FIELD or type(value) is not dict:
                mixed[top] = copy_json(value)
                continue
            cache = self._parts.get(top, {})
            section: dict[str, Any] = {}
            seen: dict[str, bytes] = {}
            for entry_id, entry in value.items():
                raw = _key(entry)
                hit = cache.get(entry_id)
                if raw is not None and hit is not None and hit[0] == raw:
                    part = hit[1]
                    section[entry_id] = list(part) if type(part) is list else part
                else:
                    section[entry_id] = copy_json(entry)
                if raw is not None:
                    seen[entry_id] = raw
            mixed[top] = section
            keys[top] = seen
        model = validate_state(mixed)
        parts: dict[str, dict[str, tuple[bytes, Any]]] = {}
        for top, seen in keys.items():
            built = getattr(model, _FIELD[top])
            parts[top] = {entry_id: (raw, built[entry_id]) for entry_id, raw in seen.items()
                          if entry_id in built}
        self._parts = parts
        return model
