"""dmgbuild settings of the macOS disk image. NOT RUN HERE: see packaging/README.md.

On macOS, after `pyinstaller packaging/agent-canvas.spec`:
    dmgbuild -s packaging/macos/dmg_settings.py -D app="build/bundle/Agent Canvas.app" \\
        "Agent Canvas" dist/agent-canvas-VERSION-macos.dmg
dmgbuild (PyPI) makes the image with hdiutil: the app and a link to /Applications.
"""
# ruff: noqa: F821  (dmgbuild runs this file with `defines` predefined)
import os.path

application = defines.get("app", "build/bundle/Agent Canvas.app")
appname = os.path.basename(application)

format = "UDZO"  # zlib-compressed, read-only
size = None  # as large as the contents need
files = [application]
symlinks = {"Applications": "/Applications"}
icon = os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent-canvas.icns")
icon_locations = {appname: (140, 120), "Applications": (500, 120)}
window_rect = ((200, 200), (640, 300))
default_view = "icon-view"
show_icon_preview = False
icon_size = 96
