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
from desktop.eval.portable import Scrubber
from desktop.store.atomic import atomic_write_bytes, atomic_write_json

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
        """Keep the items of cases written before (a resumed evaluation)."""
        path = self.root / ASSETS / MANIFEST
        try:
            data = orjson.loads(path.read_bytes())
            manifest = AssetsManifest.model_validate(data)
        except (OSError, ValueError):
            return
        for item in manifest.items:
            if (self.root / item.href).is_file():
                self.items[item.asset_id] = item

    def href(self, case_id: str, name: str) -> str:
        return f"{ASSETS}/{case_id}/{name}"

    def write(self, case_id: str, name: str, data: bytes, kind: str) -> ManifestItem:
        """Store ``data`` (the evaluation folder's path scrubbed) as
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
