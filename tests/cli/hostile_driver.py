"""Run ``agent-canvas`` commands, one forked child each, and report how each ended.

Usage: ``python hostile_driver.py CASES.json RESULTS.json``. CASES is a list of argv
lists. The program is imported once and forked per case (a fresh interpreter per case
would cost a second each); each child's exit code, CPU seconds, peak memory (from
``wait4``) and stderr are written to RESULTS. A child still running after
``DEADLINE`` seconds is killed and reported as such.
"""

import json
import os
import signal
import sys
import tempfile
import time
import traceback

DEADLINE = 60.0


def _child(argv: list[str], err_fd: int, out_fd: int) -> None:
    os.setsid()  # its own group, so a deadline kill takes its agents too
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    code = 70
    try:
        from desktop.cli import main

        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_case(argv: list[str]) -> dict:
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        pid = os.fork()
        if pid == 0:
            _child(argv, err.fileno(), out.fileno())
        start = time.monotonic()
        killed = False
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > DEADLINE:
                killed = True
                os.killpg(pid, signal.SIGKILL)
                done, status, usage = os.wait4(pid, 0)
                break
            time.sleep(0.01)
        err.seek(0)
        out.seek(0)
        return {
            "argv": argv,
            "exit": os.waitstatus_to_exitcode(status),
            "killed": killed,
            "cpu": usage.ru_utime + usage.ru_stime,
            "maxrss_mb": usage.ru_maxrss / 1024,
            "stderr": err.read().decode("utf-8", "replace")[-20_000:],
            "stdout": out.read().decode("utf-8", "replace")[-2_000:],
        }


def main() -> None:
    with open(sys.argv[1]) as fh:
        cases = json.load(fh)
    # Import what the commands need once, before forking.
    import desktop.cli  # noqa: F401
    from desktop.cli import load

    for name in {argv[0] for argv in cases}:
        load(name)
    results = [run_case(argv) for argv in cases]
    with open(sys.argv[2], "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    main()
