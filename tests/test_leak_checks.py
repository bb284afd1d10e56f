"""The suite's leak checks: a file, a subprocess transport or a task left for the collector
fails the run (pyproject.toml's warning filters and tests/conftest.py)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LEAKY = '''
import asyncio
import sys


def test_clean(tmp_path):
    with open(tmp_path / "f", "w") as fh:
        fh.write("x")


def test_leaks_a_file(tmp_path):
    fh = open(tmp_path / "f", "w")
    cycle = [fh]
    cycle.append(cycle)  # only the collector can free it


async def test_leaks_a_subprocess_transport():
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass",
                                                stdout=asyncio.subprocess.PIPE)
    assert proc.pid  # neither waited for nor closed before the test's loop closes


def test_leaves_a_task_pending():
    loop = asyncio.new_event_loop()

    async def start_and_forget():
        asyncio.ensure_future(asyncio.Event().wait())
        await asyncio.sleep(0)

    loop.run_until_complete(start_and_forget())
    loop.close()
'''


def test_leaked_files_transports_and_tasks_fail_the_run(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    out = subprocess.run(
        # a basetemp of its own: under /tmp/pytest-of-USER it would delete all but the
        # newest three runs' folders there, another suite's in use among them, first
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
         str(tmp_path), "--basetemp", str(tmp_path / "basetemp"), "-p", "no:cacheprovider",
         "-q", "-rA", str(tmp_path / "test_leaky.py")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 1, out.stdout[-3000:]
    summary = [line for line in out.stdout.splitlines()
               if line.startswith(("PASSED ", "FAILED ", "ERROR "))]
    assert any(line.startswith("ERROR test_leaky.py::test_leaks_a_file - pytest.PytestUnrais")
               for line in summary), summary
    assert any(line.startswith("ERROR test_leaky.py::test_leaves_a_task_pending - Failed: a t")
               for line in summary), summary
    # a leaked transport is finalised once its process is reaped, in whatever test runs then
    assert "BaseSubprocessTransport.__del__" in out.stdout + out.stderr
    assert "PASSED test_leaky.py::test_clean" in summary
