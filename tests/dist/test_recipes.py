"""The Windows and macOS recipes: what can be checked on Linux (they are never built here)."""

from __future__ import annotations

import plistlib
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from desktop import __version__
from tests.dist.harness import REPO

pytestmark = pytest.mark.dist

PACKAGING = REPO / "packaging"


def test_the_windows_installer_script_compiles(tmp_path: Path):
    makensis = shutil.which("makensis")
    assert makensis, "makensis is missing: scripts/ensure-dist-tools test installs nsis"
    stand_in = tmp_path / "bundle"  # the real bundle can only be built on Windows
    (stand_in / "_internal").mkdir(parents=True)
    (stand_in / "agent-canvas.exe").write_bytes(b"MZ")
    (stand_in / "Agent Canvas.exe").write_bytes(b"MZ")
    result = subprocess.run(
        [makensis, "-V2", f"-DVERSION={__version__}", f"-DSOURCE={stand_in}",
         f"-DOUTDIR={tmp_path}", "agent-canvas.nsi"],
        cwd=PACKAGING / "windows", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / f"agent-canvas-{__version__}-windows-x64-setup.exe").is_file()


def test_the_icons_for_windows_and_macos_hold_every_size():
    ico = (PACKAGING / "windows" / "agent-canvas.ico").read_bytes()
    count = struct.unpack("<HHH", ico[:6])[2]
    sizes = {ico[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 32, 48, 256} <= sizes
    icns = (PACKAGING / "macos" / "agent-canvas.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    assert b"ic09" in icns and b"icp4" in icns


def test_the_macos_entitlements_are_a_valid_plist():
    entitlements = plistlib.loads((PACKAGING / "macos" / "entitlements.plist").read_bytes())
    assert entitlements["com.apple.security.cs.disable-library-validation"] is True
