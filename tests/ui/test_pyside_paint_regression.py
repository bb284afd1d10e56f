"""PySide6 6.12.0 on CPython 3.11 corrupts None's refcount in Python paint() overrides.

The canvas paints every node and edge from Python, so the app must never run
on that combination: the scenario runs here in a subprocess, and the
dependency pin in pyproject.toml must keep 6.12 out on Python < 3.12.
"""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = Path(__file__).with_name("pyside_paint_scenario.py")
RENDERS = 3000


def test_many_python_paints_do_not_crash() -> None:
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, str(SCENARIO), str(RENDERS)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr}"
    assert proc.stdout.rstrip().endswith("ok")
    counts = [int(n) for n in re.findall(r"refcount\(None\)= (\d+)", proc.stdout)]
    assert len(counts) >= 2
    # The bug drops one reference per paint() call; a steady count means no leak either way.
    assert abs(counts[-1] - counts[0]) < 100, counts


def _pyside_requirements() -> list[Requirement]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    reqs = [Requirement(r) for r in data["project"]["dependencies"]]
    return [r for r in reqs if r.name.lower().startswith("pyside6")]


@pytest.mark.parametrize("python", ["3.11", "3.11.9"])
def test_requirement_excludes_612_before_python_312(python: str) -> None:
    env = {"python_version": ".".join(python.split(".")[:2]), "python_full_version": python}
    active = [r for r in _pyside_requirements() if r.marker is None or r.marker.evaluate(env)]
    assert active, "a PySide6 requirement must apply on Python 3.11"
    for req in active:
        assert not req.specifier.contains(Version("6.12.0"), prereleases=True), str(req)
        assert not req.specifier.contains(Version("6.12.1"), prereleases=True), str(req)
    assert any(r.specifier.contains(Version("6.11.0")) for r in active)


def test_requirement_allows_pyside6_on_newer_python() -> None:
    env = {"python_version": "3.12", "python_full_version": "3.12.4"}
    active = [r for r in _pyside_requirements() if r.marker is None or r.marker.evaluate(env)]
    assert active and all(r.specifier.contains(Version("6.11.0")) for r in active)


def test_installed_pyside_is_not_the_broken_combination() -> None:
    import PySide6

    installed = Version(PySide6.__version__)
    active = [r for r in _pyside_requirements() if r.marker is None or r.marker.evaluate()]
    assert active, f"no PySide6 requirement applies to Python {sys.version.split()[0]}"
    for req in active:  # the venv holds what pyproject.toml allows on this Python
        assert req.specifier.contains(installed, prereleases=True), (str(req), str(installed))
    if sys.version_info < (3, 12):
        assert installed < Version("6.12"), str(installed)
