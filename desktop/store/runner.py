"""runner.json: its canonical bytes (RFC 8785), its core hash, its atomic write.

The core of a record is everything but ``timing`` and ``ephemeral`` (RN11); its hash
is ``sha256:<hex>`` over the core's canonical bytes, so two records that differ only
in timing or ephemeral notes share it.
"""

import hashlib
import os
from typing import Any

import rfc8785

from desktop.contract.runner import CORE_EXCLUDED
from desktop.store.atomic import atomic_write_bytes

RUNNER_JSON = "runner.json"
CanonicalError = rfc8785.CanonicalizationError


def utf16_key(text: str) -> bytes:
    """Sort key of the spec's lexicographic order (JavaScript's: UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def canonical(value: Any) -> bytes:
    """``value`` as RFC 8785 canonical JSON; :data:`CanonicalError` when it has no such
    form (an integer beyond 2^53, a float that is not finite, a key that is not text)."""
    return rfc8785.dumps(value)


def core(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the fields left out of its hash."""
    return {key: value for key, value in record.items() if key not in CORE_EXCLUDED}


def runner_hash(record: dict[str, Any]) -> str:
    """``sha256:<64 hex>`` of the record's core."""
    return "sha256:" + hashlib.sha256(canonical(core(record))).hexdigest()


def write_runner(path: str | os.PathLike[str], record: dict[str, Any]) -> str:
    """Write ``record`` canonically and atomically; returns its hash."""
    atomic_write_bytes(path, canonical(record))
    return runner_hash(record)
