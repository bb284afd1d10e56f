"""runner.json: its canonical bytes (RFC 8785), its core hash, its atomic write.

The core of a record is everything but ``timing`` and ``ephemeral`` (RN11). Both the
hash and the file follow the Motherlabs kernel, where the runner spec comes from
(``src/utils/canonical.ts``: ``canonicalizeToBytes`` and ``canonicalHash``): its hashed
and written form of a value is the canonical JSON followed by exactly one ``\n``. So
``runner_hash`` is ``sha256:<hex>`` of the core's canonical bytes plus ``\n`` (two
records that differ only in timing or ephemeral notes share it, and the kernel's
``runner-verify`` gives the same hash for the same record), and :func:`write_runner`
writes the record's canonical bytes plus ``\n``, which both tools accept (RN12).
"""

import hashlib
import os
from typing import Any

import orjson
import rfc8785

from desktop.contract.runner import CORE_EXCLUDED
from desktop.disk.atomic import atomic_write_bytes

RUNNER_JSON = "runner.json"
NEWLINE = b"\n"
"""What ends the kernel's written and hashed form of a canonical value."""
CanonicalError = rfc8785.CanonicalizationError
_INT_MAX, _INT_MIN = 2**53 - 1, -(2**53) + 1


def utf16_key(text: str) -> bytes:
    """Sort key of the spec's lexicographic order (JavaScript's: UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


def canonical(value: Any) -> bytes:
    """``value`` as RFC 8785 canonical JSON; :data:`CanonicalError` when it has no such
    form (an integer beyond 2^53, a float that is not finite, a key that is not text)."""
    if _orjson_is_canonical(value):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:  # a lone surrogate: the reference says what it is
            pass
    return rfc8785.dumps(value)


def _orjson_is_canonical(value: Any) -> bool:
    """Whether orjson writes ``value`` exactly as RFC 8785 does (and 50 times faster).

    They differ only in numbers that are floats or beyond 2^53, in the order of keys with
    characters past U+DFFF (UTF-16 order), and in lone surrogates; a value with none of
    those (the usual runner record) is written the same byte for byte.
    """
    todo = [value]
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not _INT_MIN <= item <= _INT_MAX:
                return False
        elif kind is dict:
            for key in item:
                if type(key) is not str or not key.isascii():
                    return False
            todo.extend(item.values())
        elif kind is list:
            todo.extend(item)
        else:  # floats and anything else: the reference implementation decides
            return False
    return True


def core(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the fields left out of its hash."""
    kept = dict(record)
    for key in CORE_EXCLUDED:
        kept.pop(key, None)
    return kept


def runner_hash(record: dict[str, Any]) -> str:
    """``sha256:<64 hex>`` of the record's core, as the kernel computes it."""
    return hash_of(canonical(core(record)))


def hash_of(core_bytes: bytes) -> str:
    """``sha256:<64 hex>`` of canonical core bytes followed by one ``\n`` (the kernel's
    ``canonicalHash``: sha256 over ``canonicalizeToBytes``)."""
    digest = hashlib.sha256(core_bytes)
    digest.update(NEWLINE)
    return "sha256:" + digest.hexdigest()


def record_bytes(record: dict[str, Any]) -> bytes:
    """The bytes a runner.json file holds: canonical JSON and one ``\n``."""
    return canonical(record) + NEWLINE


def canonical_record(record: dict[str, Any]) -> tuple[bytes, bytes]:
    """The canonical bytes of ``record`` and of its core (one check for both)."""
    kept = core(record)
    if _orjson_is_canonical(record):
        try:
            return (orjson.dumps(record, option=orjson.OPT_SORT_KEYS),
                    orjson.dumps(kept, option=orjson.OPT_SORT_KEYS))
        except orjson.JSONEncodeError:
            pass
    return rfc8785.dumps(record), rfc8785.dumps(kept)


def write_runner(path: str | os.PathLike[str], record: dict[str, Any]) -> str:
    """Write ``record`` as the kernel's writer does (canonical JSON and one ``\n``),
    atomically; returns its hash."""
    atomic_write_bytes(path, record_bytes(record))
    return runner_hash(record)
