"""JSON Schema of every contract shape, keyed by the file name it is published as.

File names are kebab-case model names (``run-state.schema.json``); each event
type gets ``event.<type>.schema.json`` and the union of all events is
``event.schema.json``. Schemas describe the wire form (camelCase aliases).
"""

import re
from typing import Any

from pydantic import BaseModel, TypeAdapter

from desktop.contract.envelope import Envelope
from desktop.contract.events import EVENT_ADAPTER, KNOWN_EVENTS, EventBase
from desktop.contract.run_info import RunInfo
from desktop.contract.runner import Runner
from desktop.contract.state import Artifact, EdgeState, NodeConfig, NodeState, RunState

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SUFFIX = ".schema.json"
EVENT_UNION_FILE = "event" + SUFFIX

SchemaSource = type[BaseModel] | TypeAdapter


def kebab(name: str) -> str:
    """``RunState`` -> ``run-state``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()


def event_type_of(model: type[EventBase]) -> str:
    """The literal ``type`` value of an event model (``message.assistant.delta``)."""
    return model.model_fields["type"].default


def contract_sources() -> dict[str, SchemaSource]:
    """Every contract shape by schema file name."""
    sources: dict[str, SchemaSource] = {
        kebab(model.__name__) + SUFFIX: model
        for model in (RunState, NodeState, NodeConfig, EdgeState, Envelope, Artifact, RunInfo,
                      Runner)
    }
    sources[EVENT_UNION_FILE] = EVENT_ADAPTER
    for model in KNOWN_EVENTS:
        sources[f"event.{event_type_of(model)}{SUFFIX}"] = model
    return sources


def json_schema(source: SchemaSource, title: str | None = None) -> dict[str, Any]:
    """The validation JSON Schema (by alias) of a model or type adapter."""
    if isinstance(source, TypeAdapter):
        schema = source.json_schema(by_alias=True)
    else:
        schema = source.model_json_schema(by_alias=True)
    if title and "title" not in schema:
        schema["title"] = title
    return {"$schema": JSON_SCHEMA_DIALECT, **schema}


def _exclusive_generic(schema: dict[str, Any]) -> dict[str, Any]:
    # In the union, GenericEvent stands for types this version does not know;
    # without this a known event would match two branches of ``oneOf``.
    generic = schema.get("$defs", {}).get("GenericEvent")
    if generic is not None:
        known = sorted(event_type_of(model) for model in KNOWN_EVENTS)
        generic["properties"]["type"] = {
            "title": "Type", "type": "string", "not": {"enum": known},
        }
    return schema


def build_schemas(sources: dict[str, SchemaSource]) -> dict[str, dict[str, Any]]:
    """Schema documents by file name, in the given order."""
    schemas = {
        name: json_schema(source, title=name.removesuffix(SUFFIX))
        for name, source in sources.items()
    }
    if EVENT_UNION_FILE in schemas:
        _exclusive_generic(schemas[EVENT_UNION_FILE])
    return schemas
