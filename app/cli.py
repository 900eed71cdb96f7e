"""Command line: ``lantern build | search | ask | eval`` (no arguments opens the desktop app).

``--json`` prints exactly one JSON document on stdout; progress, warnings and logs go
to stderr. Exit codes: 0 success (including answers that decline or say "not
covered"), 1 an error the user can fix (one sentence on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from . import __version__
from .config import Settings, default_bundle, default_chat_model
from .errors import BundleError, LanternError, ModelError
from .retrieval.retriever import DEFAULT_FUSION, FUSIONS

log = logging.getLogger("lantern")

EXAMPLES = """examples:
  lantern build courses/esp32-starter -o corpus_bundle/esp32-starter.sqlite
  lantern search --bundle corpus_bundle/esp32-starter.sqlite "OLED stays blank"
  lantern ask --bundle corpus_bundle/esp32-starter.sqlite --json "What does ledcAttach do?"
  lantern eval --bundle corpus_bundle/esp32-starter.sqlite courses/esp32-starter.eval.jsonl
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lantern", description="Lantern: an offline course assistant. "
                                     "Run without a command to open the desktop app.",
                                     epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"lantern {__version__}")
    parser.add_argument("--bundle", type=Path, help="course bundle to open in the desktop app")
    parser.add_argument("--model", type=Path, help="chat model (GGUF file) for the desktop app")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    build = sub.add_parser("build", help="build a course bundle from a folder of guides",
                           description="Read a folder of course guides, chunk, embed and index them, and write "
                           "one bundle file (written to a temporary file and renamed into place).",
                           epilog="example:\n  lantern build courses/esp32-starter -o corpus_bundle/esp32-starter.sqlite",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("source_dir", type=Path, help="folder holding the course guides")
    build.add_argument("-o", "--output", type=Path, required=True, help="bundle file to write (.sqlite)")
    build.add_argument("--title", default="", help="course title shown in the app (default: folder name)")
    build.add_argument("--include", action="append", default=[], metavar="GLOB", help="also read files matching GLOB")
    build.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip files matching GLOB")
    build.add_argument("--json", action="store_true", help="print a JSON report on stdout")

    for name, text in (("search", "rank the guide sections for a query"), ("ask", "answer a question from the guides")):
        cmd = sub.add_parser(name, help=text, description=text.capitalize() + ".",
                             epilog=f'example:\n  lantern {name} --bundle corpus_bundle/esp32-starter.sqlite "OLED stays blank"',
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        cmd.add_argument("query", help="the question or search words (quote it)")
        cmd.add_argument("--bundle", type=Path, help="course bundle (default: the settings file's, or corpus_bundle/)")
        cmd.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        cmd.add_argument("--keyword-only", action="store_true", help="do not load the embedding model")
        if name == "search":
            cmd.add_argument("--k", type=int, default=10, help="number of hits (default 10)")
        else:
            cmd.add_argument("--model", type=Path, help="chat model GGUF (default: the settings file's, or models/)")
            cmd.add_argument("--search-only", action="store_true", help="do not load the chat model; show passages")
            cmd.add_argument("--history", type=Path, help="JSON file of earlier turns [{role, content}, ...]")

    ev = sub.add_parser("eval", help="measure retrieval on a labelled question file",
                        description="Run every question of a question file (JSON Lines, format in docs/eval.md) "
                        "through retrieval and report Hit@k, MRR@10, nDCG@10 and Hit@sent per class for the "
                        "hybrid ranking and each leg alone, the evidence gate's decisions, and latency per stage.",
                        epilog="example:\n  lantern eval --bundle corpus_bundle/esp32-starter.sqlite "
                        "courses/esp32-starter.eval.jsonl --json",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("questions", type=Path, help="question file (.jsonl)")
    ev.add_argument("--bundle", type=Path, help="course bundle (default: the settings file's, or corpus_bundle/)")
    ev.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    ev.add_argument("--keyword-only", action="store_true", help="do not load the embedding model")
    ev.add_argument("--fusion", choices=FUSIONS, default=DEFAULT_FUSION,
                    help=f"fusion method (default {DEFAULT_FUSION})")
    return parser


def _open_bundle(path: Path | None):
    from .bundle.reader import BundleReader

    path = path or default_bundle()
    if path is None:
        raise BundleError("No course bundle was given and none was found in corpus_bundle/; "
                          "pass --bundle FILE or build one with `lantern build`.")
    return BundleReader(path)


def _retriever(bundle, keyword_only: bool, fusion: str = DEFAULT_FUSION):
    from .retrieval.retriever import Retriever

    embedder = None
    if not keyword_only:
        from .embedding import FastEmbedder

        try:
            embedder = FastEmbedder()
        except ModelError as exc:
            print(f"warning: {exc} Searching by keywords only.", file=sys.stderr)
    retriever = Retriever(bundle, embedder, fusion=fusion)
    if retriever.degraded_reason and embedder is not None:
        print(f"warning: keyword-only: {retriever.degraded_reason}.", file=sys.stderr)
    return retriever


def _cmd_build(args) -> int:
    from tqdm import tqdm

    from .bundle.builder import build_bundle
    from .embedding import FastEmbedder

    embedder = FastEmbedder()
    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in ("chunk", "embed"):
            return
        bar = bars.get(stage)
        if bar is None:
            unit = "file" if stage == "chunk" else "chunk"
            bar = bars[stage] = tqdm(total=total, desc=f"{stage:>6}", unit=unit, file=sys.stderr,
                                     disable=None, leave=True)
        bar.update(done - bar.n)

    try:
        report = build_bundle(args.source_dir, args.output, embedder, title=args.title,
                              include=args.include, exclude=args.exclude, progress=progress)
    finally:
        for bar in bars.values():
            bar.close()
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    summary = {"bundle": str(report.bundle), "corpus_version": report.corpus_version, "sources": report.sources,
               "chunks": report.chunks, "assets": report.assets, "seconds": round(report.seconds, 1),
               "warnings": report.warnings, "notes": report.notes}
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(f"Built {report.bundle}: {report.sources} guides, {report.chunks} chunks, {report.assets} images "
              f"in {report.seconds:.1f} s (corpus version {report.corpus_version[:12]}).")
    return 0


def _cmd_search(args) -> int:
    if not args.query.strip():
        raise LanternError("The search query is empty; give some words to search for.")
    if args.k < 1:
        raise LanternError(f"--k must be at least 1 (got {args.k}).")
    bundle = _open_bundle(args.bundle)
    retriever = _retriever(bundle, args.keyword_only)
    result = retriever.search(args.query, k=args.k)
    hits = [{"rank": i, "source": h.source, "heading": h.heading, "anchor": h.anchor, "chunk_key": h.key,
             "score": round(h.score, 6)} for i, h in enumerate(result.hits, 1)]
    if args.json:
        print(json.dumps({"corpus_version": bundle.corpus_version, "degraded": list(result.degraded), "hits": hits},
                         ensure_ascii=False))
        return 0
    if result.degraded:
        print(f"({', '.join(result.degraded)})")
    for hit in result.hits:
        where = f"{hit.source} › {hit.heading}" if hit.heading else hit.source
        excerpt = " ".join(hit.text.split())[:110]
        print(f"{hit.score:.4f}  {where}\n        {excerpt}")
    if not result.hits:
        print("No matching sections.")
    return 0


def _cmd_ask(args) -> int:
    from .answer.answerer import Assistant

    history = None
    if args.history:
        try:
            history = json.loads(args.history.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LanternError(f"The history file {args.history} is not readable JSON ({exc}); "
                               "give a list of {\"role\", \"content\"} objects.") from exc
        if not isinstance(history, list):
            raise LanternError(f"The history file {args.history} must hold a JSON list of turns.")
    if not args.query.strip():
        raise LanternError("The question is empty; type a question about the course.")
    bundle = _open_bundle(args.bundle)
    retriever = _retriever(bundle, args.keyword_only)
    llm = None
    if not args.search_only:
        from .answer.llm import LlamaChatModel

        llm = LlamaChatModel(args.model or default_chat_model(), threads=Settings.load().threads)
    assistant = Assistant(retriever, llm)
    streaming = not args.json and sys.stdout.isatty()
    answer = assistant.answer(args.query, history,
                              on_token=(lambda t: print(t, end="", flush=True)) if streaming else None)
    if args.json:
        print(json.dumps(answer.as_json(), ensure_ascii=False))
        return 0
    if streaming:
        print("\n")
    print(answer.text)
    if answer.degraded:
        print(f"\n({', '.join(answer.degraded)})")
    shown = answer.citations or answer.passages
    if shown:
        print("\nSources:" if answer.citations else "\nNearest sections:")
        for p in shown:
            where = f"{p.hit.source} › {p.hit.heading}" if p.hit.heading else p.hit.source
            print(f"  [{p.n}] {where}")
    return 0


def _cmd_eval(args) -> int:
    from .evaluation.questions import load_questions
    from .evaluation.report import build_report, format_report
    from .evaluation.runner import run_questions
    from .retrieval.retriever import MIN_SIMILARITY

    questions = load_questions(args.questions)
    bundle = _open_bundle(args.bundle)
    retriever = _retriever(bundle, args.keyword_only, args.fusion)
    results = run_questions(retriever, questions)
    doc = build_report(results, bundle=str(bundle.path), questions=str(args.questions),
                       corpus_version=bundle.corpus_version, fusion=args.fusion, degraded=retriever.degraded,
                       threshold=None if retriever.degraded else MIN_SIMILARITY)
    print(json.dumps(doc, ensure_ascii=False) if args.json else format_report(doc))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``lantern`` and ``python -m app``; returns the exit code."""
    logging.basicConfig(level=os.environ.get("LANTERN_LOG", "WARNING"), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args = _parser().parse_args(argv)
    try:
        if args.command is None:
            from .gui import run_gui

            return run_gui(args.bundle, args.model)
        return {"build": _cmd_build, "search": _cmd_search, "ask": _cmd_ask, "eval": _cmd_eval}[args.command](args)
    except LanternError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Interrupted; nothing was changed.", file=sys.stderr)
        return 130
