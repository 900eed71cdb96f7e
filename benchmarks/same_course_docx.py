"""Same course, other format (issue 26): a Markdown course converted to Word files and to PowerPoint
decks, rebuilt and asked the same questions; retrieval and extractive replies should stay within one
question of the Markdown build.

Each ``.md`` guide becomes, from the Markdown's own parse:
- a ``.docx`` made with python-docx: headings as Heading N styles, lists as List Bullet/List Number
  [2, 3] styles, code as Consolas paragraphs, tables as Word tables;
- a ``.pptx`` made with python-pptx the way an instructor makes a deck: one slide per section (every
  heading starts one, "Title and Content" layout, the heading as the slide title, the guide's title
  as the deck's title), the section's paragraphs and list items as bullets of the content
  placeholder (list items one level per nesting), code as a text box set in Consolas, tables as
  PowerPoint tables (first row the header); text after a code block or table goes in a new text
  box below it, so the slide reads in the guide's order.
Pictures are not inserted: a paragraph holding only a picture keeps its Markdown reference as text.
Other files are copied. The question file's sources are renamed to match. Every folder is built
with the real embedding model and measured with ``lantern eval --answers --search-only``
(retrieval, and whether the extractive reply holds an expected phrase).

usage: python benchmarks/same_course_docx.py [COURSE] [QUESTIONS.jsonl] [--work DIR] [--formats docx,pptx]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _inline(token) -> str:
    """The words of an inline token: text and inline code, a line break as a space (markup dropped)."""
    parts = [" " if c.type in ("softbreak", "hardbreak") else c.content
             for c in token.children or [] if c.type in ("text", "code_inline", "softbreak", "hardbreak")]
    return "".join(parts) or (token.content if token.type == "inline" else "")


def markdown_to_docx(text: str, out: Path) -> None:  # noqa: C901 (a straight walk over token types)
    """Write the Markdown ``text`` as a Word document at ``out``."""
    import docx

    from app.ingest.markdown import front_matter_end, parser

    document = docx.Document()
    tokens = parser().parse(text[front_matter_end(text):])
    lists: list[str] = []
    row: list[str] = []
    rows: list[list[str]] = []
    level = 0
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1])
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append("List Bullet" if token.type.startswith("bullet") else "List Number")
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif token.type == "inline" and tokens[i - 1].type == "heading_open":
            document.add_heading(_inline(token), min(level, 9))
        elif token.type == "inline" and tokens[i - 1].type == "paragraph_open" and not row and not rows:
            if lists:
                style = lists[-1] + (f" {len(lists)}" if 1 < len(lists) <= 3 else "")
                document.add_paragraph(_inline(token), style=style)
            else:
                document.add_paragraph(_inline(token))
        elif token.type in ("fence", "code_block"):
            for line in token.content.rstrip("\n").split("\n"):  # code as instructors set it: Consolas lines
                document.add_paragraph().add_run(line).font.name = "Consolas"
        elif token.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(_inline(token))
        elif token.type == "tr_close":
            rows.append(row)
            row = []
        elif token.type == "table_close":
            table = document.add_table(rows=len(rows), cols=max(len(r) for r in rows))
            for r, cells in enumerate(rows):
                for c, value in enumerate(cells):
                    table.cell(r, c).text = value
            rows = []
    document.save(out)


def _sections(text: str) -> list[tuple[str, list[tuple]]]:  # noqa: C901 (a straight walk over token types)
    """The Markdown ``text`` as (heading, blocks) sections, one per heading (a first section with the
    heading ``""`` holds what comes before any). A block is ``("item", level, text)`` (a paragraph
    at level 0, a list item at its nesting level from 0), ``("code", text)`` or ``("table", rows)``."""
    from app.ingest.markdown import front_matter_end, parser

    tokens = parser().parse(text[front_matter_end(text):])
    sections: list[tuple[str, list[tuple]]] = [("", [])]
    lists = 0
    row: list[str] = []
    rows: list[list[str]] = []
    for i, token in enumerate(tokens):
        previous = tokens[i - 1].type if i else ""
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists -= 1
        elif token.type == "inline" and previous == "heading_open":
            sections.append((_inline(token), []))
        elif token.type == "inline" and previous == "paragraph_open":
            sections[-1][1].append(("item", max(lists - 1, 0), _inline(token)))
        elif token.type in ("fence", "code_block"):
            sections[-1][1].append(("code", token.content.rstrip("\n")))
        elif token.type == "inline" and previous in ("th_open", "td_open"):
            row.append(_inline(token))
        elif token.type == "tr_close":
            rows.append(row)
            row = []
        elif token.type == "table_close":
            sections[-1][1].append(("table", rows))
            rows = []
    return [s for s in sections if s[0] or s[1]]


def markdown_to_pptx(text: str, out: Path) -> None:
    """Write the Markdown ``text`` as a PowerPoint deck at ``out`` (one slide per section: module docstring)."""
    import pptx

    deck = pptx.Presentation()
    sections = _sections(text)
    deck.core_properties.title = next((title for title, _ in sections if title), "")
    for title, blocks in sections:
        slide = deck.slides.add_slide(deck.slide_layouts[1])  # Title and Content
        slide.shapes.title.text = title
        body = slide.placeholders[1]
        runs = _runs(blocks)
        top = 1.6  # inches from the slide's top edge
        if runs and runs[0][0] == "item":  # the section's first words go in the content placeholder
            _bullets(body.text_frame, runs.pop(0)[1])
            top += 0.4 * len(body.text_frame.paragraphs)
        else:  # a slide that opens with code or a table: no empty placeholder left behind
            body._element.getparent().remove(body._element)
        for kind, group in runs:
            if kind == "item":
                top = _add_text_box(slide, top, group)
            elif kind == "code":
                top = _add_code_box(slide, top, group[0][1])
            else:
                top = _add_table(slide, top, group[0][1])
    deck.save(out)


def _runs(blocks: list[tuple]) -> list[tuple[str, list[tuple]]]:
    """Consecutive ``item`` blocks grouped into one run; each code block and table a run of its own."""
    runs: list[tuple[str, list[tuple]]] = []
    for block in blocks:
        if block[0] == "item" and runs and runs[-1][0] == "item":
            runs[-1][1].append(block)
        else:
            runs.append((block[0], [block]))
    return runs


def _bullets(frame, items: list[tuple]) -> None:
    """``items`` (``("item", level, text)``) as the paragraphs of ``frame``, each at its level."""
    for n, (_, level, text) in enumerate(items):
        par = frame.paragraphs[0] if n == 0 else frame.add_paragraph()
        par.text = text
        par.level = min(level, 8)


def _add_text_box(slide, top: float, items: list[tuple]) -> float:
    from pptx.util import Inches

    box = slide.shapes.add_textbox(Inches(0.5), Inches(top), Inches(9), Inches(0.4 * len(items)))
    box.text_frame.word_wrap = True
    _bullets(box.text_frame, items)
    return top + 0.4 * len(items)


def _add_code_box(slide, top: float, code: str) -> float:
    """The code as a text box, one paragraph per line, every run in Consolas (as instructors set code)."""
    from pptx.util import Inches, Pt

    lines = code.split("\n")
    box = slide.shapes.add_textbox(Inches(0.5), Inches(top), Inches(9), Inches(0.2 * len(lines)))
    for n, line in enumerate(lines):
        par = box.text_frame.paragraphs[0] if n == 0 else box.text_frame.add_paragraph()
        run = par.add_run()
        run.text = line
        run.font.name = "Consolas"
        run.font.size = Pt(12)
    return top + 0.2 * len(lines)


def _add_table(slide, top: float, rows: list[list[str]]) -> float:
    from pptx.util import Inches

    width = max(len(r) for r in rows)
    table = slide.shapes.add_table(len(rows), width, Inches(0.5), Inches(top), Inches(9),
                                   Inches(0.4 * len(rows))).table
    for r, cells in enumerate(rows):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    return top + 0.4 * len(rows)


#: Target format -> the function that writes one Markdown guide in it.
WRITERS = {".docx": markdown_to_docx, ".pptx": markdown_to_pptx}


def convert_course(course: Path, target: Path, suffix: str = ".docx") -> None:
    """``course`` copied to ``target`` with every Markdown guide as a file of ``suffix`` (``.docx`` or
    ``.pptx``) of the same stem."""
    for path in sorted(course.rglob("*")):
        if path.is_dir() or any(part.startswith(".") for part in path.relative_to(course).parts):
            continue
        dest = target / path.relative_to(course)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".md":
            WRITERS[suffix](path.read_text(encoding="utf-8"), dest.with_suffix(suffix))
        else:
            shutil.copy2(path, dest)


def _lantern(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"lantern {' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def measure(course: Path, questions: Path, work: Path, name: str) -> dict:
    bundle = work / f"{name}.sqlite"
    _lantern("build", str(course), "-o", str(bundle), "--title", name)
    doc = json.loads(_lantern("eval", "--bundle", str(bundle), str(questions), "--answers", "--search-only", "--json"))
    return doc


def _summary(doc: dict) -> dict:
    """Retrieval (source-level, hybrid) and the extractive replies' figures of one ``eval --json`` report."""
    ranking = next(iter(doc["ranking"].values()))["source"]["overall"]
    answers = doc.get("answers", {})
    return {"retrieval": {k: round(v, 3) for k, v in ranking.items()},
            "expected_phrase": answers.get("expected_phrase"),
            "behaviour_correct": {k: f"{v['correct']}/{v['n']}" for k, v in answers.get("behaviour", {}).items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("course", type=Path, nargs="?", default=ROOT / "courses" / "esp32-starter")
    parser.add_argument("questions", type=Path, nargs="?", default=ROOT / "tests" / "data" / "esp32-starter.eval.jsonl")
    parser.add_argument("--work", type=Path, help="keep the converted courses and bundles here")
    parser.add_argument("--formats", default="docx,pptx", help="formats to convert to, comma-separated (docx, pptx)")
    parser.add_argument("--reuse", action="store_true", help="summarise the reports of an earlier run in --work")
    args = parser.parse_args(argv)
    formats = [f.strip().lstrip(".") for f in args.formats.split(",") if f.strip()]
    unknown = [f for f in formats if f".{f}" not in WRITERS]
    if unknown:
        parser.error(f"unknown format {unknown[0]!r}: give docx, pptx or both (--formats docx,pptx)")
    work = args.work or Path(tempfile.mkdtemp(prefix="same-course-"))
    work.mkdir(parents=True, exist_ok=True)
    saved = work / "same_course.json"
    result = json.loads(saved.read_text(encoding="utf-8")) if args.reuse and saved.is_file() else {}
    if "markdown" not in result:
        result["markdown"] = measure(args.course, args.questions, work, "markdown")
    lines = [line for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    for fmt in formats:
        converted = work / f"course-{fmt}"
        shutil.rmtree(converted, ignore_errors=True)
        convert_course(args.course, converted, f".{fmt}")
        renamed = work / f"questions-{fmt}.jsonl"
        renamed.write_text("\n".join(_renamed(line, f".{fmt}") for line in lines) + "\n", encoding="utf-8")
        if fmt not in result:
            result[fmt] = measure(converted, renamed, work, fmt)
    saved.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps({k: _summary(v) for k, v in result.items()}, indent=2))
    print(f"full reports: {saved}")
    return 0


def _renamed(line: str, suffix: str = ".docx") -> str:
    row = json.loads(line)
    for key in ("expected_sources",):
        if isinstance(row.get(key), list):
            row[key] = [s[:-3] + suffix if s.endswith(".md") else s for s in row[key]]
    return json.dumps(row, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
