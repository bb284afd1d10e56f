"""Each runner failure class produced for real, with its body kept per the contract."""

import stat
from pathlib import Path

import orjson

from desktop.contract.artifacts import RunLimits
from desktop.providers.fakeserver import FakeModelServer, Script
from tests.eval.evalkit import assert_contract, case_file, flow, run, suite, version_dirs

SAY = [{"say": "All done."}, {"done": True}]


def _version(out: Path, side: str = "new") -> Path:
    return version_dirs(out, side)[0]


async def test_a_case_that_exceeds_its_time_is_a_timeout(tmp_path: Path) -> None:
    # 5 s: the baseline (an engine and a scripted agent process) must finish within it
    # even on a loaded machine; the new side hangs and is cut at it
    s = suite(tmp_path / "s.suite.yaml", [{"id": "slow", "task": "t", "timeoutSec": 5}])
    base = flow(tmp_path / "base.flow.yaml", SAY)
    new = flow(tmp_path / "new.flow.yaml", [{"say": "thinking"}, {"hang": True}])
    out = await run(s, base, new, tmp_path / "out", retries=1, backoff_sec=0.01)
    case = case_file(out, "new", "slow")
    failure = case["runner_failure"]
    assert case["status"] == "runner_error" and failure["class"] == "timeout"
    assert failure["timeout_ms"] == 5000 and failure["body_snippet"] is None
    assert failure["full_body_saved_to"] is None and failure["attempt"] == 2
    assert [a["error_class"] for a in case["attempts"]] == ["timeout", "timeout"]
    assert [a["attempt"] for a in case["attempts"]] == [1, 2]
    assert case_file(out, "baseline", "slow")["status"] == "ok"
    assert_contract(_version(out))


async def test_rest_provider_http_500_keeps_the_whole_body(tmp_path: Path, monkeypatch) -> None:
    message = "upstream exploded " + "x" * 5000
    script = Script.from_data([{"error": {"status": 500, "message": message}}])
    limits = RunLimits(max_body_bytes=3000, max_inline_snippet_bytes=100,
                       max_payload_inline_bytes=4096)
    async with FakeModelServer(script) as server:
        monkeypatch.setenv("XAI_API_KEY", "test-key-not-secret")
        monkeypatch.setenv("XAI_BASE_URL", server.url)
        s = suite(tmp_path / "s.suite.yaml", [{"id": "ask", "task": "say hello"}])
        base = flow(tmp_path / "base.flow.yaml", SAY)
        new = flow(tmp_path / "new.flow.yaml", None, provider="xai",
                   envAllowlist=["XAI_BASE_URL"])
        out = await run(s, base, new, tmp_path / "out", limits=limits)
    version = _version(out)
    case = case_file(out, "new", "ask")
    failure = case["runner_failure"]
    assert (failure["class"], failure["status"]) == ("http_error", 500)
    assert failure["url"] == server.url and failure["status_text"] == "Internal Server Error"
    assert len(failure["body_snippet"].encode()) <= 100
    assert failure["body_snippet"].startswith('{"error"') and failure["body_snippet_truncated"]
    body = (version / failure["full_body_saved_to"]).read_bytes()
    meta = orjson.loads((version / failure["full_body_meta_saved_to"]).read_bytes())
    assert len(body) == 3000 and body.startswith(b'{"error": {"message": "upstream exploded')
    assert meta["truncated"] is True and meta["bytes_written"] == 3000
    assert meta["bytes_total"] > 5000 and meta["class"] == "http_error"
    assert orjson.loads((version / "run.json").read_bytes())["base_url"] == server.url
    assert "test-key-not-secret" not in repr(case)
    assert_contract(version)
    from desktop.eval.report import write_report

    html = write_report(out).read_text()
    assert "runner error: http_error (HTTP 500 Internal Server Error)" in html
    assert f'href="new/{version.name}/assets/ask/full_body.txt"' in html


async def test_an_endpoint_that_cannot_be_reached_is_a_network_error(
        tmp_path: Path, monkeypatch) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("XAI_API_KEY", "test-key-not-secret")
    monkeypatch.setenv("XAI_BASE_URL", f"http://127.0.0.1:{port}")
    s = suite(tmp_path / "s.suite.yaml", [{"id": "ask", "task": "say hello"}])
    base = flow(tmp_path / "base.flow.yaml", SAY)
    new = flow(tmp_path / "new.flow.yaml", None, provider="xai", envAllowlist=["XAI_BASE_URL"])
    out = await run(s, base, new, tmp_path / "out", retries=1, backoff_sec=0.01)
    case = case_file(out, "new", "ask")
    assert case["runner_failure"]["class"] == "network_error"
    assert case["runner_failure"]["url"] == f"http://127.0.0.1:{port}"
    assert [a["error_class"] for a in case["attempts"]] == ["network_error"] * 2
    assert_contract(_version(out))


async def test_an_agent_printing_non_json_on_a_json_stream(tmp_path: Path) -> None:
    fake = tmp_path / "fake-claude"
    fake.write_text("#!/bin/sh\necho 'Welcome to the agent!'\necho '{\"type\": broken'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    s = suite(tmp_path / "s.suite.yaml", [{"id": "ask", "task": "say hello"}])
    base = flow(tmp_path / "base.flow.yaml", SAY)
    new = flow(tmp_path / "new.flow.yaml", None, provider="claude", command=str(fake))
    out = await run(s, base, new, tmp_path / "out")
    version = _version(out)
    failure = case_file(out, "new", "ask")["runner_failure"]
    assert failure["class"] == "invalid_json"
    assert "Welcome to the agent!" in failure["body_snippet"]
    assert (version / failure["full_body_saved_to"]).read_text().startswith("Welcome")
    assert_contract(version)


async def test_an_agent_that_fails_is_other_with_its_stderr(tmp_path: Path) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "ask", "task": "t"}])
    base = flow(tmp_path / "base.flow.yaml", SAY)
    new = flow(tmp_path / "new.flow.yaml", [{"fail": "cannot find the config file"}])
    out = await run(s, base, new, tmp_path / "out", retries=2, backoff_sec=0.01)
    case = case_file(out, "new", "ask")
    assert len(case["attempts"]) == 1  # `other` is not a class the retry policy lists
    failure = case["runner_failure"]
    assert failure["class"] == "other" and "cannot find the config file" in \
        failure["body_snippet"]
    assert_contract(_version(out))


async def test_a_run_waiting_for_approval_is_stopped_not_hung(tmp_path: Path) -> None:
    s = suite(tmp_path / "s.suite.yaml", [{"id": "ask", "task": "t", "timeoutSec": 60}])
    base = flow(tmp_path / "base.flow.yaml", SAY)
    new = tmp_path / "new.flow.yaml"
    flow(new, [{"shell": "ls"}, *SAY])
    text = new.read_text().replace("provider: scripted",
                                   "provider: scripted\n  permissions:\n"
                                   "    cliPermissionsMode: gated")
    new.write_text(text)
    out = await run(s, base, new, tmp_path / "out")
    case = case_file(out, "new", "ask")
    assert case["runner_failure"]["class"] == "other"
    assert "waited for a person" in case["runner_failure"]["error_message"]
