"""`agent-canvas runs result|apply`: a run's result branch, and taking it into your repository.

  agent-canvas runs result RUN                 the result branch and the files it changes
  agent-canvas runs result RUN --diff FILE     one file's diff against the run's base
  agent-canvas runs apply RUN --check          would it apply? which files collide?
  agent-canvas runs apply RUN                  onto your working tree (a three-way merge)
  agent-canvas runs apply RUN --branch NAME    as a new branch on your HEAD
  agent-canvas runs apply RUN --file a.py --file b.py    only the files you accept
  agent-canvas runs apply RUN --branch NAME --pull-request   and open a pull request (gh)
  agent-canvas runs apply RUN --undo           put back what the last apply to your
                                               working tree changed (--check: say what)
  agent-canvas runs apply RUN --allow-secrets  apply a result that holds a secret value

A result whose files hold the value of a secret an agent was given (an API key from
your environment or keychain, written into a .env, say) is refused, naming each file
and the secret's name: take the value out of the file on the result's branch, or leave
the file out (--file the others), or pass --allow-secrets.

Your uncommitted changes are never overwritten: a file whose change collides with
yours stops the whole application, and nothing is changed. An application to your
working tree can be undone (latest first) until the run is deleted: the files it
changed go back as they were, an edit you made since elsewhere stays, and one that
collides with what undo puts back stops it, changing nothing.

One apply of a run at a time: while another is under way (in a terminal, the app or
a service) this one is refused at once and changes nothing (--check is not).

A run is applied once it has ended (or is paused): while its engine still works on it,
its result is not whole, and apply (and --check) refuses it, changing nothing.

Exit codes: 0 applied or undone (or, with --check, it would be), 1 it collides (the
files are listed), it holds a secret (the files and names are listed) or there was
nothing to apply or undo, 2 a run that cannot be used
(or is still running), another apply of it under way, or bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import orjson

from desktop.cli.server_args import RemoteError, add_server_options, client_for
from desktop.disk.paths import data_dir
from desktop.runtime.git_run import GitError
from desktop.runtime.result_apply import apply_result
from desktop.runtime.result_pr import open_pull_request, pull_request_blocker
from desktop.runtime.result_undo import NothingToUndo, undo_apply
from desktop.runtime.run_result import ResultError, file_patch, find_place, find_result
from desktop.store.applied import UNDER_WAY
from desktop.store.runs import RunError, find_run
from desktop.wording import plural


def register(kids: argparse._SubParsersAction, add_data_dir: Any) -> None:
    """Add ``runs result`` and ``runs apply``."""
    rp = kids.add_parser("result", help="a run's result branch and the files it changes",
                         description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_data_dir(rp, suppress=True)
    rp.add_argument("run", metavar="RUN", help="run id, unique id prefix or run folder")
    rp.add_argument("--diff", metavar="FILE", help="print this file's diff against the base")
    rp.add_argument("--json", action="store_true", help="print JSON")
    add_server_options(rp)
    rp.set_defaults(handler=cmd_result)
    ap = kids.add_parser("apply", help="apply a run's result to your working tree or as a "
                         "branch", description=__doc__,
                         formatter_class=argparse.RawTextHelpFormatter)
    add_data_dir(ap, suppress=True)
    ap.add_argument("run", metavar="RUN", help="run id, unique id prefix or run folder")
    ap.add_argument("--branch", metavar="NAME", help="create branch NAME on your HEAD instead "
                    "of changing your working tree")
    ap.add_argument("--check", action="store_true", help="say what it would do; change nothing")
    ap.add_argument("--file", dest="files", action="append", metavar="FILE",
                    help="apply only this file (repeat for more); default: every file")
    ap.add_argument("--pull-request", action="store_true",
                    help="with --branch: push it and open a pull request with gh")
    ap.add_argument("--undo", action="store_true", help="undo the latest application to "
                    "your working tree")
    ap.add_argument("--allow-secrets", action="store_true", help="apply even files that "
                    "hold the value of a secret an agent was given (refused without it)")
    ap.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_server_options(ap)
    ap.set_defaults(handler=cmd_apply)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _print_json(obj: object) -> None:
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode() + "\n")


async def _remote(args: argparse.Namespace, call: str, **kwargs: Any) -> Any:
    from desktop.cli.remote import find_run_id

    async with client_for(args) as client:
        run_id = await find_run_id(client, args.run)
        return await getattr(client, call)(run_id, **kwargs)


def _result_json(args: argparse.Namespace) -> dict[str, Any]:
    if args.server:
        return asyncio.run(_remote(args, "result"))
    found = find_result(find_run(data_dir(args.data_dir), args.run))
    return {**found.to_json(), "pullRequest": pull_request_blocker(found.repo)}


def cmd_result(args: argparse.Namespace) -> int:
    """Print the run's result branch and files (or one file's diff)."""
    from desktop.api.client import ApiError

    try:
        if args.diff and args.server:
            print(asyncio.run(_remote(args, "result_diff", path=args.diff)), end="")
            return 0
        if args.diff:
            found = find_result(find_run(data_dir(args.data_dir), args.run))
            print(file_patch(found, args.diff), end="")
            return 0
        body = _result_json(args)
    except (RunError, ResultError, GitError, RemoteError, ApiError) as exc:
        return _fail(str(exc))
    if args.json:
        _print_json(body)
        return 0
    print(f"result of run {body['runId'][:8]}: branch {body['branch']} (node {body['node']})"
          f" in {body['repo']}")
    print(f"against the run's base {body['base'][:12]}: {plural(len(body['files']), 'file')}")
    for f in body["files"]:
        print(f"  {f['status']:<9} {f['path']}")
    for record in body["applied"]:
        where = f"branch {record.get('branch')}" if record.get("target") == "branch" \
            else "the working tree"
        undone = f" (undone at {record['undone']})" if record.get("undone") else \
            f" (cut short, perhaps after only some of them: `agent-canvas runs apply " \
            f"{body['runId'][:8]} --undo` puts them back)" if record.get(UNDER_WAY) else ""
        print(f"applied to {where} at {record.get('at')}: "
              f"{plural(len(record.get('files', [])), 'file')}{undone}")
    return 0


def _undo(args: argparse.Namespace) -> dict[str, Any]:
    if args.server:
        return asyncio.run(_remote(args, "undo_apply", check=args.check))
    found = find_place(find_run(data_dir(args.data_dir), args.run))
    return undo_apply(found, check=args.check).to_json()


def _apply(args: argparse.Namespace) -> dict[str, Any]:
    if args.undo:
        return _undo(args)
    if args.server:
        if args.pull_request:  # said before anything is applied
            blocker = asyncio.run(_remote(args, "result")).get("pullRequest")
            if blocker:
                raise ResultError(f"cannot open a pull request: {blocker}")
        outcome = asyncio.run(_remote(args, "apply", files=args.files, branch=args.branch,
                                      check=args.check, allow_secrets=args.allow_secrets))
        if args.pull_request and outcome.get("applied"):
            outcome["pullRequest"] = asyncio.run(_remote(args, "pull_request",
                                                         branch=args.branch))
        return outcome
    found = find_result(find_run(data_dir(args.data_dir), args.run))
    blocker = pull_request_blocker(found.repo) if args.pull_request else None
    if blocker:
        raise ResultError(f"cannot open a pull request: {blocker}")
    outcome = apply_result(found, files=args.files, branch=args.branch,
                           check=args.check, allow_secrets=args.allow_secrets).to_json()
    if args.pull_request and outcome["applied"]:
        url, remote = open_pull_request(found, args.branch)
        outcome["pullRequest"] = {"url": url, "remote": remote}
    return outcome


def cmd_apply(args: argparse.Namespace) -> int:
    """Apply the run's result; exit 1 when it collides or there is nothing to apply."""
    from desktop.api.client import ApiError

    if args.pull_request and not args.branch:
        return _fail("--pull-request needs --branch NAME (the branch to push)")
    if args.undo and (args.branch is not None or args.files or args.pull_request
                      or args.allow_secrets):
        return _fail("--undo takes back the latest apply to your working tree whole: give it "
                     "no --branch, --file, --pull-request or --allow-secrets")
    try:
        outcome = _apply(args)
    except ApiError as exc:
        if exc.code == "nothing_to_undo":
            print(exc.message)
            return 1
        if exc.code in ("apply_collides", "undo_collides"):
            outcome = {"applied": False, "collisions": exc.problems, "files": [],
                       "message": exc.message}
        elif exc.code == "result_has_secrets":
            outcome = {"applied": False, "collisions": [], "files": [],
                       "secrets": [{"path": p} for p in exc.problems], "message": exc.message}
        else:
            return _fail(str(exc))
    except NothingToUndo as exc:
        print(exc)
        return 1
    except (RunError, ResultError, GitError, RemoteError) as exc:
        return _fail(str(exc))
    if args.json:
        _print_json(outcome)
    else:
        print(outcome["message"])
        for path in outcome.get("collisions") or []:
            print(f"  collides: {path}")
        for found in outcome.get("secrets") or []:
            named = f" ({found['name']})" if found.get("name") else ""
            print(f"  holds a secret: {found['path']}{named}")
        for path in outcome.get("files") or []:
            print(f"  {'would change' if args.check else 'changed'}: {path}")
        if args.undo and outcome.get("collisions"):
            print("  take the apply's change out of those files by hand, or put them back as "
                  "the apply left them and undo again")
        if outcome.get("pullRequest"):
            print(f"pull request: {outcome['pullRequest']['url']}")
    if outcome.get("collisions") or outcome.get("secrets"):
        return 1
    return 0 if outcome.get("applied") or (args.check and outcome.get("files")) else 1
