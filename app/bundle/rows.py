"""The records :class:`~app.bundle.reader.BundleReader` returns: chunks, guides and guide-search matches."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import ChunkRow

__all__ = ["MATCH_END", "MATCH_START", "ChunkRow", "GuideMatch", "SourceInfo"]

#: Markers around matched words in :attr:`GuideMatch.snippet`.
MATCH_START, MATCH_END = "\x02", "\x03"


@dataclass(frozen=True)
class GuideMatch:
    """One result of :meth:`BundleReader.search_guides`: a chunk and a snippet of it.

    ``snippet`` is a short plain-text excerpt of the chunk with each matched word wrapped
    in :data:`MATCH_START` / :data:`MATCH_END` (control characters, so a renderer can
    escape the text first and then turn the markers into highlighting).
    """

    chunk_id: int
    source: str
    heading: str
    anchor: str
    text: str
    snippet: str


@dataclass(frozen=True)
class SourceInfo:
    """One guide as stored in the bundle."""

    path: str
    title: str
    kind: str
    language: str
