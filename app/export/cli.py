"""The command line's side of exporting: ``lantern export --history FILE -o OUT`` and the Markdown
reply of ``lantern ask --format markdown`` (``app/cli.py`` registers both and reads the history
file with its own checked reader, passed in as ``read_history``).

A history file is the ``--history`` file of ``lantern ask``: a JSON list of ``{"role": "user" |
"assistant", "content": "text"}`` turns. An assistant turn may also carry the fields of that
answer's ``ask --json`` document (``state``, ``citations``, ``sources``, ``corpus_version``) and
``answered_at`` (an ISO 8601 time); its citations then become the export's references. A turn
without them is exported as the text it holds.

The words Lantern writes into these exports ("Question 1", "References", each answer's state), and
the line ``lantern export`` prints once the file is saved, are in the course's language, as its
replies are (:func:`app.export.words.course_words` of the bundle's ``meta['language']``); English
when no bundle is found or its language has no table.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from ..records import ANSWER_STATES, Answer, Hit, Passage
from .document import Asked, CourseInfo, conversation_document
from .files import ExportError, export_format, write_document
from .render import to_html, to_markdown
from .words import ExportWords, course_words, english_words

_NO_ANSWER = Answer(state="none", text="", passages=(), citations=(), corpus_version="", model="")

EXAMPLES = """examples:
  lantern export --history chat.json -o chat.html
  lantern export --history chat.json -o chat.pdf --bundle corpus_bundle/esp32-starter.sqlite
  lantern ask --format markdown "What does ledcAttach do?" > answer.md
"""


def add_export_command(sub) -> None:
    """Add ``export`` to the ``lantern`` subcommands ``sub``."""
    cmd = sub.add_parser("export", help="save a conversation (a --history file) as Markdown, HTML or PDF",
                         description="Save the questions and answers of a history file (the JSON list of turns "
                         "that `lantern ask --history` reads) as Markdown, one self-contained HTML page, or PDF, "
                         "chosen by the -o file's ending; citations become a reference list (guide, section, "
                         "course title and version, date). An assistant turn may carry the fields of its `ask "
                         "--json` document (state, citations, sources, corpus_version) to keep its references. "
                         "The file is written whole or not at all.",
                         epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmd.add_argument("--history", type=Path, required=True, help="JSON file of turns [{role, content}, ...]")
    cmd.add_argument("-o", "--output", type=Path, required=True,
                     help="file to write: .md (Markdown), .html (web page) or .pdf")
    cmd.add_argument("--bundle", type=Path, help="course bundle naming the course and its guides "
                     "(default: the settings file's, or corpus_bundle/; none found: the course is left unnamed)")


def _passages(items: object) -> tuple[Passage, ...]:
    if not isinstance(items, list):
        return ()
    found = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("n"), int) and isinstance(item.get("source"), str):
            found.append(Passage(item["n"], Hit.make(chunk_id=0, key=str(item.get("chunk_key", "")), source=item["source"],
                                                heading=str(item.get("heading", "")), anchor=str(item.get("anchor", "")),
                                                span=(0, 0), text="", score=0.0)))  # spans are not exported
    return tuple(found)


def _when(turn: dict) -> datetime | None:
    try:
        when = datetime.fromisoformat(str(turn["answered_at"]))
    except (KeyError, ValueError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def history_exchanges(history: list[dict], words: ExportWords | None = None) -> list[Asked]:
    """The exchanges of checked history turns: each user turn with the assistant turn after it (a
    user turn without one is exported with the words ``no_answer``, an assistant turn without one
    with an empty question; an assistant turn without a known state with ``history_note``), in
    ``words``' language (default English)."""
    words = words or english_words()
    no_answer, history_note = words.text("no_answer"), words.text("history_note")
    asked: list[Asked] = []
    pending: str | None = None
    for turn in history:
        if turn["role"] == "user":
            if pending is not None:
                asked.append(Asked(pending, _NO_ANSWER, note=no_answer))
            pending = turn["content"]
            continue
        known = turn.get("state") in ANSWER_STATES  # else the text is kept as written, not split or linked
        answer = Answer(state=str(turn["state"]) if known else "history", text=turn["content"],
                        passages=_passages(turn.get("sources")), citations=_passages(turn.get("citations")),
                        corpus_version=str(turn.get("corpus_version", "")), model=str(turn.get("model", "")))
        asked.append(Asked(pending or "", answer, answered_at=_when(turn), note="" if known else history_note))
        pending = None
    if pending is not None:
        asked.append(Asked(pending, _NO_ANSWER, note=no_answer))
    return asked


def _course(bundle_path: Path | None) -> tuple[CourseInfo, Callable[[str], str], ExportWords]:
    """The course, guide titles and export words (in the course's language) of ``bundle_path``
    (default: the default bundle; none: unnamed, English)."""
    from ..bundle.library import default_bundle
    from ..bundle.reader import BundleReader

    path = bundle_path or default_bundle()
    if path is None or (bundle_path is None and not Path(path).is_file()):
        return CourseInfo(""), lambda _path: "", english_words()
    reader = BundleReader(Path(path))
    titles = {s.path: s.title for s in reader.sources()}
    course = CourseInfo.from_meta(reader.meta, reader.title)
    words = course_words(reader.meta.get("language"))
    reader.close()
    return course, lambda guide: titles.get(guide, ""), words


def cmd_export(args, read_history: Callable[[Path], list[dict]]) -> int:
    """``lantern export``: 0 when written, raises :class:`LanternError` (exit 1) otherwise."""
    export_format(args.output)  # a wrong ending is refused before anything is read
    history = read_history(args.history)
    if not history:
        raise ExportError(f"The history file {args.history} holds no turns; nothing to export.")
    course, titles, words = _course(args.bundle)
    doc = conversation_document(history_exchanges(history, words), course, guide_title=titles, words=words)
    fmt = write_document(args.output, lambda: to_markdown(doc), lambda: to_html(doc), doc.title)
    print(words.text("saved", answers=words.count("answers", len(doc.answers)), file=args.output, format=fmt,
                     references=words.count("references", len(doc.references))))
    return 0


def ask_markdown(question: str, answer: Answer, bundle) -> str:
    """The reply of ``lantern ask --format markdown``: the answer's state, its checked sentences, its
    quotes and its reference list, as Markdown (``bundle``: the open :class:`BundleReader`), in the
    course's language as the reply is."""
    course = CourseInfo.from_meta(bundle.meta, bundle.title)
    doc = conversation_document([Asked(question, answer)], course, guide_title=bundle.source_title,
                                words=course_words(bundle.meta.get("language")))
    return to_markdown(doc, reply_only=True)
