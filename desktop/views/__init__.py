"""Qt-free projections of a run's events, shared by the service, the GUI and the CLI.

- :mod:`~desktop.views.reader`: the one reader of ``events.jsonl`` (pages by seq, full
  scans, a tail that follows a byte offset, an async follow).
- :mod:`~desktop.views.logfile`: random access by seq for views that open huge logs.
- :mod:`~desktop.views.state`: the run state folded from events, batch by batch
  (:mod:`~desktop.views.state_model` builds its validated model cheaply).
- :mod:`~desktop.views.runs`: a run folder's state (snapshot plus the events after it)
  and the list of runs; :mod:`~desktop.views.replay`: the state at any seq.
- :mod:`~desktop.views.transcript`: transcript rows (coalesced streams, tool calls,
  thinking rows, filters, search) over :mod:`~desktop.views.events` stores, formatted by
  :mod:`~desktop.views.format`, searched by :mod:`~desktop.views.search`, with tool-call
  status from :mod:`~desktop.views.tool_calls`.
- :mod:`~desktop.views.activity`: what each node is doing, for the canvas and the CLI.

Nothing here imports Qt; the GUI's models only adapt these objects.
"""
