"""Build time and peak memory for instructors' documents (issue 26): a 100-slide deck and a 200-page
Word document, made with python-pptx and python-docx, each built alone into a bundle.

For each document, in a fresh process (so peak RSS is its own): file size, conversion to Markdown
(ms), the whole ``lantern build`` (read, chunk, embed, index; seconds), chunks, and peak RSS (MB).
``--fake`` embeds with the tests' bag-of-words fake instead of the real model, which times
the reading alone. Timings are never asserted in tests.

usage: python benchmarks/office_formats.py [--slides 100] [--pages 200] [--fake] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("timer channel duty cycle prescaler interrupt register counter compare output pin clock "
         "divider frequency resolution servo motor driver voltage current sensor").split()


def _sentence(n: int, length: int = 14) -> str:
    return " ".join(WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(length)).capitalize() + f" (item {n})."


def make_deck(slides: int) -> bytes:
    """A deck of ``slides`` slides: title, four bullets on two levels, speaker notes; a table every tenth."""
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    for n in range(1, slides + 1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Topic {n}: {WORDS[n % len(WORDS)]}"
        frame = slide.placeholders[1].text_frame
        frame.text = _sentence(n)
        for level in (1, 1, 0):
            par = frame.add_paragraph()
            par.text, par.level = _sentence(n + level + len(frame.paragraphs)), level
        slide.notes_slide.notes_text_frame.text = _sentence(n * 3, 30)
        if n % 10 == 0:
            table = slide.shapes.add_table(4, 3, Inches(1), Inches(5), Inches(6), Inches(1.5)).table
            for r in range(4):
                for c in range(3):
                    table.cell(r, c).text = f"r{r}c{c} {WORDS[(r + c + n) % len(WORDS)]}"
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def make_document(pages: int) -> bytes:
    """A Word document of about ``pages`` pages: per page a heading, five paragraphs, three list items;
    a table every fifth page."""
    import docx

    document = docx.Document()
    document.add_heading("Microcontroller timers", 0)
    for n in range(1, pages + 1):
        document.add_heading(f"Section {n}", 1 if n % 10 == 1 else 2)
        for p in range(5):
            document.add_paragraph(" ".join(_sentence(n * 10 + p + k) for k in range(4)))
        for k in range(3):
            document.add_paragraph(_sentence(n + k), style="List Bullet")
        if n % 5 == 0:
            table = document.add_table(rows=5, cols=3)
            for r in range(5):
                for c in range(3):
                    table.cell(r, c).text = f"r{r}c{c}"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def run_case(case: str, size: int, fake: bool) -> dict:
    """Make one document, convert it, build a bundle of it; the figures as a dict."""
    from app.bundle.builder import build_bundle
    from app.formats.convert import document_to_markdown

    data, name = (make_deck(size), "deck.pptx") if case == "deck" else (make_document(size), "notes.docx")
    started = time.perf_counter()
    text = document_to_markdown(data, Path(name).suffix, "Benchmark")
    convert_ms = (time.perf_counter() - started) * 1000
    if fake:
        sys.path.insert(0, str(ROOT / "tests"))
        from fakes import FakeEmbedder  # type: ignore[import-not-found]

        embedder = FakeEmbedder()
    else:
        from app.embedding import FastEmbedder

        embedder = FastEmbedder(memory_arena=True)
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        course.mkdir()
        (course / name).write_bytes(data)
        started = time.perf_counter()
        report = build_bundle(course, Path(tmp) / "b.sqlite", embedder)
        build_s = time.perf_counter() - started
    return {"case": case, "size": size, "file_bytes": len(data), "markdown_chars": len(text),
            "convert_ms": round(convert_ms, 1), "build_s": round(build_s, 2), "chunks": report.chunks,
            "embedder": "fake" if fake else "real",
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=100)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--fake", action="store_true", help="the fake embedder (times reading alone)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--case", choices=["deck", "document"], help=argparse.SUPPRESS)  # one case, in this process
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case, args.slides if args.case == "deck" else args.pages, args.fake)))
        return 0
    rows = []
    for case in ("deck", "document"):
        command = [sys.executable, __file__, "--case", case, "--slides", str(args.slides), "--pages", str(args.pages)]
        done = subprocess.run(command + (["--fake"] if args.fake else []), capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            print(f"{r['case']:8} {r['size']:4} {'slides' if r['case'] == 'deck' else 'pages ':6} "
                  f"{r['file_bytes']:>9,} B  convert {r['convert_ms']:8.1f} ms  build {r['build_s']:6.2f} s "
                  f"({r['chunks']} chunks, {r['embedder']} embedder)  peak RSS {r['peak_rss_mb']:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
