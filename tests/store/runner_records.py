"""Runner records for the tests: the spec's example and a hypothesis strategy of valid ones."""

import copy
from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

SPEC_EXAMPLE = {
    "runner_schema_version": "1.0.0",
    "runner_id": "runner_20260106_120000_abc123",
    "runner_version": "0.3.15",
    "platform": {"os": "linux", "arch": "x64", "node_version": "v24.11.1",
                 "npm_version": "10.9.2"},
    "sandbox": {"backend": "process", "isolation_level": "standard", "network_blocked": True,
                "filesystem_readonly": False},
    "limits": {"timeout_ms": 60000, "max_output_files": 500,
               "max_total_output_bytes": 52428800},
    "commands": {"allowlist": ["node", "npm", "npx"], "blocklist": [], "shell": "/bin/sh"},
    "write_roots": ["build", "dist", "out", "tmp"],
    "context": {"working_dir": ".", "env_allowlist": ["LANG", "LC_ALL", "NODE_ENV", "TZ"],
                "locale": "en_US.UTF-8", "timezone": "UTC"},
    "timing": {"started_at": "2026-01-06T12:00:00.000Z",
               "completed_at": "2026-01-06T12:00:05.000Z", "duration_ms": 5000},
    "exit": {"code": 0, "oom_killed": False, "timeout_killed": False},
}


def example() -> dict:
    return copy.deepcopy(SPEC_EXAMPLE)


def _utf16_sorted(items: list[str]) -> list[str]:
    return sorted(set(items), key=lambda s: s.encode("utf-16-be", "surrogatepass"))


names = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "S")), min_size=1,
                max_size=12)
env_names = st.from_regex(r"[A-Z][A-Z0-9_]{0,10}", fullmatch=True).filter(
    lambda n: not n.startswith(("SSH_", "NPM_", "GIT_", "AWS_", "OPENAI_", "ANTHROPIC_")))
segments = st.from_regex(r"[a-z0-9_][a-z0-9_.-]{0,8}", fullmatch=True).filter(
    lambda s: s not in ("..", "."))
roots = st.lists(segments, min_size=1, max_size=3).map("/".join)
semver = st.tuples(*[st.integers(0, 99)] * 3).map(lambda v: ".".join(map(str, v)))
moments = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1))


@st.composite
def records(draw) -> dict:
    """A valid runner record (every RN rule kept), as its JSON object."""
    backend = draw(st.sampled_from(["process", "container", "vm", "none"]))
    level = "none" if backend == "none" else draw(st.sampled_from(["strict", "standard"]))
    start = draw(moments).replace(microsecond=draw(st.integers(0, 999)) * 1000, tzinfo=UTC)
    duration = draw(st.integers(0, 10**8))
    end = start + timedelta(milliseconds=duration)
    blocked = _utf16_sorted(draw(st.lists(names, max_size=4)))
    allowed = _utf16_sorted([n for n in draw(st.lists(names, max_size=4)) if n not in blocked])
    record = {
        "runner_schema_version": "1.0.0",
        "runner_id": draw(st.from_regex(r"runner_\d{8}_\d{6}_[a-z0-9]{1,10}", fullmatch=True)),
        "runner_version": draw(semver),
        "platform": {"os": draw(st.sampled_from(["linux", "darwin", "win32"])),
                     "arch": draw(st.sampled_from(["x64", "arm64", "ia32"])),
                     "node_version": "v" + draw(semver), "npm_version": draw(semver)},
        "sandbox": {"backend": backend, "isolation_level": level,
                    "network_blocked": draw(st.booleans()),
                    "filesystem_readonly": draw(st.booleans())},
        "limits": {"timeout_ms": draw(st.integers(1000, 600_000)),
                   "max_output_files": draw(st.integers(1, 10_000)),
                   "max_total_output_bytes": draw(st.integers(1024, 1_073_741_824))},
        "commands": {"allowlist": allowed, "blocklist": blocked,
                     "shell": draw(st.sampled_from(["/bin/sh", "/bin/bash", "cmd.exe"]))},
        "write_roots": _utf16_sorted(draw(st.lists(roots | st.just("."), max_size=4))),
        "context": {"working_dir": ".",
                    "env_allowlist": _utf16_sorted(draw(st.lists(env_names, max_size=6))),
                    "locale": draw(st.sampled_from(["en_US.UTF-8", "C", "C.UTF-8", "de_DE"])),
                    "timezone": draw(st.sampled_from(["UTC", "Europe/Paris"]))},
        "timing": {"started_at": _stamp(start), "completed_at": _stamp(end),
                   "duration_ms": duration},
        "exit": {"code": draw(st.integers(0, 255)), "oom_killed": draw(st.booleans()),
                 "timeout_killed": draw(st.booleans())},
    }
    if draw(st.booleans()):
        record["limits"]["max_memory_bytes"] = draw(st.integers(1, 2**40))
    if draw(st.booleans()):
        record["limits"]["max_cpu_seconds"] = draw(st.integers(1, 10**6))
    if draw(st.booleans()):
        record["exit"]["signal"] = draw(st.sampled_from(["SIGTERM", "SIGKILL", "SIGXCPU"]))
    if draw(st.booleans()):
        record["warnings"] = _utf16_sorted(draw(st.lists(names, min_size=1, max_size=3)))
    if draw(st.booleans()):
        record["ephemeral"] = {"host_id": draw(names), "session_id": draw(names)}
    return record


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
