#!/usr/bin/env python3
"""Fail when a module of a package is over its line limit or a function is over its limit (``make lint``
runs it on app/): the structural targets of issue 25, "No module in app/ over 400 lines; no function over
60 lines", kept by the build instead of by review.

A module's length is its number of lines (``wc -l``); a function's is from its ``def`` line (decorators
not counted) to its last line, nested functions counted inside the function that holds them and also
on their own.

Usage: ``python scripts/size_limits.py [PACKAGE_DIR] [--module-lines N] [--function-lines N]`` (defaults
``app``, 400, 60). Prints each offender as ``path: N lines (limit M)`` or ``path:LINE name: N lines (limit
M)`` and exits 1 when there is one, else prints nothing and exits 0.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

MODULE_LINES = 400
FUNCTION_LINES = 60


def offenders(package: Path, module_lines: int = MODULE_LINES, function_lines: int = FUNCTION_LINES) -> list[str]:
    """One line per module over ``module_lines`` and per function over ``function_lines``, in path order."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > module_lines:
            found.append(f"{path}: {lines} lines (limit {module_lines})")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > function_lines:
                    found.append(f"{path}:{node.lineno} {node.name}: {length} lines (limit {function_lines})")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", default="app")
    parser.add_argument("--module-lines", type=int, default=MODULE_LINES)
    parser.add_argument("--function-lines", type=int, default=FUNCTION_LINES)
    args = parser.parse_args(argv)
    found = offenders(Path(args.package), args.module_lines, args.function_lines)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
