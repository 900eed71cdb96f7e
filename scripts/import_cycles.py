#!/usr/bin/env python3
"""Fail on any import cycle between the modules of a package (``make lint`` runs it on app/).

Every ``import`` and ``from … import`` statement counts, wherever it is: at module level, inside a
function (an import deferred to run time still ties the two modules together), and under
``if TYPE_CHECKING:``. ``from .pkg import name`` counts as an import of ``pkg.name`` when that is a
module, else of ``pkg`` (its ``__init__``). Standard-library and third-party imports are ignored.

Usage: ``python scripts/import_cycles.py [PACKAGE_DIR]`` (default ``app``). Prints each cycle as
``a -> b -> a`` and exits 1 when there is one, else prints nothing and exits 0.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_names(package: Path) -> dict[str, Path]:
    """Dotted module name -> file for every ``.py`` file under ``package`` (``app/x/__init__.py`` is
    ``app.x``)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest prefix of dotted ``name`` that is a module in ``known`` (None: not ours)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def imports_of(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``module`` (file ``path``) imports anywhere in its body."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
        for target in targets:
            resolved = _resolve(target, known)
            if resolved is not None and resolved != module:
                found.add(resolved)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan's
    algorithm, iterative), each sorted, as a list sorted by its first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _path_within(graph: dict[str, set[str]], members: list[str]) -> list[str]:
    """One cycle through ``members`` (a strongly connected component), for the message."""
    inside = set(members)
    start = members[0]
    seen, trail = {start: ""}, [start]
    while trail:
        node = trail.pop(0)
        for child in sorted(graph[node] & inside):
            if child == start:
                path = [node]  # back along the parents to ``start``, whose parent is ""
                while seen[path[-1]]:
                    path.append(seen[path[-1]])
                return path[::-1] + [start]
            if child not in seen:
                seen[child] = node
                trail.append(child)
    return members


def main(argv: list[str]) -> int:
    package = Path(argv[1] if len(argv) > 1 else "app")
    known = module_names(package)
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    found = cycles(graph)
    for members in found:
        print("import cycle: " + " -> ".join(_path_within(graph, members)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
