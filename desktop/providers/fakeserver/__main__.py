"""``agent-canvas _fake-model-server SCRIPT [--port N] [--log FILE]``: serve until ^C."""

import argparse
import asyncio
import sys
from pathlib import Path

from desktop.providers.fakeserver import FakeModelServer, Script, ScriptError


async def _serve(script: Script, port: int, log: Path | None) -> None:
    async with FakeModelServer(script, port=port, log_path=log) as server:
        print(f"fake model server on {server.url}", flush=True)
        await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agent-canvas _fake-model-server")
    parser.add_argument("script", type=Path, help="replies file (YAML or JSON)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, default=None, help="append requests here (JSONL)")
    args = parser.parse_args(argv)
    try:
        script = Script.load(args.script)
    except ScriptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_serve(script, args.port, args.log))
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
