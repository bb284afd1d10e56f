"""The Result view of a run whose agent wrote the API key it was given into a file: Apply
and Create branch are refused, the file marked as holding a secret and the secret named;
rejecting the file applies the rest; "Apply anyway" in the question that follows makes
the branch with it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox
from service_process import ServeProcess

from desktop.graph.io import loads_workflow
from desktop.ui.run.secret_dialog import ALLOW

KEY = "sk-gui-test-5e6f7a8b9c0d1e2f"
USER = ("-c", "user.name=The User", "-c", "user.email=user@example.com")
pytestmark = pytest.mark.skipif(os.name != "posix", reason="shell steps")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *USER, *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture
def keyed_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServeProcess]:
    """A service whose environment holds an API key its agents are given."""
    monkeypatch.setenv("STRIPE_API_KEY", KEY)
    svc = ServeProcess(tmp_path / "keyed-service")
    yield svc
    svc.stop()


def leaky(repo: Path) -> str:
    return f"""
version: 1
name: Leaky
task: configure the app
nodes:
  - {{id: impl, label: Impl, provider: scripted, entry: true}}
nodeConfigs:
  impl:
    workspace: "{repo}"
    envAllowlist: [STRIPE_*]
    script:
      - shell: printf 'STRIPE_API_KEY=%s\\n' "$STRIPE_API_KEY" > .env
      - edit: {{path: app.txt, content: "app\\n"}}
"""


def test_a_result_holding_a_secret_is_refused_until_rejected_or_confirmed(
        qloop, window_for, until, tmp_path, keyed_service) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "lib.txt").write_text("committed\n")
    git(repo, "add", "lib.txt")
    git(repo, "commit", "-q", "-m", "init")
    window, panels = window_for(loads_workflow(leaky(repo)), keyed_service.data_dir)
    view = panels.result

    async def settled() -> None:
        await until(lambda: not panels.results.tasks)

    async def go() -> None:
        await panels.run()
        await until(lambda: ((panels.session.state or {}).get("status")) == "completed")
        window.show()
        panels.docks["result"].raise_()
        await until(lambda: view.result is not None)
        await settled()

    qloop.run_until_complete(go())
    view.apply_button.click()
    qloop.run_until_complete(settled())
    note = " ".join(view.note.text().split())
    assert ".env (STRIPE_API_KEY)" in note and KEY not in note
    texts = {view.files.topLevelItem(i).text(0): view.files.topLevelItem(i).text(1)
             for i in range(view.files.topLevelItemCount())}
    assert texts == {".env": "added, holds a secret", "app.txt": "added"}
    assert isinstance(view.dialog, QMessageBox) and ".env" in view.dialog.text()
    view.dialog.reject()
    assert not (repo / ".env").exists() and not (repo / "app.txt").exists()

    view.set_accepted(".env", False)  # rejected: the rest applies
    view.apply_button.click()
    qloop.run_until_complete(settled())
    assert (repo / "app.txt").read_text() == "app\n" and not (repo / ".env").exists()

    view.set_accepted(".env", True)
    view.branch_button.click()
    view.dialog.setTextValue("with-key")
    view.dialog.accept()
    qloop.run_until_complete(settled())
    assert git(repo, "branch", "--list", "with-key") == ""
    box = view.dialog
    assert isinstance(box, QMessageBox)
    [allow] = [b for b in box.buttons() if b.text() == ALLOW]
    allow.click()
    qloop.run_until_complete(settled())
    assert git(repo, "show", "with-key:.env") == f"STRIPE_API_KEY={KEY}"
    assert "Created branch with-key" in view.note.text()
