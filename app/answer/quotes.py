"""A quote of the extractive answer: the blocks quoted from one passage, and how they are shown."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import Passage
from .blocks import Unit


def _merge_rows(texts: list[str], kinds: list[str]) -> list[str]:
    """Consecutive table rows that share a header become one table (the header once); consecutive
    list items become one list."""
    out: list[str] = []
    previous = ""
    for text, kind in zip(texts, kinds):
        lines = text.splitlines()
        if kind == "row" and previous == "row" and len(lines) >= 3 and out[-1].splitlines()[:2] == lines[:2]:
            out[-1] += "\n" + "\n".join(lines[2:])
        elif kind == "item" and previous == "item":
            out[-1] += "\n" + text
        else:
            out.append(text)
        previous = kind
    return out


def _format_quote(units: list[Unit], n: int, heading: str) -> str:
    """Markdown for one passage's quoted blocks followed by ``[n]``; a heading in italics first.
    Sentences run on in one paragraph; lists, code and tables keep their lines."""
    prefix = f"*{heading}*" if heading else ""
    if all(u.kind == "sentence" and "\n" not in u.text for u in units):
        body = " ".join(u.text for u in units) + f" [{n}]"
        return f"{prefix}: {body}" if prefix else body
    parts = ([prefix] if prefix else []) + _merge_rows([u.text for u in units], [u.kind for u in units])
    last = parts[-1].rstrip()
    if last.endswith(("```", "~~~")) or last.splitlines()[-1].lstrip().startswith(("|", "-", "*", "+")) \
            or re.match(r"\s*\d+[.)]\s", last.splitlines()[-1]):
        parts.append(f"[{n}]")
    else:
        parts[-1] = f"{last} [{n}]"
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Quote:
    """The blocks quoted from one passage: ``units`` in reading order, ``heading`` shown before them
    ('' when none); :attr:`markdown` is how the extractive answer shows them, ending in ``[n]``."""

    passage: Passage
    units: tuple[Unit, ...]
    heading: str
    note: str = ""

    @property
    def markdown(self) -> str:
        quoted = _format_quote(list(self.units), self.passage.n, self.heading)
        return f"{quoted}\n\n*{self.note}*" if self.note else quoted

    @property
    def text(self) -> str:
        """The quoted words without the citation marker (heading first when shown)."""
        body = "\n\n".join(u.text for u in self.units)
        return f"{self.heading}\n\n{body}" if self.heading else body
