"""The .deb: its control data and files, lintian, its dependencies, install and removal.

Installing and removing happen only in a disposable root (disposable_root.py),
never on this machine.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from desktop import __version__
from tests.dist.disposable_root import run_in_disposable_root, why_unavailable
from tests.dist.harness import REPO

pytestmark = pytest.mark.dist

PACKAGING = REPO / "packaging"
ICON_SIZES = sorted(p.parent.name for p in (REPO / "resources" / "icons").glob("*x*/*.png"))


def _dpkg_deb(*args: str) -> str:
    return subprocess.run(["dpkg-deb", *args], capture_output=True, text=True, check=True,
                          timeout=120).stdout


def _depends(deb: Path) -> list[list[str]]:
    """The Depends field: alternatives per entry, names without version constraints."""
    field = _dpkg_deb("--field", str(deb), "Depends")
    return [[re.sub(r"\s*\(.*\)", "", alt).strip() for alt in entry.split("|")]
            for entry in field.split(",") if entry.strip()]


def test_control_names_the_package_version_and_dependencies(deb: Path):
    info = _dpkg_deb("--info", str(deb))
    assert "Package: agent-canvas" in info and f"Version: {__version__}" in info
    assert "Architecture: amd64" in info
    names = {alt for entry in _depends(deb) for alt in entry}
    window = subprocess.run([str(REPO / "scripts" / "ensure-gui-libs"), "--packages"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert set(window) <= names, "Depends must cover what scripts/ensure-gui-libs installs"
    assert {"bubblewrap", "libc6"} <= names
    # runs on a git repository need git 2.34 (worktrees, `git add --sparse`)
    assert _dpkg_deb("--field", str(deb), "Recommends").strip() == "git (>= 1:2.34)"


def test_contents_are_the_bundle_the_command_and_the_desktop_integration(deb: Path):
    listing = _dpkg_deb("--contents", str(deb))
    rows = [line.split() for line in listing.splitlines()]
    paths = {row[5] for row in rows}
    assert {row[1] for row in rows} == {"root/root"}
    expected = {"./opt/agent-canvas/agent-canvas", "./usr/share/applications/agent-canvas.desktop",
                "./usr/share/mime/packages/agent-canvas.xml",
                "./usr/share/icons/hicolor/scalable/apps/agent-canvas.svg",
                "./usr/share/doc/agent-canvas/copyright", "./usr/share/man/man1/agent-canvas.1.gz",
                *(f"./usr/share/icons/hicolor/{size}/apps/agent-canvas.png"
                  for size in ICON_SIZES)}
    assert expected <= paths
    assert "./usr/bin/agent-canvas -> /opt/agent-canvas/agent-canvas" in listing
    # the app's own code is bytecode in the archive (acp ships its .py: see the spec)
    assert not any("__pycache__" in path for path in paths)
    assert not any(path.endswith(".py") for path in paths
                   if "/resources/" not in path and "/_internal/acp/" not in path)


def test_desktop_entry_is_valid_and_opens_workflow_files(deb_root: Path):
    entry = deb_root / "usr" / "share" / "applications" / "agent-canvas.desktop"
    check = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0 and "error" not in check.stdout.lower(), check.stdout
    text = entry.read_text()
    assert "Exec=agent-canvas %f" in text and "MimeType=application/x-agent-canvas-flow;" in text
    mime = (deb_root / "usr" / "share" / "mime" / "packages" / "agent-canvas.xml").read_text()
    assert 'type="application/x-agent-canvas-flow"' in mime and '"*.flow.yaml"' in mime


def _accepted_warnings() -> set[str]:
    """Tags packaging/README.md lists as accepted (its lintian section, one `tag` a row)."""
    text = (PACKAGING / "README.md").read_text()
    section = text.split("### lintian", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([a-z0-9-]+)`", section, re.M))


def test_lintian_reports_no_error_and_only_accepted_warnings(deb: Path, out_dir: Path):
    result = subprocess.run(["lintian", "--tag-display-limit", "0", str(deb)],
                            capture_output=True, text=True, timeout=600)
    (out_dir / "lintian.txt").write_text(result.stdout + result.stderr)
    tags = [line.split()[:3] for line in result.stdout.splitlines() if line[:2] in ("E:", "W:")]
    errors = [" ".join(tag) for tag in tags if tag[0] == "E:"]
    assert not errors, result.stdout
    warnings = {tag[2] for tag in tags if tag[0] == "W:"}
    assert warnings <= _accepted_warnings(), f"warnings not in packaging/README.md: {warnings}"


def _needed(elf: Path) -> list[str]:
    dynamic = subprocess.run(["readelf", "-d", str(elf)], capture_output=True, text=True,
                             timeout=60).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)


def _installed_closure(roots: list[list[str]]) -> set[str]:
    """The installed packages that ``roots`` (Depends entries) pull in, transitively."""
    def fields(name: str) -> str | None:
        query = subprocess.run(["dpkg-query", "-W", "-f=${Status}|${Depends}, ${Pre-Depends}",
                                name], capture_output=True, text=True)
        status, _, deps = query.stdout.partition("|")
        return deps if query.returncode == 0 and "installed" in status.split() else None

    seen: set[str] = set()
    queue = [entry for entry in roots]
    while queue:
        for alt in queue.pop():
            name = alt.split(":")[0].strip()
            if not name or name in seen:
                continue
            deps = fields(name)
            if deps is None:
                continue
            seen.add(name)
            queue += [[re.sub(r"\s*\(.*\)", "", a).strip() for a in entry.split("|")]
                      for entry in deps.split(",") if entry.strip()]
            break  # the first installed alternative satisfies the entry
    return seen


def _owner(path: str) -> str:
    """The installed package holding ``path`` (merged /usr: dpkg may know it under /lib)."""
    names = {path, os.path.realpath(path)}
    names |= {n.removeprefix("/usr") for n in names} | {"/usr" + n for n in names}
    for name in sorted(names):
        found = subprocess.run(["dpkg", "-S", name], capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.split(":")[0]
    return f"no package owns {path}"


def _is_elf(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(4) == b"\x7fELF"


def test_depends_cover_every_system_library_the_bundle_loads(deb: Path, deb_root: Path):
    bundle = deb_root / "opt" / "agent-canvas"
    shipped = {p.name for p in bundle.rglob("*")}
    elves = [p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink()
             and _is_elf(p)]
    needed = {lib for elf in elves for lib in _needed(elf)} - shipped
    cache = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    where = dict(re.findall(r"^\s*(\S+) \(libc6,x86-64[^)]*\) => (\S+)$", cache, re.M))
    closure = _installed_closure(_depends(deb))
    uncovered = []
    for lib in sorted(needed):
        assert lib in where, f"{lib} (needed by the bundle) is not installed here"
        owner = _owner(where[lib])
        if owner not in closure:
            uncovered.append(f"{lib} ({owner})")
    assert not uncovered, f"Depends misses the packages of: {', '.join(uncovered)}"


INSTALL_AND_REMOVE = r"""
set -u
dpkg -i /tmp/package.deb || exit 10
test -L /usr/bin/agent-canvas || exit 11
rm -f /usr/bin/python* /usr/local/bin/python*   # only in this throwaway root
command -v python3 && exit 12
user() { (mkdir -p /tmp/home && cd /tmp/home && \
          env HOME=/tmp/home PATH=/usr/bin:/bin QT_QPA_PLATFORM=offscreen "$@"); }
user agent-canvas --version || exit 13
example=/opt/agent-canvas/_internal/resources/examples/single-agent.flow.yaml
user agent-canvas run --data-dir /tmp/data "$example" </dev/null >/tmp/run.txt 2>&1 || exit 14
tail -1 /tmp/run.txt
grep -q 'application/x-agent-canvas-flow:\*\.flow\.yaml' /usr/share/mime/globs2 || exit 15
if command -v update-desktop-database >/dev/null; then
    grep -q 'x-agent-canvas-flow=agent-canvas.desktop' /usr/share/applications/mimeinfo.cache \
        || exit 16
fi
dpkg -L agent-canvas | while read -r p; do [ -d "$p" ] && [ ! -L "$p" ] || echo "$p"; done \
    > /tmp/files
dpkg -r agent-canvas || exit 17
while read -r p; do
    if [ -e "$p" ] || [ -L "$p" ]; then echo "left behind: $p"; exit 18; fi
done < /tmp/files
[ -e /opt/agent-canvas ] && { echo "left behind: /opt/agent-canvas"; exit 18; }
dpkg -s agent-canvas 2>/dev/null | grep -q '^Status: install' && exit 19
grep -q 'x-agent-canvas-flow' /usr/share/mime/globs2 && exit 20
echo REMOVED-CLEANLY
"""


def test_installs_runs_and_removes_cleanly_in_a_disposable_root(deb: Path, tmp_path: Path,
                                                                out_dir: Path):
    problem = why_unavailable()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"cannot test dpkg -i/-r here: {problem}")
        pytest.skip(problem)
    result = run_in_disposable_root(deb, INSTALL_AND_REMOVE, tmp_path)
    (out_dir / "dpkg-install-remove.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "run.completed" in result.stdout and "REMOVED-CLEANLY" in result.stdout
    assert not Path("/opt/agent-canvas").exists() and not Path("/usr/bin/agent-canvas").exists()
