"""Runner records byte for byte with the reference: the Motherlabs kernel, where the
runner spec comes from.

``tests/data/motherlabs_runner_reference.json`` holds what the kernel's own verifier
(``verifyRunner``) and writer (``canonicalizeToBytes``) give on its runner fixtures, at
the repository and commit it names: each fixture's ``runner_hash`` or its violations
(rule id and path), and the sha256 of the bytes its writer emits.

The spec's example record is the kernel's ``valid_basic.json`` fixture, so its figures
are checked on every clone. The other fixtures are the kernel's files, not ours, and are
not kept in this repository: point ``MOTHERLABS_KERNEL`` at a clone (or bare git folder)
of the kernel and they are read at the pinned commit; without one those cases skip.
"""

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from desktop.store.runner import canonical, record_bytes, runner_hash, write_runner
from desktop.store.runner_verify import check, verify
from tests.store.runner_records import example, records

REFERENCE = json.loads(
    (Path(__file__).parent.parent / "data" / "motherlabs_runner_reference.json").read_text())
FIXTURES: dict[str, dict[str, Any]] = REFERENCE["fixtures"]


def _kernel_file(name: str) -> bytes | None:
    """The bytes of the kernel's fixture ``name`` at the pinned commit, or None."""
    where = os.environ.get("MOTHERLABS_KERNEL")
    if not where:
        return None
    rel = f"{REFERENCE['fixtures_dir']}/{name}"
    try:
        raw = subprocess.run(
            ["git", "-C", where, "show", f"{REFERENCE['commit']}:{rel}"],
            check=True, capture_output=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        plain = Path(where) / rel
        raw = plain.read_bytes() if plain.is_file() else None
    if raw is not None:
        assert hashlib.sha256(raw).hexdigest() == FIXTURES[name]["sha256"], (
            f"{name} is not the file at {REFERENCE['commit']}")
    return raw


def _fixture(name: str) -> Any:
    raw = _kernel_file(name)
    if raw is None:
        pytest.skip(f"MOTHERLABS_KERNEL is not set to a clone of {REFERENCE['repository']}")
    return json.loads(raw)


def test_the_reference_data_names_its_repository_and_commit() -> None:
    assert REFERENCE["repository"] == "github.com/dopexthrone/Motherlabs"
    assert len(REFERENCE["commit"]) == 40
    assert FIXTURES["valid_basic.json"]["runner_hash"] == (
        "sha256:830861b74667a7c5b9967012e89ada945b3e53c0eb61ea74fbdfc6497edb22bc")


def test_the_specs_example_gets_the_kernels_hash_and_bytes() -> None:
    """The spec's example is the kernel's valid_basic.json; hash and written bytes agree."""
    expected = FIXTURES["valid_basic.json"]
    assert runner_hash(example()) == expected["runner_hash"]
    written = record_bytes(example())
    assert hashlib.sha256(written).hexdigest() == expected["written_sha256"]
    assert written.endswith(b"}\n") and not written.endswith(b"\n\n")


def test_a_record_written_the_kernels_way_verifies_with_its_hash(tmp_path: Path) -> None:
    path = tmp_path / "runner.json"
    digest = write_runner(path, example())
    raw = path.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == FIXTURES["valid_basic.json"]["written_sha256"]
    _, result = check(raw)
    assert result.ok, result.output()
    assert result.runner_hash == digest == FIXTURES["valid_basic.json"]["runner_hash"]


def test_the_hash_is_over_the_canonical_core_and_one_newline() -> None:
    record = example()
    core = {k: v for k, v in record.items() if k not in ("timing", "ephemeral")}
    expected = "sha256:" + hashlib.sha256(canonical(core) + b"\n").hexdigest()
    assert runner_hash(record) == expected


@settings(max_examples=40, deadline=None)
@given(records())
def test_canonical_bytes_with_at_most_one_newline_verify(record: dict) -> None:
    form = canonical(record)
    for raw in (form, form + b"\n"):
        _, result = check(raw)
        assert result.ok, result.output()
        assert result.runner_hash == runner_hash(record)
    for raw in (form + b"\n\n", form + b" ", form + b"\r\n", b" " + form, form + b"\n "):
        assert "RN12" in {v.rule_id for v in verify(json.loads(raw), raw).violations}


VALID = sorted(name for name, item in FIXTURES.items() if item.get("runner_hash"))
INVALID = sorted(name for name, item in FIXTURES.items() if item.get("violations"))


@pytest.mark.parametrize("name", VALID)
def test_each_valid_kernel_fixture_gets_the_kernels_hash(name: str, tmp_path: Path) -> None:
    value = _fixture(name)
    expected = FIXTURES[name]
    assert verify(value).runner_hash == expected["runner_hash"]
    path = tmp_path / "runner.json"
    assert write_runner(path, value) == expected["runner_hash"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == expected["written_sha256"]
    _, result = check(path.read_bytes())
    assert result.ok and result.runner_hash == expected["runner_hash"], result.output()


@pytest.mark.parametrize("name", INVALID)
def test_each_invalid_kernel_fixture_names_the_kernels_rule_and_path(name: str) -> None:
    result = verify(_fixture(name))
    ours = {(v.rule_id, v.reference_path) for v in result.violations}
    theirs = {(rule, path) for rule, path in FIXTURES[name]["violations"]}
    assert theirs <= ours, sorted(theirs - ours, key=str)
    assert all(v.path.startswith("$") for v in result.violations)


def test_the_unparseable_kernel_fixture_is_a_parse_error() -> None:
    from desktop.store.runner_verify import RunnerParseError
    raw = _kernel_file("invalid_schema_not_object.json")
    if raw is None:
        pytest.skip(f"MOTHERLABS_KERNEL is not set to a clone of {REFERENCE['repository']}")
    with pytest.raises(RunnerParseError):
        check(raw)


def test_paths_the_kernel_reports_differently_name_both() -> None:
    record = example()
    record["sandbox"]["isolation_level"] = "none"  # backend stays 'process'
    record["commands"]["blocklist"] = ["npm"]  # also in the allowlist
    record["timing"]["completed_at"] = "2026-01-06T11:59:59.000Z"  # before started_at
    record["runner_id"] = "bad"
    pairs = {(v.rule_id, v.path, v.reference_path) for v in verify(record).violations}
    assert ("RN4", "$.sandbox.backend", "sandbox") in pairs
    assert ("RN6", "$.commands.blocklist", "commands") in pairs
    assert ("RN9", "$.timing.completed_at", "timing") in pairs
    assert ("RN9", "$.timing.duration_ms", "timing.duration_ms") in pairs
    assert ("RN2", "$.runner_id", None) in pairs
    out = [v.as_dict() for v in verify(record).violations]
    assert {"rule_id": "RN4", "path": "$.sandbox.backend", "reference_path": "sandbox",
            "message": out[[d["rule_id"] for d in out].index("RN4")]["message"]} in out
    assert all("reference_path" not in d for d in out if d["rule_id"] == "RN2")
