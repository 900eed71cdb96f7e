"""Frozen records passed between the stages: ingest -> bundle -> retrieval -> answer.

Character spans are ``(start, end)`` offsets into the decoded source text (Python
``str`` indices, end exclusive), as the bundle contract in DESIGN.md fixes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

HEADING_SEPARATOR = " › "


def join_heading(*parts: str) -> str:
    """The non-empty ``parts`` joined with HEADING_SEPARATOR (``join_heading("guide.md", "")`` is
    ``"guide.md"``): a heading path, or a guide and a heading path."""
    return HEADING_SEPARATOR.join(p for p in parts if p)


def heading_leaf(path: str) -> str:
    """The last heading of a heading path (``"Lesson 4 › Wiring"`` -> ``"Wiring"``), stripped."""
    return path.split(HEADING_SEPARATOR)[-1].strip() if path else ""


@dataclass(frozen=True)
class SourceDoc:
    """One guide file read from the course folder.

    ``path`` is relative to the course root with ``/`` separators; ``text`` is the
    decoded text (invalid UTF-8 replaced by U+FFFD; for ``html`` and ``pdf`` the Markdown
    text derived from the file); ``kind`` is ``markdown``, ``html``, ``pdf``, ``text`` or ``code``;
    ``language`` names a code sample's language.
    """

    path: str
    text: str
    sha256: str
    size_bytes: int
    kind: str
    language: str = ""


@dataclass(frozen=True)
class Heading:
    """A heading of a guide: level 1-6, plain text, GitHub-style anchor, character offset."""

    level: int
    text: str
    anchor: str
    start: int


@dataclass(frozen=True)
class Chunk:
    """A retrievable unit of a guide.

    ``key`` is ``<source path>#<anchor>:<ordinal>``; ``heading_path`` lists the headings
    from the top down; ``text`` is ``source.text[start:end]`` (the guide's own words);
    ``indexed_text`` adds the guide title and heading path, and is what BM25 and the
    embedding model see.
    """

    key: str
    source: str
    heading_path: tuple[str, ...]
    anchor: str
    ordinal: int
    start: int
    end: int
    text: str
    indexed_text: str
    sha256: str

    @property
    def heading(self) -> str:
        """The heading path joined with `` › `` (empty for text before the first heading)."""
        return HEADING_SEPARATOR.join(self.heading_path)


@dataclass(frozen=True)
class ChunkRow:
    """One chunk as the bundle stores it (what :class:`~app.bundle.reader.BundleReader` returns): ``span`` is
    ``(start, end)`` characters into the source text."""

    chunk_id: int
    key: str
    source: str
    heading: str
    anchor: str
    span: tuple[int, int]
    text: str


@dataclass(frozen=True)
class Hit:
    """A ranked retrieval result; ``score`` is the fused score, higher is better.

    ``lexical_rank`` / ``semantic_rank`` are 1-based ranks in each leg (None when the
    chunk was not among that leg's candidates); ``similarity`` is the cosine
    similarity of query and chunk embeddings in [-1, 1] (None in keyword-only mode).
    ``row`` is the chunk itself; its fields read through the hit (``hit.text``, ``hit.span``, …).
    """

    row: ChunkRow
    score: float
    lexical_rank: int | None = None
    semantic_rank: int | None = None
    similarity: float | None = None
    exact_match: bool = False

    @classmethod
    def make(cls, chunk_id: int, key: str, source: str, heading: str, anchor: str, span: tuple[int, int],
             text: str, score: float, **ranks) -> Hit:
        """A hit over a chunk given field by field (fakes in tests, passages read back from an export);
        ``ranks``: ``lexical_rank``, ``semantic_rank``, ``similarity``, ``exact_match``."""
        return cls(ChunkRow(chunk_id, key, source, heading, anchor, span, text), score, **ranks)

    def with_text(self, text: str, span: tuple[int, int] | None = None) -> Hit:
        """This hit over the same chunk with ``text`` (and ``span``) replaced: a masked or trimmed passage."""
        return replace(self, row=replace(self.row, text=text, span=self.row.span if span is None else span))

    @property
    def chunk_id(self) -> int:
        return self.row.chunk_id

    @property
    def key(self) -> str:
        return self.row.key

    @property
    def source(self) -> str:
        return self.row.source

    @property
    def heading(self) -> str:
        return self.row.heading

    @property
    def anchor(self) -> str:
        return self.row.anchor

    @property
    def span(self) -> tuple[int, int]:
        return self.row.span

    @property
    def text(self) -> str:
        return self.row.text


@dataclass(frozen=True)
class Passage:
    """A chunk sent to the model (or shown in an extractive answer), numbered from 1."""

    n: int
    hit: Hit

    def as_json(self) -> dict:
        """The ``sources``/``citations`` entry of the ``ask --json`` contract."""
        return {
            "n": self.n,
            "source": self.hit.source,
            "heading": self.hit.heading,
            "anchor": self.hit.anchor,
            "chunk_key": self.hit.key,
            "span": [self.hit.span[0], self.hit.span[1]],
        }


ANSWER_STATES = ("answered", "extractive", "not-covered", "declined-off-topic", "declined-injection")


@dataclass(frozen=True)
class Answer:
    """The outcome of one question, pinned to one corpus version.

    ``state`` is one of :data:`ANSWER_STATES`; ``citations`` are the passages the answer
    cites that passed the citation check (a subset of ``passages``, same numbers).
    """

    state: str
    text: str
    passages: tuple[Passage, ...]
    citations: tuple[Passage, ...]
    corpus_version: str
    model: str
    degraded: tuple[str, ...] = field(default_factory=tuple)
    timings_ms: dict = field(default_factory=dict, compare=False)
    checks: dict = field(default_factory=dict, compare=False)
    #: Names and key terms of the question the guides never mention (why it is not covered).
    missing_terms: tuple[str, ...] = ()
    #: Who ran the model that answered: ``in-app``, ``remote http://host:port`` (app/answer/remote.py), '' for none.
    engine: str = ""

    def as_json(self) -> dict:
        """The ``ask --json`` document of DESIGN.md, with ``timings_ms`` (stages that ran, ms,
        rounded to 0.1) and ``checks`` (the model's sentences: ``sentences`` read, ``shown``, and
        how many each check dropped) when the model ran, and ``missing_terms`` (the question's
        names and key terms the guides never mention) when there are any, and ``engine`` (who ran
        ``model``: ``in-app`` or ``remote http://host:port``) when a model was loaded."""
        return {
            "state": self.state,
            "degraded": list(self.degraded),
            "answer": self.text,
            "citations": [p.as_json() for p in self.citations],
            "sources": [p.as_json() for p in self.passages],
            "corpus_version": self.corpus_version,
            "model": self.model,
            **({"engine": self.engine} if self.engine else {}),
            "timings_ms": {k: round(float(v), 1) for k, v in self.timings_ms.items()},
            **({"checks": dict(self.checks)} if self.checks else {}),
            **({"missing_terms": list(self.missing_terms)} if self.missing_terms else {}),
        }
