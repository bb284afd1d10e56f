"""``agent-canvas rehearse FILE``: dry-run a workflow's real agent CLIs on scripted model replies.

The replies live next to the workflow in ``<name>.rehearsal.yaml`` (or
``--script``), keyed by node id::

    agents:
      planner: [{text: "Plan: ..."}]
      coder:   [{shell: "make test"}, {text: "Tests pass."}]

A local fake model server plays them; Claude Code, Codex and Gemini CLI run
for real (from ``.agents-cache`` or PATH) in a private home with no API key,
so nothing is spent. Options and exit codes are those of ``run``.
"""

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from desktop.cli import run as run_cmd
from desktop.cli.workflow_arg import given_workflow
from desktop.disk.paths import data_dir
from desktop.wording import plural

PROJECT_BIN = Path(__file__).resolve().parents[2] / ".agents-cache" / "node_modules" / ".bin"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rehearse`` subcommand."""
    p = sub.add_parser("rehearse", help="dry-run a workflow's agents on scripted model replies",
                       description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("file", metavar="FILE", type=given_workflow, help="a *.flow.yaml workflow")
    p.add_argument("--script", type=Path, default=None,
                   help="replies file (default: <workflow>.rehearsal.yaml beside it)")
    p.add_argument("--agents-bin", type=Path, default=None,
                   help="folder holding claude, codex, gemini (default: .agents-cache or PATH)")
    run_cmd._common(p)
    p.set_defaults(handler=rehearse_command)


def script_path(workflow: Path) -> Path:
    """``x.flow.yaml`` -> ``x.rehearsal.yaml`` in the same folder."""
    name = workflow.name
    for suffix in (".flow.yaml", ".flow.yml", ".yaml", ".yml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return workflow.with_name(f"{name}.rehearsal.yaml")


def rehearse_command(args: argparse.Namespace) -> int:
    from desktop.cli.workflow_arg import not_a_file
    from desktop.graph.validate import check_file
    from desktop.providers.fakeserver import Script, ScriptError

    path = Path(args.file)
    missing = not_a_file(path)
    if missing:
        print(missing, file=sys.stderr)
        return run_cmd.EXIT_BAD_INPUT
    # the workflow first (the file the user named), then its replies: both are said when
    # both are wrong, so one try shows everything to fix
    doc, problems = check_file(str(path))
    errors = [p for p in problems if p.is_error]
    for problem in problems:
        print(str(problem), file=sys.stderr)
    if doc is None or errors:
        print(f"{path}: invalid workflow ({plural(len(errors), 'error')})", file=sys.stderr)
    replies = args.script or script_path(path)
    try:
        script = Script.load(replies)
    except ScriptError as exc:
        print(f"error: {exc}\n(write scripted replies per node id in {replies})",
              file=sys.stderr)
        return run_cmd.EXIT_BAD_INPUT
    if doc is None or errors:
        return run_cmd.EXIT_BAD_INPUT
    bin_dir = args.agents_bin or (PROJECT_BIN if PROJECT_BIN.is_dir() else None)
    return asyncio.run(_rehearse(doc, path, script, bin_dir, args))


async def _rehearse(doc, path: Path, script, bin_dir: Path | None,
                    args: argparse.Namespace) -> int:
    from desktop.providers import registry
    from desktop.providers.agents_builtin import register_agents
    from desktop.providers.fakeserver import FakeModelServer
    from desktop.providers.offline import OfflineSetup
    from desktop.runtime.recovery import create_run
    from desktop.runtime.run_setup import SetupError

    with tempfile.TemporaryDirectory(prefix="ac-rehearse-") as home:
        async with FakeModelServer(script) as server:
            registry.available()
            register_agents(registry.register,
                            offline=OfflineSetup(server.url, Path(home)).prepare(),
                            bin_dir=bin_dir)
            try:
                engine = create_run(doc, data_dir(args.data_dir), mode=args.mode,
                                    global_mode=args.global_mode,
                                    workflow_path=str(path.resolve()),
                                    options=run_cmd._options(args))
            except (SetupError, ValueError) as exc:
                print(f"{path}: {exc}", file=sys.stderr)
                return run_cmd.EXIT_BAD_INPUT
            return await run_cmd.drive(engine, args, after_seq=0)
