"""Print each installed package (a `pip freeze` on stdin) whose version differs from uv.lock."""

import re
import sys
import tomllib
from pathlib import Path


def normalise(name: str) -> str:
    """The package name as uv.lock spells it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def main(lock_path: str) -> int:
    locked: dict[str, set[str]] = {}
    for package in tomllib.loads(Path(lock_path).read_text())["package"]:
        locked.setdefault(normalise(package["name"]), set()).add(package.get("version", ""))
    changed = 0
    for line in sys.stdin:
        name, sep, version = line.strip().partition("==")
        if not sep:
            continue
        pinned = locked.get(normalise(name))
        if pinned is None:
            print(f"  {name} {version} (not in the lock)")
        elif version not in pinned:
            print(f"  {name} {version} (locked: {', '.join(sorted(pinned))})")
        else:
            continue
        changed += 1
    print(f"  {changed} package(s) differ from the lock" if changed
          else "  none: the lock is the newest")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
