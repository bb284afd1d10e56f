"""The quick acceptance of runner records (desktop/store/runner_fast.py): it takes the usual
valid record in one strict parse, never accepts a record the rules refuse, and gives the
same hash (RFC 8785 bytes of the core) and the same violations as checking rule by rule."""

import copy
import hashlib
import json
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.store.runner import canonical, core, runner_hash
from desktop.store.runner_fast import accept
from desktop.store.runner_verify import RunnerParseError, check, parse, verify
from tests.store.runner_records import example, records
from tests.store.test_runner_verify import CASES

MANY = settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
ascii_ids = st.from_regex(r"runner_[0-9]{8}_[0-9]{6}_[a-z0-9]{1,10}", fullmatch=True)


@st.composite
def usual_records(draw) -> dict:
    """A valid record as a run writes it: its id in ASCII digits (the rules' \\d takes any
    Unicode digit; the quick path leaves those to them)."""
    record = draw(records())
    record["runner_id"] = draw(ascii_ids)
    return record


def _rfc8785_hash(record: dict) -> str:
    return "sha256:" + hashlib.sha256(rfc8785.dumps(core(record)) + b"\n").hexdigest()


@MANY
@given(usual_records(), st.booleans())
def test_the_usual_record_is_accepted_with_rfc8785s_hash(record: dict, newline: bool) -> None:
    raw = canonical(record) + (b"\n" if newline else b"")
    accepted = accept(raw)
    assert accepted is not None
    value, core_form = accepted
    assert value == record
    assert core_form == rfc8785.dumps(core(record))
    _, result = check(raw)
    assert result.ok and result.runner_hash == _rfc8785_hash(record) == runner_hash(record)


TRICKY: list[Any] = [
    None, True, False, 0, -1, 1, 1.5, 1.0, 2**53, 2**64, 255, 256, 999, 600_001, "", "x", "é",
    "\U0001f600", "\ue000", "/abs", "a/../b", "..", "C:\\x", "é:x", ".", "a\n/b", "sigkill",
    "SIGKILL", "none", "process", "v1.2.3", "1.2.3", "runner_20260106_120000_ab\n",
    "runner_2026010\u0661_120000_ab", "2026-01-06T12:00:00.000Z", "2026-02-30T12:00:00Z",
    "2026-01-06T12:00:00+02:00", [], ["b", "a"], ["a", "b"], ["", "a"], ["SSH_X"], ["ssh_x"],
    ["\ue000", "\U0001f600"], [1], {}, {"a": 1}, {"\U0001f600": 1, "\ue000": 2},
    [{"name": "a", "started_at": "2026-01-06T12:00:00.000Z", "duration_ms": 1}],
]


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*path, i))
    return found


@st.composite
def broken_records(draw) -> dict:
    """A usual record with one to three fields replaced, removed or added."""
    record = draw(usual_records())
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from([p for p in _paths(record) if p]))
        parent = record
        for part in path[:-1]:
            parent = parent[part]
        how = draw(st.sampled_from(["set", "set", "drop", "add"]))
        if how == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "é", "phases"]))] = draw(
                st.sampled_from(TRICKY))
        else:
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(TRICKY)))
    return record


@MANY
@given(broken_records())
def test_nothing_the_rules_refuse_is_accepted(record: dict) -> None:
    try:
        raw = canonical(record)
    except rfc8785.CanonicalizationError:  # no canonical form: written another way
        raw = json.dumps(record).encode("utf-8", "surrogatepass")
    try:
        slow = verify(parse(raw), raw)
    except RunnerParseError:
        return
    if accept(raw) is not None:
        assert slow.ok, slow.output()
    assert check(raw)[1] == slow  # same verdict, violations and hash either way


EXPECTED = [
    ('$.runner_schema_version', "must be '1.0.0', got '2.0.0'"),
    ('$.runner_schema_version', 'missing; it is required'),
    ('$.runner_schema_version', 'must be a non-empty string'),
    ('$.runner_id', "'run-1' does not match runner_YYYYMMDD_HHMMSS_<a-z0-9>"),
    ('$.runner_id', "'runner_20250101_000000_ABC' does not match runner_YYYYMMDD_HHMMSS_<a-z0-9>"),
    ('$.runner_version', 'must be a non-empty string'),
    ('$.platform.os', "'freebsd' is not one of linux, darwin, win32"),
    ('$.platform.arch', "'x86_64' is not one of x64, arm64, ia32"),
    ('$.platform.node_version', "'24.11.1' is not 'v' followed by semver"),
    ('$.platform.npm_version', "'10.9' is not a semver string"),
    ('$.platform.npm_version', 'missing; it is required'),
    ('$.sandbox.backend', "'docker' is not one of process, container, vm, none"),
    ('$.sandbox.backend', "isolation_level 'none' requires backend 'none', got 'process'"),
    ('$.sandbox.network_blocked', 'must be a boolean'),
    ('$.sandbox.filesystem_readonly', 'must be a boolean'),
    ('$.limits.timeout_ms', 'must be in [1000, 600000], got 999'),
    ('$.limits.timeout_ms', 'must be in [1000, 600000], got 600001'),
    ('$.limits.max_output_files', 'must be in [1, 10000], got 0'),
    ('$.limits.max_total_output_bytes', 'must be in [1024, 1073741824], got 1023'),
    ('$.limits.max_memory_bytes', 'must be positive, got 0'),
    ('$.limits.max_cpu_seconds', 'must be positive, got -1'),
    ('$.limits.timeout_ms', 'must be a number, not a boolean'),
    ('$.commands.allowlist', 'must be sorted lexicographically'),
    ('$.commands.blocklist', "'node' is in both allowlist and blocklist"),
    ('$.commands.shell', 'must be a non-empty string'),
    ('$.commands.blocklist', 'must be sorted lexicographically'),
    ('$.write_roots', 'must be sorted lexicographically'),
    ('$.write_roots[0]', "'/etc' is absolute; only relative paths are allowed"),
    ('$.write_roots[0]', "'a/../b' contains path traversal ('..')"),
    ('$.write_roots[0]', "'C:\\\\x' is absolute; only relative paths are allowed"),
    ('$.context.working_dir', "must be '.'"),
    ('$.context.env_allowlist[0]', "'SSH_AUTH_SOCK' has a forbidden (secret-bearing) prefix"),
    ('$.context.env_allowlist', 'must be sorted lexicographically'),
    ('$.context.locale', "'english please' is not a locale name (e.g. en_US.UTF-8)"),
    ('$.context.timezone', 'missing; it is required'),
    ('$.timing.duration_ms', '5002 differs from completed_at - started_at (5000 ms)'),
    [('$.timing.completed_at', 'is before started_at'),
     ('$.timing.duration_ms', '5000 differs from completed_at - started_at (-1000 ms)')],
    ('$.timing.started_at', 'must be an ISO 8601 UTC timestamp (…Z)'),
    ('$.timing.phases', 'must be sorted by started_at'),
    ('$.exit.code', 'must be an integer in [0, 255], got 256'),
    ('$.exit.code', 'must be an integer in [0, 255], got -1'),
    ('$.exit.code', 'must be an integer in [0, 255], got 1.5'),
    ('$.exit.signal', "must be an uppercase signal name, got 'sigkill'"),
    ('$.exit.oom_killed', 'must be a boolean'),
    ('$.extra_field', "unknown field 'extra_field': it is neither core nor ephemeral, "
                      "so the hash could not say whether it counts"),
    ('$.ephemeral.host_id', 'must be a string'),
    ('$.ephemeral.mood', "unknown ephemeral field 'mood'"),
    ('$.warnings', 'must be sorted lexicographically'),
]


@pytest.mark.parametrize(("case", "expected"), list(zip(CASES, EXPECTED, strict=True)),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_broken_rule_is_refused_with_the_same_message(case, expected) -> None:
    rule, breaks, _ = case
    record = example()
    breaks(record)
    raw = canonical(record)
    assert accept(raw) is None
    _, result = check(raw)
    expected = expected if isinstance(expected, list) else [expected]
    assert [(v.rule_id, v.path, v.message) for v in result.violations] == [
        (rule, path, message) for path, message in expected]
