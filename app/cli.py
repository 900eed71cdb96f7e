"""Command line: ``lantern build | check | inspect | courses | install | rollback | search | ask | eval``
(no arguments opens the desktop app).

``--json`` prints exactly one JSON document on stdout; progress, warnings and logs go
to stderr. Exit codes: 0 success (including answers that decline or say "not
covered"), 1 an error the user can fix (one sentence on stderr, no traceback);
``check`` follows ``diff``: 0 up to date, 1 stale, 2 error. ``--self-test`` exits 0 when
the bundle and both models work.

The instructor and course-library commands (``check``, ``inspect``, ``courses``, ``install``,
``rollback``) live in :mod:`app.cli_course`; ``ask``'s text output in :mod:`app.cli_ask`, and the
``--history`` file reader in :mod:`app.cli_history`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from . import __version__
from .answer.remote import add_model_url_argument, use_model_url
from .bundle.library import default_bundle
from .cli_ask import print_checked_answer
from .cli_course import INSTRUCTOR_COMMANDS, LIBRARY_COMMANDS, _add_instructor_commands, _add_library_commands, _count
from .cli_history import MAX_HISTORY_BYTES, read_history  # noqa: F401  (MAX_HISTORY_BYTES re-exported)
from .errors import BundleError, LanternError
from .export.cli import add_export_command, ask_markdown, cmd_export
from .records import join_heading
from .report.cli import REPORT_COMMANDS, add_report_command
from .report.recorder import record_cli_reply
from .retrieval.retriever import DEFAULT_FUSION, FUSIONS
from .serve.command import SERVE_COMMANDS, add_serve_command

log = logging.getLogger("lantern")

EXAMPLES = """examples:
  lantern build courses/esp32-starter -o corpus_bundle/esp32-starter.sqlite
  lantern search --bundle corpus_bundle/esp32-starter.sqlite "OLED stays blank"
  lantern ask --bundle corpus_bundle/esp32-starter.sqlite --json "What does ledcAttach do?"
  lantern check courses/esp32-starter corpus_bundle/esp32-starter.sqlite
  lantern inspect corpus_bundle/esp32-starter.sqlite
  lantern courses
  lantern install /media/usb/esp32-starter.sqlite
  lantern --self-test
  lantern eval --bundle corpus_bundle/esp32-starter.sqlite tests/data/esp32-starter.eval.jsonl
  lantern ask --bundle corpus_bundle/esp32-starter.sqlite --format markdown "Which pin is the LED on?"
  lantern export --history chat.json -o chat.pdf
  lantern serve --bundle corpus_bundle/esp32-starter.sqlite --host 0.0.0.0 --port 8765
  lantern report --format html -o report.html
"""


def _parser() -> argparse.ArgumentParser:
    """``lantern``'s argument parser: the app's own options, then each command group's step."""
    parser = argparse.ArgumentParser(prog="lantern", description="Lantern: an offline course assistant. "
                                     "Run without a command to open the desktop app.",
                                     epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"lantern {__version__}")
    parser.add_argument("--bundle", type=Path, help="course bundle to open in the desktop app")
    parser.add_argument("--model", type=Path, help="chat model (GGUF file) for the desktop app")
    add_model_url_argument(parser)
    parser.add_argument("--self-test", action="store_true",
                        help="open the bundle, load both models, answer one question with a citation, "
                        "print a one-line report and exit (0 when everything works)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_build_command(sub)
    _add_query_commands(sub)
    _add_instructor_commands(sub)
    _add_library_commands(sub)
    add_report_command(sub)
    add_serve_command(sub)
    add_export_command(sub)
    _add_eval_command(sub)
    return parser


def _add_build_command(sub) -> None:
    """Add ``build`` (its incremental options come from :func:`app.cli_course._add_instructor_commands`)."""
    build = sub.add_parser("build", help="build a course bundle from a folder of guides",
                           description="Read a folder of course guides, chunk, embed and index them, and write "
                           "one bundle file (written to a temporary file and renamed into place).",
                           epilog="examples:\n  lantern build courses/esp32-starter -o corpus_bundle/esp32-starter.sqlite\n"
                           "  lantern build guides/ -o esp32.sqlite --id esp32-starter --title 'ESP32 Starter Lab'\n"
                           "  lantern build courses/esp32-starter -o new.sqlite --previous old.sqlite   "
                           "(reuse unchanged embeddings)",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    build.add_argument("source_dir", type=Path, help="folder holding the course guides")
    build.add_argument("-o", "--output", type=str, required=True, help="bundle file to write (.sqlite)")
    build.add_argument("--title", default="", help="course title shown in the app (default: the title of the -o bundle "
                       "being rebuilt, else the folder name)")
    build.add_argument("--id", dest="course_id", default="", metavar="ID",
                       help="stable course id, e.g. esp32-starter: lower-case letters, digits and hyphens; bundles "
                       "with one id are versions of one course (default: the folder's name as a slug)")
    build.add_argument("--language", default=None, metavar="TAG",
                       help="the language the guides are written in, as a language tag (en, de, pt-BR), shown in "
                       "the course list (default: guessed from the guides' prose; left unknown when unsure)")
    build.add_argument("--include", action="append", default=[], metavar="GLOB", help="also read files matching GLOB")
    build.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip files matching GLOB")
    build.add_argument("--force", action="store_true",
                       help="replace the -o file even when it is the bundle of another course id")
    build.add_argument("--json", action="store_true", help="print a JSON report on stdout")


def _add_query_commands(sub) -> None:
    """Add ``search`` and ``ask``."""
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
            add_model_url_argument(cmd)
            cmd.add_argument("--search-only", action="store_true", help="do not load the chat model; show passages")
            cmd.add_argument("--history", type=Path, help="JSON file of earlier turns [{role, content}, ...]")
            cmd.add_argument("--format", choices=("text", "markdown"), default="text",
                             help="markdown: the reply with its reference list as Markdown (docs/gui.md, Export)")


def _add_eval_command(sub) -> None:
    """Add ``eval``."""
    ev = sub.add_parser("eval", help="measure retrieval on a labelled question file",
                        description="Run every question of a question file (JSON Lines, format in docs/eval.md) "
                        "through retrieval and report Hit@k, MRR@10, nDCG@10 and Hit@sent per class for the "
                        "hybrid ranking and each leg alone, the evidence gate's decisions, and latency per stage.",
                        epilog="example:\n  lantern eval --bundle corpus_bundle/esp32-starter.sqlite "
                        "tests/data/esp32-starter.eval.jsonl --json",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("questions", type=Path, help="question file (.jsonl)")
    ev.add_argument("--bundle", type=Path, help="course bundle (default: the settings file's, or corpus_bundle/)")
    ev.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    ev.add_argument("--keyword-only", action="store_true", help="do not load the embedding model")
    ev.add_argument("--fusion", choices=FUSIONS, default=DEFAULT_FUSION,
                    help=f"fusion method (default {DEFAULT_FUSION})")
    ev.add_argument("--answers", action="store_true",
                    help="also run every question through the answerer with the chat model (slow: seconds each) and "
                    "grade behaviour, citation validity and time to first token")
    ev.add_argument("--model", type=Path, help="chat model GGUF for --answers (default: the settings file's, or models/)")
    ev.add_argument("--search-only", action="store_true",
                    help="with --answers: grade the extractive answers without loading a chat model (fast)")


def _open_bundle(path: Path | None):
    from .bundle.reader import BundleReader

    path = path or default_bundle()
    if path is None:
        raise BundleError("No course bundle was given and none was found in corpus_bundle/; "
                          "pass --bundle FILE or build one with `lantern build`.")
    return BundleReader(path)


def _warn(instead: str):
    """``warn`` for :func:`app.assistant.build_assistant`: a warning on stderr; without the
    chat model, one ending "``instead`` (search-only)."."""
    from .assistant import EMBEDDER_MISMATCH, NO_EMBEDDER

    def warn(what: str, message: str) -> None:
        if what == NO_EMBEDDER:
            print(f"warning: {message} Searching by keywords only.", file=sys.stderr)
        elif what == EMBEDDER_MISMATCH:
            print(f"warning: keyword-only: {message}.", file=sys.stderr)
        else:
            print(f"warning: {message} {instead} (search-only).", file=sys.stderr)
    return warn


def _retriever(bundle, keyword_only: bool, fusion: str = DEFAULT_FUSION):
    from .assistant import LOAD, build_retriever

    return build_retriever(bundle, embedder=None if keyword_only else LOAD, fusion=fusion, warn=_warn(""))


def _cmd_build(args) -> int:
    from .build_progress import BuildProgress
    from .bundle.builder import build_bundle, check_output
    from .bundle.library import check_course_id, default_course_id
    from .embedding import FastEmbedder
    from .ingest.language import check_language, language_name
    from .ingest.reader import check_course_folder

    check_course_folder(args.source_dir)  # a wrong path is reported before any model loads
    course_id = check_course_id(args.course_id) if args.course_id else default_course_id(args.source_dir)
    language = check_language(args.language) if args.language is not None else None
    check_output(args.output, args.source_dir, course_id, force=args.force)  # also before any model loads
    embedder = FastEmbedder(memory_arena=True)  # faster on batches of long chunks; the process then ends
    progress = BuildProgress()
    try:
        report = build_bundle(args.source_dir, args.output, embedder, title=args.title,
                              include=args.include, exclude=args.exclude, progress=progress,
                              previous=args.previous, reuse=not args.full, course_id=course_id, language=language,
                              force=args.force, keep_originals=args.keep_originals,
                              answer_blocks=args.answer_blocks)
    finally:
        progress.close()
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    summary = {"bundle": str(report.bundle), "course_id": course_id, "corpus_version": report.corpus_version,
               "language": report.language or None, "language_detected": report.language_detected,
               "sources": report.sources,
               "chunks": report.chunks, "assets": report.assets, "embedded": report.embedded,
               "reused": report.reused, "previous": str(report.previous) if report.previous else None,
               "answer_blocks": report.blocks, "answer_blocks_embedded": report.blocks_embedded,
               "seconds": round(report.seconds, 1), "warnings": report.warnings, "notes": report.notes}
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        reuse = (f"; {_count(report.embedded, 'chunk')} embedded, {report.reused} reused from {report.previous.name}"
                 if report.previous else f"; {_count(report.embedded, 'chunk')} embedded")
        reuse += (f", answer blocks {report.blocks_embedded} embedded of {report.blocks}" if report.blocks else "")
        spoken = (f"language {report.language} ({language_name(report.language)}"
                  f"{', guessed from the guides; --language sets it' if report.language_detected else ''})"
                  if report.language else "language unknown (--language sets it)")
        print(f"Built {report.bundle} (course id {course_id}, {spoken}): {_count(report.sources, 'guide')}, "
              f"{_count(report.chunks, 'chunk')}, "
              f"{_count(report.assets, 'image')} "
              f"in {report.seconds:.1f} s{reuse} (corpus version {report.corpus_version[:12]}).")
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
    # Ranks, not scores: a guide's third chunk is placed by a lowered score (source crowding) and a
    # linked guide after the section linking to it, so printed scores would not run in order.
    for rank, hit in enumerate(result.hits, 1):
        where = join_heading(hit.source, hit.heading)
        excerpt = " ".join(hit.text.split())[:110]
        print(f"{rank:>2}. {where}\n    {excerpt}")
    if not result.hits:
        print("No matching sections.")
    return 0


def _cmd_ask(args) -> int:
    from .assistant import LOAD, build_assistant

    history = None
    if args.history:
        history = read_history(args.history)
    if not args.query.strip():
        raise LanternError("The question is empty; type a question about the course.")
    bundle = _open_bundle(args.bundle)
    assistant = build_assistant(bundle, embedder=None if args.keyword_only else LOAD,
                                chat_model=None if args.search_only else LOAD, model_path=args.model,
                                warn=_warn("Showing the best passages instead"))
    if args.json:
        answer = assistant.answer(args.query, history)
        print(json.dumps(answer.as_json(), ensure_ascii=False))
        record_cli_reply(bundle, args.query, answer)  # the instructor's report, when it is on
        return 0
    if args.format == "markdown":  # the reply and its reference list (app/export)
        answer = assistant.answer(args.query, history)
        print(ask_markdown(args.query, answer, bundle), end="")
        record_cli_reply(bundle, args.query, answer)
        return 0
    print_checked_answer(assistant, bundle, args.query, history)  # text: evidence first, then checked sentences
    return 0


def _cmd_self_test(args) -> int:
    from .selftest import run_self_test

    report = run_self_test(args.bundle)
    print(report.line())
    return 0


def _cmd_eval(args) -> int:
    from .evaluation.questions import load_questions
    from .evaluation.report import build_report, format_report
    from .evaluation.runner import run_questions

    questions = load_questions(args.questions)
    bundle = _open_bundle(args.bundle)
    retriever = _retriever(bundle, args.keyword_only, args.fusion)
    results = run_questions(retriever, questions)
    doc = build_report(results, bundle=str(bundle.path), questions=str(args.questions),
                       corpus_version=bundle.corpus_version, fusion=args.fusion, degraded=retriever.degraded,
                       threshold=None if retriever.degraded else retriever.settings.min_similarity)
    if args.answers:
        from .assistant import LOAD, build_assistant
        from .evaluation.answers import format_answers, run_answers

        assistant = build_assistant(bundle, retriever=retriever, chat_model=None if args.search_only else LOAD,
                                    model_path=args.model, warn=_warn("Grading extractive answers"))
        doc["answers"] = run_answers(assistant, questions)
    if args.json:
        print(json.dumps(doc, ensure_ascii=False))
    else:
        print(format_report(doc))
        if args.answers:
            print()
            print(format_answers(doc["answers"]))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``lantern`` and ``python -m app``; returns the exit code."""
    logging.basicConfig(level=os.environ.get("LANTERN_LOG", "WARNING"), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args = _parser().parse_args(argv)
    try:
        use_model_url(getattr(args, "model_url", None))  # the lab's model engine, for this run only
        if args.self_test:
            return _cmd_self_test(args)
        if args.command is None:
            from .gui import run_gui

            return run_gui(args.bundle, args.model)
        from .config import settings_problems

        for problem in settings_problems():
            print(f"warning: {problem}", file=sys.stderr)
        commands = {"build": _cmd_build, "search": _cmd_search, "ask": _cmd_ask, "eval": _cmd_eval}
        commands.update(INSTRUCTOR_COMMANDS)
        commands.update(LIBRARY_COMMANDS)
        commands.update(REPORT_COMMANDS)
        commands.update(SERVE_COMMANDS)
        commands["export"] = lambda args: cmd_export(args, read_history)
        return commands[args.command](args)
    except LanternError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Interrupted; nothing was changed.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``lantern eval … | head``): stop quietly
        try:  # so that flushing stdout at exit does not raise again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
