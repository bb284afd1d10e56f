"""A disposable root: this machine's own system seen through a copy-on-write layer.

``dpkg -i`` and ``dpkg -r`` of the .deb run in a ``chroot`` into an overlay of ``/``
whose writable layer is a tmpfs inside a private mount namespace: every file the
package manager writes (``/opt``, ``/usr``, its database under ``/var/lib/dpkg``,
the MIME and icon caches its triggers rebuild) lands in that tmpfs and is gone when
the namespace ends. The machine itself is never changed.

It needs root (``unshare --mount``, ``mount -t overlay``, ``chroot``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SETUP = r"""
set -eu
scratch="$1" deb="$2"
mount -t tmpfs -o size=4g tmpfs "$scratch/layer"
layer="$scratch/layer" root="$scratch/layer/root"
mkdir "$layer/upper" "$layer/work" "$root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$layer/upper,workdir=$layer/work" "$root"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mount -t tmpfs tmpfs "$root/tmp"
cp "$deb" "$root/tmp/package.deb"
exec chroot "$root" /bin/sh -s
"""


def why_unavailable() -> str | None:
    """Why a disposable root cannot be made here, or None when it can."""
    if os.geteuid() != 0:
        return "a disposable root needs root (unshare --mount, mount -t overlay, chroot)"
    missing = [tool for tool in ("unshare", "mount", "chroot") if shutil.which(tool) is None]
    if missing:
        return f"missing {', '.join(missing)} (util-linux, coreutils)"
    return None


def run_in_disposable_root(deb: Path, script: str, scratch: Path,
                           timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the shell ``script`` as root in a fresh disposable root holding /tmp/package.deb."""
    (scratch / "layer").mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", SETUP, "setup",
         str(scratch), str(deb)],
        input=script, text=True, capture_output=True, timeout=timeout, check=False,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"})
