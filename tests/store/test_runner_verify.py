"""Rules RN1-RN12 of runner records: each one broken and kept, canonical round trips,
and the core hash (timing and ephemeral out, every core field in)."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.contract.runner import Runner
from desktop.store.runner import canonical, canonical_record, core, runner_hash
from desktop.store.runner_verify import RunnerParseError, check, parse, verify, verify_all
from tests.store.runner_records import example, records

FAST = settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)


def rules_broken(record: Any) -> set[str]:
    return {v.rule_id for v in verify(record).violations}


def paths_of(record: Any) -> set[str]:
    return {v.path for v in verify(record).violations}


def setter(path: str, value: Any) -> Callable[[dict], None]:
    def apply(record: dict) -> None:
        *parents, last = path.split(".")
        target = record
        for part in parents:
            target = target[part]
        if value is DELETE:
            del target[last]
        else:
            target[last] = value
    return apply


DELETE = object()

# (rule, how to break it, how to keep it while touching the same field)
CASES = [
    ("RN1", setter("runner_schema_version", "2.0.0"), setter("runner_schema_version", "1.0.0")),
    ("RN1", setter("runner_schema_version", DELETE), None),
    ("RN1", setter("runner_schema_version", ""), None),
    ("RN2", setter("runner_id", "run-1"), setter("runner_id", "runner_20250101_000000_z9")),
    ("RN2", setter("runner_id", "runner_20250101_000000_ABC"), None),
    ("RN2", setter("runner_version", ""), setter("runner_version", "not-semver-is-a-should")),
    ("RN3", setter("platform.os", "freebsd"), setter("platform.os", "darwin")),
    ("RN3", setter("platform.arch", "x86_64"), setter("platform.arch", "arm64")),
    ("RN3", setter("platform.node_version", "24.11.1"),
     setter("platform.node_version", "v1.2.3-rc.1")),
    ("RN3", setter("platform.npm_version", "10.9"), setter("platform.npm_version", "0.0.0")),
    ("RN3", setter("platform.npm_version", DELETE), None),
    ("RN4", setter("sandbox.backend", "docker"), setter("sandbox.backend", "vm")),
    ("RN4", setter("sandbox.isolation_level", "none"),
     lambda r: (setter("sandbox.isolation_level", "none")(r),
                setter("sandbox.backend", "none")(r))),
    ("RN4", setter("sandbox.network_blocked", "yes"), setter("sandbox.network_blocked", False)),
    ("RN4", setter("sandbox.filesystem_readonly", 1), None),
    ("RN5", setter("limits.timeout_ms", 999), setter("limits.timeout_ms", 1000)),
    ("RN5", setter("limits.timeout_ms", 600001), setter("limits.timeout_ms", 600000)),
    ("RN5", setter("limits.max_output_files", 0), setter("limits.max_output_files", 10000)),
    ("RN5", setter("limits.max_total_output_bytes", 1023),
     setter("limits.max_total_output_bytes", 1073741824)),
    ("RN5", setter("limits.max_memory_bytes", 0), setter("limits.max_memory_bytes", 1)),
    ("RN5", setter("limits.max_cpu_seconds", -1), setter("limits.max_cpu_seconds", 0.5)),
    ("RN5", setter("limits.timeout_ms", True), None),
    ("RN6", setter("commands.allowlist", ["npm", "node"]),
     setter("commands.allowlist", ["node", "npm"])),
    ("RN6", setter("commands.blocklist", ["node"]), setter("commands.blocklist", ["rm"])),
    ("RN6", setter("commands.shell", ""), setter("commands.shell", "cmd.exe")),
    ("RN6", setter("commands.blocklist", ["b", "a"]), None),
    ("RN7", setter("write_roots", ["out", "build"]), setter("write_roots", ["build", "out"])),
    ("RN7", setter("write_roots", ["/etc"]), setter("write_roots", ["etc"])),
    ("RN7", setter("write_roots", ["a/../b"]), setter("write_roots", ["a/..b"])),
    ("RN7", setter("write_roots", ["C:\\x"]), None),
    ("RN8", setter("context.working_dir", "/home/me"), setter("context.working_dir", ".")),
    ("RN8", setter("context.env_allowlist", ["SSH_AUTH_SOCK"]),
     setter("context.env_allowlist", ["SSHX"])),
    ("RN8", setter("context.env_allowlist", ["TZ", "LANG"]),
     setter("context.env_allowlist", ["LANG", "TZ"])),
    ("RN8", setter("context.locale", "english please"), setter("context.locale", "C.UTF-8")),
    ("RN8", setter("context.timezone", DELETE), setter("context.timezone", "Europe/Paris")),
    ("RN9", setter("timing.duration_ms", 5002), setter("timing.duration_ms", 5001)),
    ("RN9", setter("timing.completed_at", "2026-01-06T11:59:59.000Z"), None),
    ("RN9", setter("timing.started_at", "2026-01-06T12:00:00+02:00"), None),
    ("RN9", setter("timing.phases", [
        {"name": "b", "started_at": "2026-01-06T12:00:02.000Z", "duration_ms": 1},
        {"name": "a", "started_at": "2026-01-06T12:00:01.000Z", "duration_ms": 1}]),
     setter("timing.phases", [
         {"name": "a", "started_at": "2026-01-06T12:00:01.000Z", "duration_ms": 1},
         {"name": "b", "started_at": "2026-01-06T12:00:02.000Z", "duration_ms": 1}])),
    ("RN10", setter("exit.code", 256), setter("exit.code", 255)),
    ("RN10", setter("exit.code", -1), setter("exit.code", 0)),
    ("RN10", setter("exit.code", 1.5), None),
    ("RN10", setter("exit.signal", "sigkill"), setter("exit.signal", "SIGKILL")),
    ("RN10", setter("exit.oom_killed", None), setter("exit.oom_killed", True)),
    ("RN11", setter("extra_field", 1), None),
    ("RN11", setter("ephemeral", {"host_id": 7}), setter("ephemeral", {"host_id": "h"})),
    ("RN11", setter("ephemeral", {"mood": "x"}), setter("ephemeral", {"human_notes": "x"})),
    ("RN11", setter("warnings", ["z", "a"]), setter("warnings", ["a", "z"])),
]


@pytest.mark.parametrize(("rule", "breaks", "keeps"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_rule_is_broken_alone_and_kept(rule: str, breaks, keeps) -> None:
    record = example()
    breaks(record)
    assert rules_broken(record) == {rule}
    if keeps is not None:
        kept = example()
        keeps(kept)
        assert verify(kept).ok, verify(kept).output()


def test_the_specs_own_example_verifies_except_its_pretty_printing() -> None:
    assert verify(example()).ok
    pretty = json.dumps(example(), indent=2).encode()
    assert [v.rule_id for v in verify(parse(pretty), pretty).violations] == ["RN12"]


def test_every_violation_is_reported_at_once() -> None:
    record = example()
    record["platform"]["os"] = "plan9"
    record["limits"]["timeout_ms"] = 1
    record["write_roots"] = ["/abs", "../up"]
    assert {"$.platform.os", "$.limits.timeout_ms", "$.write_roots[0]",
            "$.write_roots[1]", "$.write_roots"} <= paths_of(record)


def test_not_an_object_and_wrong_part_kinds() -> None:
    assert rules_broken([1, 2]) == {"RN1"}
    record = example()
    record["platform"], record["exit"] = [], "0"
    assert rules_broken(record) == {"RN3", "RN10"}


@FAST
@given(records())
def test_generated_records_verify_and_round_trip_canonically(record: dict) -> None:
    raw = canonical(record)
    parsed = parse(raw)
    assert canonical(parsed) == raw  # parse, serialize: identical bytes
    result = verify(parsed, raw)
    assert result.ok, result.output()
    assert result.runner_hash == runner_hash(record)
    Runner.model_validate(record)


@FAST
@given(records(), st.data())
def test_hash_ignores_timing_and_ephemeral(record: dict, data) -> None:
    other = json.loads(json.dumps(record))
    other["timing"] = {"started_at": "2030-01-01T00:00:00.000Z",
                       "completed_at": "2030-01-01T00:00:01.000Z", "duration_ms": 1000}
    other["ephemeral"] = {"human_notes": data.draw(st.text(max_size=20))}
    assert runner_hash(other) == runner_hash(record)
    assert verify(other).runner_hash == verify(record).runner_hash


def _leaves(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    return [path]


@FAST
@given(records(), st.data())
def test_hash_changes_with_any_core_field(record: dict, data) -> None:
    path = data.draw(st.sampled_from(_leaves(core(record))))
    tampered = json.loads(json.dumps(record))
    target = tampered
    for part in path[:-1]:
        target = target[part]
    value = target[path[-1]]
    target[path[-1]] = {"tampered": True} if not isinstance(value, dict) else None
    assert runner_hash(tampered) != runner_hash(record)


@FAST
@given(records(), st.integers(min_value=2**53 + 1, max_value=2**80))
def test_numbers_beyond_2_53_are_a_violation_not_a_crash(record: dict, big: int) -> None:
    record["limits"]["max_memory_bytes"] = big
    raw = json.dumps(record).encode()
    assert "RN12" in {v.rule_id for v in verify(parse(raw), raw).violations}


@pytest.mark.parametrize(("raw", "why"), [
    (b"", "empty"), (b"  \n", "empty"), (b"\xff\xfe{}", "UTF-8"),
    (b'{"a": NaN}', "NaN"), (b'{"a": Infinity}', "Infinity"), (b'{"a": -Infinity}', "Infinity"),
    (b'{"a": 1, "a": 2}', "duplicate key"), (b'{"a": ', "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "nested"),
    (b'{"a":' + b"[" * 900 + b"]" * 900 + b"}", "nested"),
    (b" " * (10 * 1024 * 1024) + b"{}", "bytes"),
])
def test_bad_input_is_a_parse_error(raw: bytes, why: str) -> None:
    with pytest.raises(RunnerParseError, match=why):
        parse(raw)
    with pytest.raises(RunnerParseError, match=why):
        check(raw)


@FAST
@given(records(), st.booleans())
def test_check_parses_once_and_agrees_with_parse_then_verify(record: dict, pretty: bool) -> None:
    raw = json.dumps(record, indent=1).encode() if pretty else canonical(record)
    value, result = check(raw)
    assert value == parse(raw) and result == verify(parse(raw), raw)
    assert result.ok is not pretty


def test_runner_id_must_be_unique_across_records() -> None:
    a, b = example(), example()
    results = verify_all([(a, verify(a)), (b, verify(b))])
    assert results[0].ok
    assert [v.rule_id for v in results[1].violations] == ["RN2"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.text(st.characters(codec="utf-8")),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_the_fast_canonical_form_is_rfc8785s(value: Any) -> None:
    import rfc8785

    assert canonical(value) == rfc8785.dumps(value)
    if isinstance(value, dict):
        assert canonical_record(value) == (rfc8785.dumps(value), rfc8785.dumps(core(value)))

