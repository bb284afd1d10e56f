"""The local service: the engine behind an aiohttp REST + WebSocket API on loopback.

Server side: :mod:`desktop.api.app` (the application and its routes),
:mod:`desktop.api.security` (token, Host, Origin, body size, JSON errors),
:mod:`desktop.api.runs` (the engines it hosts), :mod:`desktop.api.stream`
(the WebSocket event stream) and :mod:`desktop.api.server` (``agent-canvas
serve``: server.json, signals). Nothing here imports Qt.
"""
