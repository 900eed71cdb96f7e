"""Citation checking by code: every ``[n]`` must name a source that was actually sent.

Markers such as ``[2]``, ``[1, 3]`` or ``[1][2]`` are read; numbers outside the sent
sources are removed from the text; the cited sources are returned in order of first
citation. The model's word is never trusted for which passages support the answer.
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"\[(\s*\d+(?:\s*[,;]\s*\d+)*\s*)\]")


def check_citations(text: str, sent: int) -> tuple[str, list[int]]:
    """``(text with unknown numbers removed, cited source numbers in first-cited order)``.

    ``sent`` is the number of sources sent (valid numbers are 1..sent).
    """
    cited: list[int] = []

    def keep(match: re.Match) -> str:
        numbers = [int(x) for x in re.split(r"[,;]", match.group(1))]
        valid = [n for n in numbers if 1 <= n <= sent]
        for n in valid:
            if n not in cited:
                cited.append(n)
        return "[" + ", ".join(str(n) for n in valid) + "]" if valid else ""

    cleaned = _MARKER.sub(keep, text)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned)
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned).strip()
    return cleaned, cited
