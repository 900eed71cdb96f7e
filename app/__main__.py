"""``python -m app``: no arguments opens the desktop app; subcommands run the CLI."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
