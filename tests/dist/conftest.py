"""Fixtures of the installer smoke tests: the built artifacts, unpacked once per session.

These tests run only when asked for by marker (``make test-dist`` runs ``-m dist``);
any other run deselects them, so ``make test`` never needs the artifacts. Once
selected, a missing artifact fails the test: it is never skipped.
"""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

from desktop import __version__
from tests.dist.harness import REPO, CleanRoom

DIST = REPO / "dist"
OUT = REPO / "build" / "test-dist"
"""Where the smoke tests leave what a person should look at (screenshots, logs)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "dist" in (config.option.markexpr or "").replace("not dist", ""):
        return
    dist_items = [item for item in items if item.get_closest_marker("dist")]
    if dist_items:
        config.hook.pytest_deselected(items=dist_items)
        items[:] = [item for item in items if not item.get_closest_marker("dist")]


def _artifact(name: str) -> Path:
    path = DIST / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make dist` first", pytrace=False)
    return path


@pytest.fixture(scope="session")
def tarball() -> Path:
    return _artifact(f"agent-canvas-{__version__}-linux-x86_64.tar.gz")


@pytest.fixture(scope="session")
def deb() -> Path:
    return _artifact(f"agent-canvas_{__version__}_amd64.deb")


@pytest.fixture(scope="session")
def out_dir() -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    return OUT


@pytest.fixture(scope="session")
def tar_app(tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tarball unpacked into a temporary folder: its ``agent-canvas`` executable."""
    where = tmp_path_factory.mktemp("tarball")
    with tarfile.open(tarball) as archive:
        archive.extractall(where, filter="tar")
    return where / "agent-canvas" / "agent-canvas"


@pytest.fixture(scope="session")
def deb_root(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .deb extracted with ``dpkg -x`` (not installed): the root of its files."""
    where = tmp_path_factory.mktemp("deb-x")
    subprocess.run(["dpkg", "-x", str(deb), str(where)], check=True, timeout=300)
    return where


@pytest.fixture(scope="session")
def deb_app(deb_root: Path) -> Path:
    return deb_root / "opt" / "agent-canvas" / "agent-canvas"


@pytest.fixture(params=["tarball", "deb"])
def app(request: pytest.FixtureRequest) -> Path:
    """The app's executable, from the unpacked tarball and from the extracted .deb."""
    return request.getfixturevalue("tar_app" if request.param == "tarball" else "deb_app")


@pytest.fixture
def room(app: Path, tmp_path: Path) -> CleanRoom:
    """A clean room running ``app`` (the tarball's, then the .deb's)."""
    return CleanRoom(tmp_path, app)
