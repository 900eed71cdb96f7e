"""Same course, other format (issue 26): a Markdown course converted to Word files, rebuilt and asked
the same questions; retrieval and extractive replies should stay within one question of the Markdown build.

Each ``.md`` guide becomes a ``.docx`` made with python-docx from the Markdown's own parse (headings
as Heading N styles, lists as List Bullet/List Number [2, 3] styles, code as Consolas paragraphs, tables as
Word tables); other files are copied. The question file's sources are renamed to match. Both
folders are built with the real embedding model and measured with ``lantern eval --answers
--search-only`` (retrieval, and whether the extractive reply holds an expected phrase).

usage: python benchmarks/same_course_docx.py [COURSE] [QUESTIONS.jsonl] [--work DIR]
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
    return "".join(c.content for c in token.children or [] if c.type in ("text", "code_inline")
                   ) or (token.content if token.type == "inline" else "")


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


def convert_course(course: Path, target: Path) -> None:
    """``course`` copied to ``target`` with every Markdown guide as a ``.docx`` of the same stem."""
    for path in sorted(course.rglob("*")):
        if path.is_dir() or any(part.startswith(".") for part in path.relative_to(course).parts):
            continue
        dest = target / path.relative_to(course)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".md":
            markdown_to_docx(path.read_text(encoding="utf-8"), dest.with_suffix(".docx"))
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
    parser.add_argument("--work", type=Path, help="keep the converted course and bundles here")
    parser.add_argument("--reuse", action="store_true", help="summarise the reports of an earlier run in --work")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="same-course-"))
    converted = work / "course-docx"
    convert_course(args.course, converted)
    renamed = work / "questions-docx.jsonl"
    lines = args.questions.read_text(encoding="utf-8").splitlines()
    renamed.write_text("\n".join(_renamed(line) for line in lines if line.strip()) + "\n", encoding="utf-8")
    if args.reuse and (work / "same_course.json").is_file():
        result = json.loads((work / "same_course.json").read_text(encoding="utf-8"))
    else:
        result = {"markdown": measure(args.course, args.questions, work, "markdown"),
                  "docx": measure(converted, renamed, work, "docx")}
    (work / "same_course.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps({k: _summary(v) for k, v in result.items()}, indent=2))
    print(f"full reports: {work / 'same_course.json'}")
    return 0


def _renamed(line: str) -> str:
    row = json.loads(line)
    for key in ("expected_sources",):
        if isinstance(row.get(key), list):
            row[key] = [s[:-3] + ".docx" if s.endswith(".md") else s for s in row[key]]
    return json.dumps(row, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
