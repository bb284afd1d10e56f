"""``python -m desktop`` runs the agent-canvas command."""

import sys

from desktop.cli import main

sys.exit(main())
