"""A request body as the service reads it: strict JSON.

A JSON value is taken as JSON says it is: ``true`` is not 1, ``"3"`` is not 3 (pydantic's
lax mode would make them so, and a ``timeoutSec: true`` would be a one-second timeout).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from desktop.api.errors import from_validation

if TYPE_CHECKING:
    from desktop.graph.document import WorkflowDocument


def workflow_document(data: dict[str, Any], field: str = "workflow") -> WorkflowDocument:
    """A workflow document sent in a request body, checked strictly as JSON (``timeoutSec:
    true`` is not one second, ``untilDone: "yes"`` not true); 422 naming the field.

    Only documents from the network: a YAML file is read by desktop/graph/io.py with
    its own checks and its own messages."""
    from desktop.graph.document import WorkflowDocument

    try:  # JSON text again: pydantic's strict Python mode would refuse enum values
        return WorkflowDocument.model_validate_json(orjson.dumps(data), strict=True)
    except ValidationError as exc:
        raise from_validation(exc, field) from None


__all__ = ["workflow_document"]
