"""With a replay positioned before the run's end, the Result tab says that the result it
shows, and that Apply takes, is the run's final one, not the result at the replayed
moment; at the end of the replay, and out of it, it says nothing of the kind."""

from __future__ import annotations

from test_result_view import project, settled, show_result_tab, status, two_implementers

from desktop.graph.io import loads_workflow
from desktop.store.runs import engine_alive


def test_a_replay_before_the_end_says_the_result_is_the_final_one(
        qloop, window_for, until, tmp_path, own_service):
    repo = project(tmp_path)
    window, panels = window_for(loads_workflow(two_implementers(repo)), own_service.data_dir)
    view = panels.result

    async def go():
        await panels.run()
        await until(lambda: status(panels) == "completed")
        await until(lambda: not engine_alive(panels.session.run_dir))

    qloop.run_until_complete(go())
    run_dir = panels.session.run_dir
    panels.history.refresh()
    panels.history.replayRequested.emit(run_dir)
    assert panels.replaying
    show_result_tab(window, panels)
    qloop.run_until_complete(until(lambda: view.result is not None))
    qloop.run_until_complete(settled(panels, until))
    total = panels.timeline.replay.total
    assert not view.replay_note.isVisibleTo(view)  # the replay opens at the run's end

    middle = total // 2
    panels.timeline.seek(middle)
    assert view.replay_note.isVisibleTo(view)
    said = view.replay_note.text()
    assert "The run's final result" in said and f"event {middle:,} of {total:,}" in said
    assert "not as they were at that moment" in said
    assert view.apply_button.isEnabled()  # it still applies: the final result, as said

    panels.timeline.seek(total)
    assert not view.replay_note.isVisibleTo(view)
    panels.timeline.seek(1)
    assert view.replay_note.isVisibleTo(view)
    panels.open_run(run_dir)  # the same run, out of replay: nothing to say
    assert not panels.replaying and not view.replay_note.isVisibleTo(view)
