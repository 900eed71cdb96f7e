"""Jupyter notebooks (``.ipynb``) as Markdown, read as JSON (nbformat 4, and 3's worksheets).

Markdown cells are kept as written (their headings are the notebook's sections); code cells become
fenced code blocks labelled with the kernel's language; a code cell's text output (streams, plain
text results, error names) follows as an ``output`` block of at most :data:`MAX_OUTPUT_LINES` lines
and :data:`MAX_OUTPUT_CHARS` characters; images, HTML and other rich outputs are dropped, and so
are raw cells. Pictures in Markdown cells (attachments) become ``(Image: alt text)``.
"""

from __future__ import annotations

import json

from .base import UnreadableDocument, images_as_notes, join_blocks

#: Most lines of one cell's text output kept in the guide.
MAX_OUTPUT_LINES = 12
#: Most characters of one cell's text output kept in the guide.
MAX_OUTPUT_CHARS = 800


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _fence(body: str, info: str = "") -> str:
    ticks = "```"
    while ticks in body:
        ticks += "`"
    return f"{ticks}{info}\n{body.strip(chr(10))}\n{ticks}"


def _output(outputs) -> str:
    texts = []
    for out in outputs if isinstance(outputs, list) else []:
        if not isinstance(out, dict):
            continue
        if out.get("output_type") == "stream":
            texts.append(_text(out.get("text")))
        elif out.get("output_type") in ("execute_result", "display_data", "pyout"):
            data: dict = out["data"] if isinstance(out.get("data"), dict) else out
            texts.append(_text(data.get("text/plain") or data.get("text")))
        elif out.get("output_type") in ("error", "pyerr"):
            texts.append(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}")
    lines = "".join(t if t.endswith("\n") else t + "\n" for t in texts if t).splitlines()
    kept = "\n".join(lines[:MAX_OUTPUT_LINES])[:MAX_OUTPUT_CHARS]
    if len(lines) > MAX_OUTPUT_LINES or len(kept) < len("\n".join(lines)):
        kept += "\n…"
    return _fence(kept, "output") if kept.strip() else ""


def ipynb_to_markdown(data: bytes) -> str:
    """Markdown text of an ``.ipynb`` file's bytes (mapping in the module docstring).

    Raises :class:`UnreadableDocument` when it is not JSON or not a notebook."""
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        where = f" at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise UnreadableDocument(f"the notebook is not valid JSON{where} (damaged?); open it in Jupyter "
                                 "and save it again") from exc
    if not isinstance(notebook, dict):
        raise UnreadableDocument("the file is not a Jupyter notebook (no cells); save it from Jupyter again")
    cells = notebook.get("cells")
    if cells is None and isinstance(notebook.get("worksheets"), list) and notebook["worksheets"]:
        cells = notebook["worksheets"][0].get("cells")  # nbformat 3
    if not isinstance(cells, list):
        raise UnreadableDocument("the file is not a Jupyter notebook (no cells); save it from Jupyter again")
    meta: dict = notebook["metadata"] if isinstance(notebook.get("metadata"), dict) else {}
    spec, info = meta.get("kernelspec"), meta.get("language_info")
    language = ((spec.get("language") if isinstance(spec, dict) else "")
                or (info.get("name") if isinstance(info, dict) else "") or "")
    blocks = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _text(cell.get("source", cell.get("input")))
        if cell.get("cell_type") in ("markdown", "heading"):
            level = cell.get("level") if cell.get("cell_type") == "heading" else 0
            blocks.append(("#" * int(level) + " " if isinstance(level, int) and 0 < level < 7 else "")
                          + images_as_notes(source))
        elif cell.get("cell_type") == "code" and source.strip():
            blocks.append(_fence(source, str(language) if isinstance(language, str) else ""))
            blocks.append(_output(cell.get("outputs")))
    return join_blocks(blocks)
