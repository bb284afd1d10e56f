"""Qt-free projections of a run's events, shared by the service, the GUI and the CLI.

- :mod:`~desktop.views.reader`: the one reader of ``events.jsonl`` (pages by seq, full
  scans, a tail that follows a byte offset, an async follow).
- :mod:`~desktop.views.logfile`: random access by seq for views that open huge logs.
- :mod:`~desktop.views.state`: the run state folded from events, batch by batch.
- :mod:`~desktop.views.runs`: a run folder's state (snapshot plus the events after it)
  and the list of runs.
- :mod:`~desktop.views.activity`: what each node is doing, for the canvas and the CLI.

Nothing here imports Qt; the GUI's models only adapt these objects.
"""
