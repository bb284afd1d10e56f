"""AgentProcess: group kill leaves nothing behind; hostile output never breaks the reader."""

import asyncio
import os
import sys
from pathlib import Path

import pytest

from desktop.providers.process import AgentProcess, group_members, pid_alive
from desktop.providers.redact import Redactor

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

PY = sys.executable


def _env() -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


async def _collect(proc: AgentProcess) -> list[tuple[str, str]]:
    return [item async for item in proc.output()]


async def _grandchildren(pid_file: Path) -> list[int]:
    for _ in range(200):  # wait until the script has written its children's pids
        if pid_file.is_file() and pid_file.read_text().count("\n") >= 2:
            break
        await asyncio.sleep(0.02)
    return [int(x) for x in pid_file.read_text().split()]


async def test_terminate_kills_whole_group_including_grandchildren(tmp_path: Path):
    pids = tmp_path / "pids"
    script = f"sleep 100 & echo $! >> {pids}; sleep 100 & echo $! >> {pids}; wait"
    proc = AgentProcess(["sh", "-c", script], cwd=tmp_path, env=_env(), grace=0.5)
    await proc.start()
    children = await _grandchildren(pids)
    assert all(pid_alive(p) for p in children)
    assert len(group_members(proc.pgid)) >= 3
    await proc.terminate()
    code = await proc.wait()
    assert code != 0 and proc.killed
    assert group_members(proc.pgid) == []
    assert not any(pid_alive(p) for p in children)


async def test_sigterm_ignored_then_sigkill(tmp_path: Path):
    code = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('up', flush=True); time.sleep(100)")
    proc = AgentProcess([PY, "-c", code], cwd=tmp_path, env=_env(), grace=0.3)
    await proc.start()
    async for line in proc.lines():
        assert line == "up"
        break
    await proc.terminate()
    await proc.wait()
    assert group_members(proc.pgid) == []


async def test_leftover_background_child_is_reaped_after_normal_exit(tmp_path: Path):
    pids = tmp_path / "pids"
    script = f"sleep 100 & echo $! >> {pids}; echo >> {pids}; echo done"
    proc = AgentProcess(["sh", "-c", script], cwd=tmp_path, env=_env(), grace=0.5)
    await proc.start()
    lines = await _collect(proc)
    assert ("stdout", "done") in lines
    assert await proc.wait() == 0
    child = (await _grandchildren(pids))[0]
    assert not pid_alive(child)
    assert group_members(proc.pgid) == []


async def test_huge_line_invalid_utf8_and_garbage(tmp_path: Path):
    code = (
        "import sys; w=sys.stdout.buffer.write;"
        "w(b'x'*(11*1024*1024)+b'\\n'); w(b'\\xff\\xfe bad \\xc3\\n');"
        "w(b'\\x00\\x01{not json\\n');"
        "w(b'tail-without-newline')"
    )
    out = tmp_path / "out.txt"
    proc = AgentProcess([PY, "-c", code], cwd=tmp_path, env=_env(), stdout_path=out)
    await proc.start()
    lines = [line for stream, line in await _collect(proc) if stream == "stdout"]
    assert await proc.wait() == 0
    assert len(lines[0]) == 11 * 1024 * 1024
    assert "bad" in lines[1] and "\ufffd" in lines[1]
    assert lines[2].endswith("{not json")
    assert lines[3] == "tail-without-newline"
    assert out.stat().st_size > 11 * 1024 * 1024  # the raw copy is complete


async def test_line_longer_than_cap_is_truncated_not_fatal(tmp_path: Path):
    code = "import sys; sys.stdout.write('y'*300000+'\\nnext\\n')"
    proc = AgentProcess([PY, "-c", code], cwd=tmp_path, env=_env(), max_line_bytes=100_000)
    await proc.start()
    lines = [line for _, line in await _collect(proc)]
    await proc.wait()
    assert lines[0].endswith("[line truncated]") and len(lines[0]) < 300000
    assert lines[-1] == "next"


async def test_output_limit_stops_the_agent(tmp_path: Path):
    code = "import sys\nwhile True: sys.stdout.write('z'*1000+'\\n')"
    proc = AgentProcess([PY, "-c", code], cwd=tmp_path, env=_env(), max_output_bytes=200_000,
                        grace=0.5)
    await proc.start()
    await _collect(proc)
    await proc.wait()
    assert proc.output_limit_exceeded
    assert group_members(proc.pgid) == []


async def test_stdin_prompt_stderr_and_redaction(tmp_path: Path):
    secret = "sk-canary-123456789"
    code = ("import sys; data=sys.stdin.read(); print(data.upper()); "
            f"print('key {secret}'); print('oops', file=sys.stderr)")
    out, err = tmp_path / "o.txt", tmp_path / "e.txt"
    proc = AgentProcess([PY, "-c", code], cwd=tmp_path, env=_env(), stdin_data=b"hello",
                        stdout_path=out, stderr_path=err, redactor=Redactor([secret]))
    await proc.start()
    items = await _collect(proc)
    assert await proc.wait() == 0
    assert ("stdout", "HELLO") in items and ("stderr", "oops") in items
    assert ("stdout", "key [REDACTED]") in items
    assert secret not in out.read_text() and "oops" in err.read_text()


async def test_missing_program_raises_oserror(tmp_path: Path):
    proc = AgentProcess(["/no/such/agent-binary"], cwd=tmp_path, env=_env())
    with pytest.raises(OSError):
        await proc.start()
