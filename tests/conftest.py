"""Test-wide set-up: headless Qt and a private data folder per test."""

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point AGENT_CANVAS_DATA_DIR at a fresh folder so no test touches real runs."""
    folder = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("AGENT_CANVAS_DATA_DIR", str(folder))
    return folder
