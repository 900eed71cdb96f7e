"""Structure-aware chunking of guides into retrievable chunks.

Rules (issue 2): a heading stays with the prose it governs (chunks never cross a
section boundary, and a section's heading line opens its first chunk); a code block
stays with the paragraph that introduces it; tables and lists are split only between
lines, never mid-row; chunks aim at ``min_chars``..``max_chars`` characters. A block
longer than ``max_chars`` (a 200 KB line, a 2,500-row table) is split at line breaks,
then at spaces, then hard, so no text is dropped and no chunk grows unbounded.
Code samples and plain-text files are cut at blank lines into the same size range.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass

import yaml

from ..formats.kinds import MARKDOWN_KINDS
from ..records import HEADING_SEPARATOR, Chunk, Heading, SourceDoc, join_heading
from .markdown import Block, front_matter_end, parse_blocks
from .slug import Slugger


@dataclass(frozen=True)
class ChunkerSettings:
    """Chunk size targets in characters; recorded in the bundle's meta."""

    min_chars: int = 400
    max_chars: int = 1200
    name: str = "lantern-structure"
    version: int = 1

    def as_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "min_chars": self.min_chars, "max_chars": self.max_chars}


@dataclass(frozen=True)
class ChunkedDoc:
    """A source's title, headings and chunks."""

    title: str
    headings: tuple[Heading, ...]
    chunks: tuple[Chunk, ...]


def _split_long(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into pieces of at most ``limit`` characters at line breaks,
    else at the last space, else hard."""
    pieces: list[tuple[int, int]] = []
    pos = start
    while end - pos > limit:
        window = text[pos:pos + limit]
        cut = window.rfind("\n")
        if cut < limit // 3:
            cut = max(window.rfind(" "), window.rfind("\t"))
        if cut < limit // 3:
            cut = limit - 1
        pieces.append((pos, pos + cut + 1))
        pos += cut + 1
    if pos < end:
        pieces.append((pos, end))
    return [(a, b) for a, b in pieces if text[a:b].strip()]


def _pack(text: str, blocks: list[Block], settings: ChunkerSettings) -> list[tuple[int, int]]:
    """Group consecutive blocks of one section into chunk spans."""
    units: list[Block] = []
    for block in blocks:
        if block.end - block.start > settings.max_chars:
            units.extend(Block(block.kind, a, b) for a, b in _split_long(text, block.start, block.end, settings.max_chars))
        else:
            units.append(block)
    groups: list[list[Block]] = []
    current: list[Block] = []
    for unit in units:
        if current and unit.end - current[0].start > settings.max_chars and not all(b.kind == "heading" for b in current):
            carry: list[Block] = []
            if unit.kind == "code" and len(current) > 1 and current[-1].kind == "paragraph" and current[-2].kind != "heading":
                carry = [current.pop()]
            groups.append(current)
            current = carry
        current.append(unit)
    if current:
        groups.append(current)
    spans = [(g[0].start, g[-1].end) for g in groups]
    # A short tail joins the chunk before it when the two still fit comfortably.
    if len(spans) > 1 and spans[-1][1] - spans[-1][0] < settings.min_chars \
            and spans[-1][1] - spans[-2][0] <= settings.max_chars + settings.min_chars // 2:
        spans[-2:] = [(spans[-2][0], spans[-1][1])]
    return spans


def _context(path: str, title: str, heading_path: tuple[str, ...]) -> str:
    folder = join_heading(*posixpath.dirname(path).split("/")).replace("-", " ").replace("_", " ")
    head = join_heading(title, *(h for h in heading_path if h != title))
    return f"{head}\n({folder})" if folder else head


def _make_chunk(doc: SourceDoc, title: str, heading_path: tuple[str, ...], anchor: str, ordinal: int,
                start: int, end: int) -> Chunk:
    text = doc.text[start:end]
    indexed = f"{_context(doc.path, title, heading_path)}\n{text}"
    return Chunk(key=f"{doc.path}#{anchor}:{ordinal}", source=doc.path, heading_path=heading_path, anchor=anchor,
                 ordinal=ordinal, start=start, end=end, text=text, indexed_text=indexed,
                 sha256=hashlib.sha256(indexed.encode("utf-8")).hexdigest())


def front_matter_title(text: str) -> str:
    """The ``title:`` of a guide's YAML front matter (as Jekyll, Hugo and MkDocs write it),
    one line of at most 200 characters; "" when there is none or the block is not valid YAML."""
    end = front_matter_end(text)
    if not end:
        return ""
    lines = text[:end].splitlines()
    block = "\n".join(lines[1:-1] if len(lines) > 1 and lines[-1].strip() == "---" else lines[1:])
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError:
        return ""
    title = data.get("title") if isinstance(data, dict) else None
    return " ".join(title.split())[:200] if isinstance(title, str) else ""


def _title_from_path(path: str) -> str:
    stem = posixpath.splitext(posixpath.basename(path))[0]
    if stem.lower() in ("readme", "index"):
        parent = posixpath.basename(posixpath.dirname(path))
        stem = parent or stem
    return stem.replace("-", " ").replace("_", " ").strip().capitalize() or path


def chunk_markdown(doc: SourceDoc, settings: ChunkerSettings) -> ChunkedDoc:
    """Chunks and headings of a Markdown guide (see the module docstring for the rules)."""
    blocks = parse_blocks(doc.text)
    slugger = Slugger()
    headings: list[Heading] = []
    sections: list[tuple[tuple[str, ...], str, list[Block]]] = [((), "", [])]
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if block.kind == "heading":
            anchor = slugger.slug(block.heading)
            headings.append(Heading(block.level, block.heading, anchor, block.start))
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.heading))
            sections.append((tuple(h for _, h in stack), anchor, [block]))
        else:
            sections[-1][2].append(block)
    h1 = next((h.text for h in headings if h.level == 1 and h.text), "")
    title = h1 or front_matter_title(doc.text) or (headings[0].text if headings else "") or _title_from_path(doc.path)
    chunks: list[Chunk] = []
    for heading_path, anchor, section_blocks in sections:
        if not any(b.kind != "heading" for b in section_blocks):
            continue  # a heading with no prose of its own lives on in its subsections' heading paths
        for ordinal, (start, end) in enumerate(_pack(doc.text, section_blocks, settings)):
            chunks.append(_make_chunk(doc, title, heading_path, anchor, ordinal, start, end))
    body = front_matter_end(doc.text)
    if not chunks and doc.text[body:].strip():
        # Only headings: keep their words so the guide stays findable. Front matter is metadata,
        # not guide text, and is never indexed (a guide with nothing else has no chunks).
        for ordinal, (start, end) in enumerate(_split_long(doc.text, body, len(doc.text), settings.max_chars)):
            chunks.append(_make_chunk(doc, title, (), "", ordinal, start, end))
    return ChunkedDoc(title=title, headings=tuple(headings), chunks=tuple(chunks))


def _paragraph_blocks(text: str) -> list[Block]:
    """Blank-line separated blocks of a code or text file."""
    blocks: list[Block] = []
    pos = 0
    for part in text.split("\n\n"):
        start, end = pos, pos + len(part)
        pos = end + 2
        while start < end and text[start] in "\r\n":
            start += 1
        while end > start and text[end - 1] in "\r\n \t":
            end -= 1
        if end > start:
            blocks.append(Block("paragraph", start, end))
    return blocks


def chunk_plain(doc: SourceDoc, settings: ChunkerSettings) -> ChunkedDoc:
    """Chunks of a code sample or plain-text file: no headings, empty anchor."""
    name = posixpath.basename(doc.path)
    title = f"{name} ({doc.language} code sample)" if doc.kind == "code" else _title_from_path(doc.path)
    spans = _pack(doc.text, _paragraph_blocks(doc.text), settings)
    chunks = tuple(_make_chunk(doc, title, (), "", i, a, b) for i, (a, b) in enumerate(spans))
    return ChunkedDoc(title=title, headings=(), chunks=chunks)


def chunk_document(doc: SourceDoc, settings: ChunkerSettings) -> ChunkedDoc:
    """Dispatch on the document's kind."""
    if doc.kind in ("markdown", "html", "pdf", *MARKDOWN_KINDS):  # HTML, PDF and documents are read as Markdown text
        return chunk_markdown(doc, settings)
    return chunk_plain(doc, settings)


def heading_path_text(path: tuple[str, ...]) -> str:
    """A heading path joined as in the bundle (`` › ``)."""
    return HEADING_SEPARATOR.join(path)
