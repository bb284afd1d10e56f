"""The runner record of an agent process run, filled from what really happened.

Values the spec bounds are clamped into its ranges, each clamp noted in ``warnings``;
environment variables are listed by name only, and names that carry secrets (the
spec's forbidden prefixes, API keys, tokens) are left out and counted in a warning.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop import __version__
from desktop.contract.runner import (
    FORBIDDEN_ENV_PREFIXES,
    OUTPUT_BYTES,
    OUTPUT_FILES,
    TIMEOUT_MS,
)
from desktop.contract.sandbox import DEFAULT_MAX_OUTPUT_FILES, Sandbox
from desktop.contract.secrets import is_secret_name
from desktop.contract.state import NodeConfig
from desktop.disk.safe_json import loads as safe_loads
from desktop.runtime import helper_process
from desktop.runtime.agent_env import API_KEY_BY_PROVIDER
from desktop.store.runner import record_bytes, utf16_key, write_runner
from desktop.store.runner_rules import LOCALE_RE
from desktop.store.runner_verify import verify
from desktop.wording import plural

OS_NAMES = {"linux": "linux", "darwin": "darwin", "win32": "win32", "cygwin": "win32"}
ARCH_NAMES = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64",
              "i386": "ia32", "i686": "ia32", "x86": "ia32"}
SEMVER_START = re.compile(r"\d+\.\d+\.\d+")


def new_runner_id(started: datetime) -> str:
    """``runner_YYYYMMDD_HHMMSS_<random>``: unique per execution."""
    return f"runner_{started:%Y%m%d_%H%M%S}_{secrets.token_hex(5)}"


@functools.cache
def _version_of(program: str, *args: str) -> str | None:
    try:
        out = helper_process.run([program, *args], capture_output=True, text=True,
                                 timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = SEMVER_START.search(out.stdout)
    return match.group(0) if out.returncode == 0 and match else None


@functools.cache
def _npm_version(npm: str) -> str | None:
    """npm's version from the package.json of the npm its command leads to, else from
    ``npm --version``, which starts Node and loads all of npm (0.4 s here) to print it."""
    package = Path(npm).resolve().parent.parent / "package.json"  # npm/bin/npm-cli.js
    try:
        meta = safe_loads(package.read_bytes())
    except (OSError, ValueError):
        meta = None
    if isinstance(meta, dict) and meta.get("name") == "npm" \
            and isinstance(meta.get("version"), str):
        match = SEMVER_START.match(meta["version"])
        if match:
            return match.group(0)
    return _version_of(npm, "--version")


def node_versions(path: str | None) -> tuple[str, str, list[str]]:
    """The Node and npm versions found on the agent's ``PATH`` (cached per program)."""
    node, npm = shutil.which("node", path=path), shutil.which("npm", path=path)
    node_version = _version_of(node, "--version") if node else None
    npm_version = _npm_version(npm) if npm else None
    warnings = []
    if node_version is None:
        warnings.append("no Node runtime on the agent's PATH: node_version is v0.0.0")
    if npm_version is None:
        warnings.append("no npm on the agent's PATH: npm_version is 0.0.0")
    return f"v{node_version or '0.0.0'}", npm_version or "0.0.0", warnings


def _platform() -> tuple[str, str, list[str]]:
    os_name = OS_NAMES.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = ARCH_NAMES.get(machine, machine)
    warnings = [f"platform {sys.platform}/{machine} is outside the spec's os/arch names"
                ] if os_name not in OS_NAMES.values() or arch not in ARCH_NAMES.values() else []
    return os_name, arch, warnings


def _clamp(value: float, low: float, high: float, what: str, warnings: list[str]) -> float:
    if value < low or value > high:
        kept = min(max(value, low), high)
        warnings.append(f"limits.{what}: {value:g} clamped to {kept:g}")
        return kept
    return value


def _limits(config: NodeConfig, box: Sandbox, warnings: list[str]) -> dict[str, Any]:
    timeout = config.timeout_sec
    if timeout is None:
        warnings.append("no timeout was set: limits.timeout_ms is the spec's maximum")
        timeout_ms = TIMEOUT_MS[1]
    else:
        timeout_ms = round(_clamp(timeout * 1000, *TIMEOUT_MS, "timeout_ms", warnings))
    output = config.max_output_bytes
    if output is None:
        warnings.append("no output limit was set: limits.max_total_output_bytes is the "
                        "spec's maximum")
        output = OUTPUT_BYTES[1]
    files = box.limits.max_output_files if config.sandbox else DEFAULT_MAX_OUTPUT_FILES
    limits: dict[str, Any] = {
        "timeout_ms": timeout_ms,
        "max_output_files": round(_clamp(files, *OUTPUT_FILES, "max_output_files", warnings)),
        "max_total_output_bytes": round(_clamp(output, *OUTPUT_BYTES, "max_total_output_bytes",
                                               warnings)),
    }
    if box.limits.max_memory_mb is not None:
        limits["max_memory_bytes"] = box.limits.max_memory_mb * 1024 * 1024
    if box.limits.max_cpu_sec is not None:
        limits["max_cpu_seconds"] = box.limits.max_cpu_sec
    return limits


def visible_names(env: Mapping[str, str], warnings: list[str],
                  patterns: Sequence[str] = ()) -> list[str]:
    """The names of ``env`` safe to list, sorted; the others named in ``warnings``.

    Left out: the spec's forbidden prefixes, the providers' API keys, and every name
    that looks secret (desktop/contract/secrets.py, plus the user's ``patterns``)."""
    keys = set(API_KEY_BY_PROVIDER.values())
    hidden = sorted(n for n in env if n.upper().startswith(FORBIDDEN_ENV_PREFIXES)
                    or n in keys or is_secret_name(n, patterns))
    if hidden:
        warnings.append(f"{plural(len(hidden), 'variable')} the agent saw "
                        f"{'is' if len(hidden) == 1 else 'are'} not listed because "
                        f"their names mark secrets: {', '.join(hidden)}")
    return sorted((n for n in env if n not in hidden), key=utf16_key)


def _locale(env: Mapping[str, str], warnings: list[str]) -> str:
    value = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or "C"
    if LOCALE_RE.fullmatch(value):
        return value
    warnings.append("the agent's locale is not a locale name: recorded as C")
    return "C"


def _timezone(env: Mapping[str, str]) -> str:
    tz = (env.get("TZ") or "").lstrip(":")
    if tz:
        return tz
    try:
        name = Path("/etc/timezone").read_text(encoding="utf-8").strip()
    except OSError:
        name = ""
    if name:
        return name
    return "UTC" if time.timezone == 0 and not time.daylight else time.tzname[0]


def _exit(code: int, *, isolated: bool, timed_out: bool, oom_killed: bool,
          warnings: list[str]) -> dict[str, Any]:
    sig: int | None = None
    if code < -1:
        sig, code = -code, 128 - code
    elif code == -1:
        warnings.append("the agent's exit status is unknown: exit.code is 255")
        code = 255
    elif isolated and 128 < code <= 128 + 64:
        sig = code - 128  # bubblewrap reports a signal-ended agent as 128 + signal
    out: dict[str, Any] = {"code": min(code, 255), "oom_killed": oom_killed,
                           "timeout_killed": timed_out}
    if sig is not None:
        try:
            out["signal"] = signal.Signals(sig).name
        except ValueError:
            out["signal"] = f"SIG{sig}"
    elif timed_out or oom_killed:
        out["signal"] = "SIGKILL" if oom_killed else "SIGTERM"
    return out


def _millis(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def host_facts(env: Mapping[str, str]) -> dict[str, Any]:
    """What the record says about the machine the agent ran on, seen from that machine
    (a Ray worker computes them there): platform, Node/npm on the agent's PATH, time zone."""
    os_name, arch, warnings = _platform()
    node_version, npm_version, node_warnings = node_versions(env.get("PATH"))
    return {"platform": {"os": os_name, "arch": arch, "node_version": node_version,
                         "npm_version": npm_version},
            "timezone": _timezone(env), "warnings": warnings + node_warnings}


def build_record(*, config: NodeConfig, env: Mapping[str, str], agent_run_id: str,
                 started_at: str, completed_at: str, exit_code: int, timed_out: bool,
                 oom_killed: bool, secret_patterns: Sequence[str] = (),
                 host: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The runner record of one agent run, as a JSON object (the shape of
    :class:`desktop.contract.runner.Runner`). ``host``: :func:`host_facts` of the
    machine the agent ran on, plus its ``host_id`` (default: this machine's facts)."""
    box = config.sandbox or Sandbox()
    isolated = box.isolated
    facts = dict(host) if host is not None else host_facts(env)
    warnings: list[str] = [str(w) for w in facts.get("warnings") or []]
    start, end = _millis(started_at), _millis(completed_at)
    record = {
        "runner_schema_version": "1.0.0",
        "runner_id": new_runner_id(start),
        "runner_version": __version__,
        "platform": dict(facts["platform"]),
        "sandbox": {"backend": "process" if isolated else "none",
                    "isolation_level": ("strict" if not box.network else "standard")
                    if isolated else "none",
                    "network_blocked": isolated and not box.network,
                    "filesystem_readonly": isolated},
        "limits": _limits(config, box, warnings),
        "commands": {"allowlist": [],
                     "blocklist": sorted(set(config.command_blocklist),
                                         key=utf16_key),
                     "shell": "cmd.exe" if os.name == "nt" else "/bin/sh"},
        "write_roots": sorted(set(box.write_roots or ["."]),
                              key=utf16_key) if isolated else ["."],
        "context": {"working_dir": ".",
                    "env_allowlist": visible_names(env, warnings, secret_patterns),
                    "locale": _locale(env, warnings),
                    "timezone": str(facts.get("timezone") or _timezone(env))},
        "timing": {"started_at": started_at, "completed_at": completed_at,
                   "duration_ms": round((end - start).total_seconds() * 1000)},
        "exit": _exit(exit_code, isolated=isolated, timed_out=timed_out,
                      oom_killed=oom_killed, warnings=warnings),
        "ephemeral": {"session_id": agent_run_id},
    }
    if facts.get("host_id"):
        record["ephemeral"]["host_id"] = str(facts["host_id"])
    if not isolated:
        warnings.append("sandbox backend none: nothing kept the agent's writes inside "
                        "write_roots or its network off")
    if warnings:
        record["warnings"] = sorted(set(warnings), key=utf16_key)
    return record


def write_record(path: Path, record: dict[str, Any]) -> tuple[str, list[str]]:
    """Write ``record`` canonically and atomically; its hash, and the RN rules it breaks
    (written anyway, like run-info.yaml, so what happened is never lost)."""
    digest = write_runner(path, record)
    found = verify(record, record_bytes(record)).violations
    return digest, [f"{v.rule_id} {v.path}: {v.message}" for v in found]
