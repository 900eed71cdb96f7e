"""Entry point of the frozen app (build.spec): PyInstaller runs this file as ``__main__``,
so it imports the package absolutely (``app/__main__.py`` uses relative imports)."""

import multiprocessing
import sys

from app.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
