"""The ``assets/`` folder of a version directory and its ``manifest.json``.

Each case keeps its assets under ``assets/<caseId>/``; hrefs are relative to the
version directory (``assets/slugify/diff.patch``). The manifest lists every
asset with its size and sha256 and is rewritten (atomically) after each case,
so a killed evaluation leaves a manifest of the cases that finished.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import orjson

from desktop.contract.artifacts import AssetsManifest, ManifestItem
from desktop.contract.base import utc_now
from desktop.disk.atomic import atomic_write_bytes, atomic_write_json
from desktop.eval.portable import Scrubber

ASSETS = "assets"
MANIFEST = "manifest.json"


class AssetStore:
    """Writes assets of one version directory and keeps its manifest."""

    def __init__(self, version_dir: Path, side: str, scrubber: Scrubber | None = None):
        self.root = Path(version_dir)
        self.side = side
        self.scrubber = scrubber
        self.items: dict[str, ManifestItem] = {}
        self._load()

    def _load(self) -> None:
        """Keep the items of cases written before (a resumed evaluation), and list files a
        killed evaluation wrote after its last manifest."""
        path = self.root / ASSETS / MANIFEST
        try:
            manifest = AssetsManifest.model_validate(orjson.loads(path.read_bytes()))
        except (OSError, ValueError):
            manifest = None
        for item in manifest.items if manifest else []:
            if (self.root / item.href).is_file():
                self.items[item.asset_id] = item
        listed = {item.href for item in self.items.values()}
        folder = self.root / ASSETS
        for file in sorted(folder.glob("*/*")) if folder.is_dir() else []:
            href = file.relative_to(self.root).as_posix()
            if file.is_file() and href not in listed and not file.name.startswith("."):
                data = file.read_bytes()
                self.items[f"{file.parent.name}/{file.name}"] = ManifestItem(
                    asset_id=f"{file.parent.name}/{file.name}", href=href,
                    kind=_kind(file.name), case_id=file.parent.name, side=self.side,
                    size_bytes=len(data), sha256=hashlib.sha256(data).hexdigest())

    def href(self, case_id: str, name: str) -> str:
        return f"{ASSETS}/{case_id}/{name}"

    def write(self, case_id: str, name: str, data: bytes, kind: str) -> ManifestItem:
        """Store ``data`` (secrets redacted, this machine's paths marked: portable.Scrubber) as
        ``assets/<caseId>/<name>``; its manifest item."""
        if self.scrubber is not None:
            data = self.scrubber.data(data)
        href = self.href(case_id, name)
        atomic_write_bytes(self.root / href, data)
        item = ManifestItem(asset_id=f"{case_id}/{name}", href=href, kind=kind,
                            case_id=case_id, side=self.side, size_bytes=len(data),
                            sha256=hashlib.sha256(data).hexdigest())
        self.items[item.asset_id] = item
        return item

    def forget_case(self, case_id: str) -> None:
        """Drop a case's assets (it is being run again)."""
        for key in [k for k, v in self.items.items() if v.case_id == case_id]:
            del self.items[key]
        shutil.rmtree(self.root / ASSETS / case_id, ignore_errors=True)

    def save_manifest(self) -> None:
        if not self.items:
            return
        manifest = AssetsManifest(generated_at=utc_now(),
                                  items=sorted(self.items.values(), key=lambda i: i.href))
        atomic_write_json(self.root / ASSETS / MANIFEST, manifest.to_json())


def _kind(name: str) -> str:
    if name == "full_body.txt":
        return "full_body"
    if name.endswith(".meta.json"):
        return "failure_meta"
    return "full_payload" if name.startswith("payload-") else "other"
