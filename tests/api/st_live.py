"""Schemathesis against a live `agent-canvas serve`: the command line both tiers run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from service_process import ServeProcess

CONFIG = Path(__file__).with_name("schemathesis.toml")


def schemathesis(data_dir: Path, *options: str, timeout: float) -> tuple[int, str, str]:
    """Run ``st run`` with ``options`` against a fresh service; (exit code, what it printed,
    the service's log)."""
    service = ServeProcess(data_dir)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "--no-color",
             "run", f"{service.url}/api/openapi.json",
             "-H", f"Authorization: Bearer {service.token}", *options],
            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            cwd=data_dir.parent, check=False)  # its .schemathesis cache goes there
    finally:
        service.stop()
    return done.returncode, done.stdout + done.stderr, service.log()


if __name__ == "__main__":  # make test-api: the longer run, stateful phase included
    import tempfile

    with tempfile.TemporaryDirectory(prefix="agent-canvas-st-") as tmp:
        code, printed, log = schemathesis(Path(tmp) / "data", *sys.argv[1:], timeout=3600)
    print(printed[-20000:])
    if "Traceback" in log:
        print("the service logged a traceback:\n" + log[-5000:])
        code = code or 1
    sys.exit(code)
