"""The published JSON Schemas accept what the models accept and reject what they reject."""

import pytest
from event_samples import KNOWN_TYPES, sample_event
from jsonschema import Draft202012Validator

from desktop.contract.events import parse_event
from desktop.contract.schema import EVENT_UNION_FILE, build_schemas, contract_sources

SCHEMAS = build_schemas(contract_sources())


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(SCHEMAS[name])


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_schema_is_a_valid_json_schema(name: str) -> None:
    schema = SCHEMAS[name]
    Draft202012Validator.check_schema(schema)
    assert "properties" in schema or "$defs" in schema


@pytest.mark.parametrize("kind", KNOWN_TYPES)
def test_sample_event_valid_for_its_schema_and_model(kind: str) -> None:
    event = sample_event(kind)
    validator(f"event.{kind}.schema.json").validate(event)
    wire = parse_event(event).to_json_dict()
    validator(f"event.{kind}.schema.json").validate(wire)
    validator(EVENT_UNION_FILE).validate(wire)  # exactly one branch of oneOf matches


def test_unknown_event_matches_the_generic_branch() -> None:
    validator(EVENT_UNION_FILE).validate(
        sample_event("message.user") | {"type": "x.future", "anything": 1}
    )


def test_wrong_event_shape_rejected_by_schema() -> None:
    bad = sample_event("turn.status") | {"status": "bogus"}
    assert not validator("event.turn.status.schema.json").is_valid(bad)
    assert not validator(EVENT_UNION_FILE).is_valid(bad)
    missing = sample_event("message.user")
    del missing["text"]
    assert not validator("event.message.user.schema.json").is_valid(missing)


def test_schemas_use_wire_names() -> None:
    props = SCHEMAS["run-state.schema.json"]["properties"]
    assert {"contractVersion", "nodeConfigs", "globalMode"} <= set(props)
    assert "run_id" in SCHEMAS["run-info.schema.json"]["properties"]
    assert "run_id" in SCHEMAS["run-info.schema.json"]["required"]
