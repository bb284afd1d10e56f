"""The failure banner names the failed node once and shows its agent's stderr; a turn that
failed before any agent started (its worktree could not be made) has none, and shows no
empty box for it."""

from __future__ import annotations

from pathlib import Path

from desktop.ui.run.stall_banner import FailureBanner

NODE = "00000000-0000-4000-8000-00000000000a"


def test_the_stderr_box_shows_only_for_a_failure_with_an_agent_run(qtbot, tmp_path: Path) -> None:
    agent = tmp_path / "agents" / "20261129-0603560000-1"
    agent.mkdir(parents=True)
    (agent / "agent-stderr.txt").write_text("the build broke at step 3\n")
    banner = FailureBanner(tmp_path)
    qtbot.addWidget(banner)
    banner.name_nodes({"nodes": {NODE: {"label": "Builder"}}})

    banner.show_failure(NODE, "the repository could not be read", None)
    assert not banner.isHidden()
    assert "Builder failed:" in banner.title.text() and banner.tail.isHidden()

    banner.show_failure(NODE, "Builder: exit 2", agent.name)  # as run.failed says it
    assert banner.title.text() == "<b>Builder failed:</b> exit 2"
    assert not banner.tail.isHidden()
    banner.show_failure(NODE, "error: cannot open <stdin>", agent.name)
    assert banner.title.text().endswith("error: cannot open &lt;stdin&gt;")
    assert "the build broke at step 3" in banner.tail.toPlainText()
