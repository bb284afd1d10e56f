"""Shared field types: UUID strings, ISO-8601 UTC timestamps, the model base."""

import uuid
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, WithJsonSchema

CONTRACT_VERSION = "1"


def _check_uuid(value: str) -> str:
    try:
        uuid.UUID(value)
    except (ValueError, AttributeError, TypeError) as exc:
        raise ValueError(f"{value!r} is not a UUID string") from exc
    return value


def _check_utc(value: str) -> str:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"{value!r} is not an ISO-8601 timestamp") from exc
    if parsed.utcoffset() is None or parsed.utcoffset().total_seconds() != 0:
        raise ValueError(f"{value!r} is not in UTC (end it with Z)")
    return value


UUIDStr = Annotated[
    str, AfterValidator(_check_uuid), WithJsonSchema({"type": "string", "format": "uuid"})
]
UtcTimestamp = Annotated[
    str, AfterValidator(_check_utc), WithJsonSchema({"type": "string", "format": "date-time"})
]


def new_id() -> str:
    """A fresh UUID string for runs, nodes, edges, payloads, artifacts and events."""
    return str(uuid.uuid4())


def utc_now() -> str:
    """Now as ISO-8601 UTC with millisecond precision and a trailing Z."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ContractModel(BaseModel):
    """Base of stored shapes: camelCase on the wire, unknown fields kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, use_enum_values=True,
                              defer_build=True)

    def to_json_dict(self) -> dict:
        """The wire form: JSON-compatible, aliases applied, unset optionals left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
