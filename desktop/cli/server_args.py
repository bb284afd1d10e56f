"""``--server URL`` / ``--token``: the options of commands that can use a running service."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.api.client import ApiClient


class RemoteError(Exception):
    """A --server problem for the user (bad url, no token, unknown run)."""


def add_server_options(p: argparse.ArgumentParser) -> None:
    """Add ``--server URL`` and ``--token TOKEN``."""
    p.add_argument("--server", metavar="URL",
                   help="use a running `agent-canvas serve` (e.g. http://127.0.0.1:8765) "
                        "instead of an engine in this process")
    p.add_argument("--token", metavar="TOKEN",
                   help="the service's token (default: from the data folder's server.json "
                        "when its url is the --server url)")


def client_for(args: argparse.Namespace) -> ApiClient:
    """The client for ``--server``, with its token; raises :class:`RemoteError`."""
    from desktop.api.client import ApiClient
    from desktop.api.discovery import read_server_file
    from desktop.disk.paths import data_dir

    url = str(args.server).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise RemoteError(f"--server {args.server!r}: give a url such as http://127.0.0.1:8765")
    token = getattr(args, "token", None)
    if not token:
        folder = data_dir(getattr(args, "data_dir", None))
        info = read_server_file(folder)
        if info is None or info.url.rstrip("/") != url:
            raise RemoteError(f"no token for {url}: pass --token, or --data-dir of the service's "
                              f"data folder (its server.json names the url); looked in {folder}")
        token = info.token
    return ApiClient(url, token)
