"""The run panels of the editor window: toolbar, docks, banners, dialogs and the feeds that
keep them current, all clients of the service (attach.py puts them on a window)."""
