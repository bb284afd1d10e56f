"""Every agent run writes a runner.json that verifies, says what really happened and
holds no secret; the run's state and events carry its hash."""

import asyncio
import os
import sys
from pathlib import Path

import pytest
from engine_helpers import events_of

from desktop.contract.runner import Runner
from desktop.contract.sandbox import Sandbox
from desktop.contract.state import Limits
from desktop.graph.io import load_workflow
from desktop.runtime import runner_record, sandbox
from desktop.runtime.engine import EngineOptions
from desktop.runtime.recovery import create_run
from desktop.runtime.turn import TurnRunner
from desktop.store.runner import canonical, runner_hash
from desktop.store.runner_verify import parse, verify
from tests.runtime.test_turn import folder, make_ctx

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process groups")
EXAMPLES = sorted((Path(__file__).parents[2] / "resources" / "examples").glob("*.flow.yaml"))
CANARY = "canary-7f3a9c-do-not-leak"


def read_record(path: Path) -> dict:
    raw = path.read_bytes()
    record = parse(raw)
    result = verify(record, raw)
    assert result.ok, result.output()
    assert raw == canonical(record) + b"\n"  # written as the Motherlabs kernel writes it
    Runner.model_validate(record)  # the contract model agrees with the rules
    return record


def records_of(run_dir: Path) -> dict[str, dict]:
    return {p.parent.name: read_record(p) for p in sorted(run_dir.glob("agents/*/runner.json"))}


async def test_a_plain_run_records_no_sandbox_and_its_exit(tmp_path: Path):
    ctx, events, _ = make_ctx(tmp_path, [{"say": "hi"}, {"fail": "stopping"}],
                              commandBlocklist=["rm -rf", "curl"])
    result = await TurnRunner().run(ctx)
    record = read_record(folder(ctx, result) / "runner.json")
    assert record["sandbox"] == {"backend": "none", "isolation_level": "none",
                                 "network_blocked": False, "filesystem_readonly": False}
    assert record["exit"] == {"code": 1, "oom_killed": False, "timeout_killed": False}
    assert record["commands"]["blocklist"] == ["curl", "rm -rf"]
    assert record["write_roots"] == ["."] and record["context"]["working_dir"] == "."
    assert any("backend none" in w for w in record["warnings"])
    assert record["ephemeral"] == {"session_id": result.agent_run_id}
    [artifact] = [e["artifact"] for e in events if e["type"] == "artifact.created"
                  and e["artifact"]["name"] == "runner.json"]
    assert artifact["runnerHash"] == runner_hash(record)
    assert artifact["agentRunId"] == result.agent_run_id and artifact["sandbox"] == "none"


async def test_a_sandboxed_run_records_its_sandbox_and_limits(tmp_path: Path):
    if (problem := sandbox.bwrap_problem()) is not None:
        pytest.skip(f"bubblewrap cannot run here: {problem}")
    box = Sandbox.model_validate({
        "backend": "process", "network": False, "writeRoots": ["out", "build", "a/b"],
        "limits": {"timeoutSec": 90, "maxMemoryMb": 512, "maxCpuSec": 60,
                   "maxOutputFiles": 20, "maxOutputMb": 2}})
    ctx, _, _ = make_ctx(tmp_path, [{"say": "boxed"}], sandbox=box)
    result = await TurnRunner().run(ctx)
    record = read_record(folder(ctx, result) / "runner.json")
    assert record["sandbox"] == {"backend": "process", "isolation_level": "strict",
                                 "network_blocked": True, "filesystem_readonly": True}
    assert record["write_roots"] == ["a/b", "build", "out"]
    assert record["limits"] == {"timeout_ms": 90_000, "max_output_files": 20,
                                "max_total_output_bytes": 2 * 1024 * 1024,
                                "max_memory_bytes": 512 * 1024 * 1024, "max_cpu_seconds": 60}
    assert "TMPDIR" in record["context"]["env_allowlist"]


async def test_timeout_is_recorded_with_its_signal(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, [{"hang": True}], limits=Limits(timeoutSec=1.0))
    ctx.grace_sec = 0.5
    result = await TurnRunner().run(ctx)
    record = read_record(folder(ctx, result) / "runner.json")
    assert record["exit"]["timeout_killed"] is True and not record["exit"]["oom_killed"]
    assert record["exit"]["signal"] in ("SIGTERM", "SIGKILL")
    assert record["exit"]["code"] == 128 + {"SIGTERM": 15, "SIGKILL": 9}[record["exit"]["signal"]]
    assert record["limits"]["timeout_ms"] == 1000


async def test_limits_outside_the_spec_are_clamped_with_a_warning(tmp_path: Path):
    ctx, _, _ = make_ctx(tmp_path, [{"say": "x"}], limits=Limits(timeoutSec=0.5))
    result = await TurnRunner().run(ctx)
    record = read_record(folder(ctx, result) / "runner.json")
    assert record["limits"]["timeout_ms"] == 1000
    assert "limits.timeout_ms: 500 clamped to 1000" in record["warnings"]
    assert any("no output limit" in w for w in record["warnings"])


async def test_a_canary_secret_never_reaches_the_record(tmp_path: Path, monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_SERVICE_TOKEN", "GIT_ASKPASS",
                 "PLAIN_SETTING"):
        monkeypatch.setenv(name, CANARY)
    ctx, _, _ = make_ctx(tmp_path, [{"shell": "env | grep -c canary-7f3a9c"}],
                         envAllowlist=["*"])
    result = await TurnRunner().run(ctx)
    raw = (folder(ctx, result) / "runner.json").read_bytes()
    assert CANARY.encode() not in raw
    record = read_record(folder(ctx, result) / "runner.json")
    names = record["context"]["env_allowlist"]
    assert "PLAIN_SETTING" in names and "PATH" in names
    assert not {"MY_SERVICE_TOKEN", "GIT_ASKPASS", "ANTHROPIC_API_KEY"} & set(names)
    [hidden] = [w for w in record["warnings"] if "not listed" in w]
    assert "MY_SERVICE_TOKEN" in hidden and "GIT_ASKPASS" in hidden


def test_the_providers_own_key_is_passed_but_not_listed():
    warnings: list[str] = []
    env = {"ANTHROPIC_API_KEY": CANARY, "PATH": "/bin", "GEMINI_API_KEY": CANARY}
    assert runner_record.visible_names(env, warnings) == ["PATH"]
    assert "ANTHROPIC_API_KEY" in warnings[0] and "GEMINI_API_KEY" in warnings[0]


def test_node_versions_fall_back_with_a_warning(tmp_path: Path):
    node, npm, warnings = runner_record.node_versions(str(tmp_path))
    assert (node, npm) == ("v0.0.0", "0.0.0") and len(warnings) == 2
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, version in (("node", "v20.1.2"), ("npm", "10.2.3")):
        script = fake / name
        script.write_text(f"#!/bin/sh\necho {version}\n")
        script.chmod(0o755)
    assert runner_record.node_versions(str(fake)) == ("v20.1.2", "10.2.3", [])


def test_npm_version_is_read_from_its_package_without_starting_it(tmp_path: Path):
    package = tmp_path / "lib" / "node_modules" / "npm"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "npm", "version": "10.9.2"}')
    cli = package / "bin" / "npm-cli.js"
    cli.write_text("#!/bin/sh\necho 9.9.9\n")  # what starting it would say
    cli.chmod(0o755)
    node = tmp_path / "bin" / "node"
    node.parent.mkdir()
    node.write_text("#!/bin/sh\necho v20.1.2\n")
    node.chmod(0o755)
    (tmp_path / "bin" / "npm").symlink_to(cli)
    assert runner_record.node_versions(str(tmp_path / "bin")) == ("v20.1.2", "10.9.2", [])


def test_an_npm_of_another_package_is_asked_for_its_version(tmp_path: Path):
    (tmp_path / "package.json").write_text('{"name": "wrapper", "version": "1.0.0"}')
    (tmp_path / "bin").mkdir()
    npm = tmp_path / "bin" / "npm"
    npm.write_text("#!/bin/sh\necho 10.2.3\n")
    npm.chmod(0o755)
    assert runner_record.node_versions(str(tmp_path / "bin"))[1] == "10.2.3"


def test_exit_codes_map_to_signals():
    def exit_of(code: int, **kw) -> dict:
        return runner_record._exit(code, isolated=kw.get("isolated", False),
                                   timed_out=False, oom_killed=kw.get("oom", False),
                                   warnings=[])
    assert exit_of(-9) == {"code": 137, "signal": "SIGKILL", "oom_killed": False,
                           "timeout_killed": False}
    assert exit_of(137) == {"code": 137, "oom_killed": False, "timeout_killed": False}
    assert exit_of(152, isolated=True)["signal"] == "SIGXCPU"
    assert exit_of(300)["code"] == 255


async def test_refused_node_still_writes_a_valid_record(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bubblewrap is not installed")
    ctx, _, _ = make_ctx(tmp_path, [{"say": "never"}],
                         sandbox=Sandbox.model_validate({"backend": "process"}))
    result = await TurnRunner().run(ctx)
    record = read_record(folder(ctx, result) / "runner.json")
    assert record["exit"]["code"] == 126 and record["sandbox"]["backend"] == "process"


@pytest.mark.parametrize("boxed", [False, True], ids=["plain", "sandboxed"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
async def test_every_example_writes_records_that_verify(example: Path, boxed: bool,
                                                        tmp_path: Path):
    doc = load_workflow(example)
    if boxed:
        if any(node.kind == "subflow" for node in doc.nodes):
            pytest.skip("the nodes inside a subflow take their sandbox from its own file")
        if (problem := sandbox.bwrap_problem()) is not None:
            pytest.skip(f"bubblewrap cannot run here: {problem}")
        for node in doc.nodes:
            cfg = doc.config(node.id)
            cfg.sandbox = Sandbox.model_validate({"backend": "process", "network": False,
                                                  "limits": {"maxMemoryMb": 1024}})
            doc.node_configs[node.id] = cfg
    engine = create_run(doc, tmp_path, options=EngineOptions())
    loop = asyncio.get_running_loop()
    engine.broker.subscribe(lambda pending: loop.call_soon(  # examples that gate a command
        engine.broker.resolve, pending.approval_id, "approved"))
    try:
        await asyncio.wait_for(engine.run(), 120)
    finally:
        engine.close()
    assert engine.state.status == "completed"
    records = records_of(engine.run_dir)
    assert records and set(records) == set(engine.state.runner_hashes)
    for agent_run_id, record in records.items():
        assert engine.state.runner_hashes[agent_run_id] == runner_hash(record)
        assert record["sandbox"]["backend"] == ("process" if boxed else "none")
    reported = [e for e in events_of(engine.run_dir) if e["type"] == "artifact.created"
                and e["artifact"]["name"] == "runner.json"]
    assert len(reported) == len(records)
    # an execution record, not a report: it must not travel in handoffs to other agents
    assert {e["artifact"]["kind"] for e in reported} == {"log"}
    runner_ids = {e["artifact"]["id"] for e in reported}
    for sent in (e for e in events_of(engine.run_dir) if e["type"] == "handoff.sent"):
        refs = {a.get("ref", "") for a in sent["envelope"]["payload"].get("artifacts", [])}
        assert not any(ref.rsplit("/", 1)[-1] in runner_ids for ref in refs)
    ids = [r["runner_id"] for r in records.values()]
    assert len(set(ids)) == len(ids)  # unique per execution


def test_python_platform_is_recorded_in_spec_names():
    os_name, arch, warnings = runner_record._platform()
    if sys.platform.startswith("linux"):
        assert os_name == "linux"
    assert warnings or arch in ("x64", "arm64", "ia32")


def test_the_users_secret_name_patterns_are_honoured():
    warnings: list[str] = []
    env = {"ACME_PIN": CANARY, "PATH": "/bin", "GITHUB_SHA": "abc"}
    assert runner_record.visible_names(env, warnings, ["*_PIN"]) == ["GITHUB_SHA", "PATH"]
    assert "ACME_PIN" in warnings[0]
