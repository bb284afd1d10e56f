"""Entry point of the PyInstaller bundle: the ``agent-canvas`` command."""

import sys

from desktop.cli.self_launch import restore_child_environment

restore_child_environment()  # children (git, bwrap, agent CLIs) get the user's libraries

from desktop.cli import main  # noqa: E402  (after the environment is set right)

sys.exit(main())
