"""``--server URL`` and its token: the options of commands that can use a running service.

The token is the key to the service: every user of the machine can read a process's
arguments (``ps``), so it is taken from the environment (``AGENT_CANVAS_TOKEN``) or a
file (``--token-file PATH``), else from the data folder's ``server.json``. ``--token
VALUE`` still works, with a warning naming those.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.api.client import ApiClient


TOKEN_ENV = "AGENT_CANVAS_TOKEN"
"""The environment variable a client's token for ``--server`` comes from."""
ON_ARGV_WARNING = (f"warning: --token puts the service's token where every user of this "
                   f"machine can read it (ps); use {TOKEN_ENV}=TOKEN in the environment or "
                   "--token-file PATH instead")
_MAX_TOKEN_FILE = 64 * 1024


class RemoteError(Exception):
    """A --server problem for the user (bad url, no token, unknown run)."""


def add_server_options(p: argparse.ArgumentParser) -> None:
    """Add ``--server URL``, ``--token-file PATH`` and (discouraged) ``--token TOKEN``."""
    p.add_argument("--server", metavar="URL",
                   help="use a running `agent-canvas serve` (e.g. http://127.0.0.1:8765) "
                        "instead of an engine in this process; its token comes from "
                        f"{TOKEN_ENV} in the environment, else --token-file, else the "
                        "data folder's server.json when its url is the --server url")
    p.add_argument("--token-file", metavar="PATH",
                   help="read the service's token from this file (its first line)")
    p.add_argument("--token", metavar="TOKEN",
                   help=f"the service's token on the command line, visible to every user "
                        f"in ps: prefer {TOKEN_ENV} or --token-file")


def _from_file(path: str) -> str:
    """The token a --token-file holds (its first line); RemoteError saying why not."""
    try:
        with Path(path).expanduser().open("rb") as fh:
            data = fh.read(_MAX_TOKEN_FILE + 1)
    except OSError as exc:
        raise RemoteError(f"--token-file {path}: cannot read it ({exc.strerror or exc}); "
                          "give a file that holds the service's token") from None
    lines = data[:_MAX_TOKEN_FILE].decode("utf-8", "replace").strip().splitlines()
    if len(data) > _MAX_TOKEN_FILE or not lines or not lines[0].strip():
        raise RemoteError(f"--token-file {path}: no token in it; write the service's token "
                          "on its first line")
    return lines[0].strip()


def given_token(args: argparse.Namespace) -> str | None:
    """The token the command was given: --token (with a warning on stderr), else
    --token-file, else ``AGENT_CANVAS_TOKEN``; None when none was."""
    on_argv = getattr(args, "token", None)
    if on_argv:
        if not getattr(args, "token_warned", False):  # one line, however many requests
            print(ON_ARGV_WARNING, file=sys.stderr)
            args.token_warned = True
        return str(on_argv)
    path = getattr(args, "token_file", None)
    if path:
        return _from_file(str(path))
    return os.environ.get(TOKEN_ENV, "").strip() or None


def client_for(args: argparse.Namespace) -> ApiClient:
    """The client for ``--server``, with its token; raises :class:`RemoteError`."""
    from desktop.api.client import ApiClient
    from desktop.api.discovery import read_server_file
    from desktop.disk.paths import data_dir

    url = str(args.server).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise RemoteError(f"--server {args.server!r}: give a url such as http://127.0.0.1:8765")
    token = given_token(args)
    if not token:
        folder = data_dir(getattr(args, "data_dir", None))
        info = read_server_file(folder)
        if info is None or info.url.rstrip("/") != url:
            raise RemoteError(f"no token for {url}: set {TOKEN_ENV}, or pass --token-file PATH, "
                              "or --data-dir of the service's data folder (its server.json "
                              f"names the url); looked in {folder}")
        token = info.token
    return ApiClient(url, token)
