"""Create branch asks for a name and checks it against git's rule when OK is pressed: a
name git refuses keeps the dialog open with the name as typed and what is wrong with it;
a name the service refuses (taken) opens the dialog again the same way, never a banner
ending in the field's name."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_result_view import git, project, result_on_show, two_implementers

from desktop.graph.io import loads_workflow

RESULT = {"branch": "canvas/1a2b3c4d/lead", "node": "lead", "repo": "/nowhere",
          "runId": "1a2b3c4d-0000", "base": "ab" * 20, "commit": "cd" * 20,
          "files": [{"path": "app.py", "status": "modified"}]}


def a_view(qtbot):
    from desktop.ui.run.result_view import ResultView

    view = ResultView()
    qtbot.addWidget(view)
    view.show_result(RESULT)
    asked: list[tuple] = []
    view.branchRequested.connect(lambda files, name: asked.append((files, name)))
    return view, asked


BAD = {"bad name..": "it has a space", "a..b": "it has '..'", "-x": "starts with '-'",
       "feat/": "ends with '/'", "x.lock": "ends with '.lock'", "HEAD": "HEAD is git's",
       "a~1": "it has '~'", "@{-1}": "it has '@{'", "": "it is empty"}


def test_a_name_git_refuses_keeps_the_dialog_open_with_the_name_and_why(qtbot):
    view, asked = a_view(qtbot)
    for name, why in BAD.items():
        view.branch_button.click()
        dialog = view.dialog
        dialog.setTextValue(name)
        dialog.accept()  # OK pressed
        assert dialog.isVisible() and dialog.textValue() == name, name
        assert why in dialog.labelText() and "not a branch name git accepts" in \
            dialog.labelText(), (name, dialog.labelText())
        dialog.reject()
    assert asked == []
    view.branch_button.click()
    view.dialog.setTextValue(" feat/result ")
    view.dialog.accept()
    assert not view.dialog.isVisible() and asked == [(None, "feat/result")]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=12))
def test_the_dialog_takes_exactly_the_names_git_takes(qtbot, tmp_path, name):
    import subprocess

    view, asked = a_view(qtbot)
    view.branch_button.click()
    view.dialog.setTextValue(name)
    view.dialog.accept()
    name = name.strip()
    takes = bool(name) and not name.startswith("-") and all(
        subprocess.run(["git", "check-ref-format", *args], cwd=tmp_path,
                       capture_output=True).returncode == 0
        for args in (["--branch", name], [f"refs/heads/{name}"]))
    assert asked == ([(None, name)] if takes else [])
    assert view.dialog.isVisible() is not takes
    view.dialog.reject()


def test_a_name_taken_is_asked_again_with_the_name_kept(qloop, window_for, until, tmp_path):
    repo = project(tmp_path)
    git(repo, "branch", "feat/taken")
    window, panels = window_for(loads_workflow(two_implementers(repo)))
    view = panels.result
    qloop.run_until_complete(result_on_show(window, panels, until))
    view.branch_button.click()
    first = view.dialog
    first.setTextValue("feat/taken")
    first.accept()  # git takes the name; the service finds it taken
    qloop.run_until_complete(until(lambda: view.dialog is not first
                                   and view.dialog.isVisible()))
    assert view.dialog.textValue() == "feat/taken"
    assert "Branch feat/taken already exists" in view.dialog.labelText()
    assert "(branch)" not in view.note.text() and "(branch)" not in view.dialog.labelText()
    view.dialog.setTextValue("feat/new")
    view.dialog.accept()
    qloop.run_until_complete(until(lambda: not panels.results.tasks))
    assert "Created branch feat/new" in view.note.text()
