"""Export and print (issue 28): Markdown, HTML and PDF of a conversation with its references, the
window's File menu and print preview, and the CLI (``lantern export``, ``ask --format markdown``).

The PDF is printed by real Qt (offscreen) and read back with pypdf.
"""

from __future__ import annotations

import errno
import json
import os
import re
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from markdown_it import MarkdownIt  # noqa: E402
from pypdf import PdfReader  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtGui import QKeySequence  # noqa: E402
from PySide6.QtPrintSupport import QPrintPreviewDialog, QPrintPreviewWidget  # noqa: E402

from app.cli import main  # noqa: E402
from app.export.document import Asked, CourseInfo, conversation_document, reference_text  # noqa: E402
from app.export.files import ExportError, write_atomically, write_document  # noqa: E402
from app.export.render import to_html, to_markdown  # noqa: E402
from app.records import Answer, Hit, Passage  # noqa: E402

from . import test_gui as shared  # noqa: E402
from .fakes import FakeChatModel  # noqa: E402

COURSE = CourseInfo("ESP32 Starter Lab", "esp32-starter", "2026-12-02-a482c15b", "a482c15b" * 8)
TITLES = {"lessons/oled.md": "Lesson 4: OLED display", "lessons/blink.md": "Lesson 1: Blink"}
QUESTION = "My OLED display stays blank, what should I check?"
SCRIPT_QUESTION = 'Is <script>alert("x")</script> & <b>bold</b> allowed?'
QUOTE = "If the display stays blank, check the I2C address: most modules use 0x3C."
VERIFIED = "The display needs the I2C address 0x3C [2]."
WHEN = datetime(2026, 12, 2, 10, 30, tzinfo=timezone.utc)


def passage(n: int, source: str, heading: str) -> Passage:
    return Passage(n, Hit.make(chunk_id=n, key=f"{source}#x:{n}", source=source, heading=heading, anchor="x",
                               span=(0, 10), text="text", score=1.0))


OLED = passage(2, "lessons/oled.md", "Lesson 4: OLED display › Troubleshooting › Blank display")
WIRING = passage(1, "lessons/oled.md", "Lesson 4: OLED display › Wiring")
BLINK = passage(1, "lessons/blink.md", "Lesson 1: Blink › The code")


def answered() -> Answer:
    text = (f"{VERIFIED}\n\nFrom the guides:\n\n**Blank display** [2]\n\n{QUOTE} [2]\n\n"
            "```cpp\nint pins[1];\n```\n\n![Wiring diagram](../images/oled.svg)")
    return Answer("answered", text, (WIRING, OLED), (OLED,), COURSE.corpus_version, "model.gguf")


def extractive() -> Answer:
    text = "From the guides:\n\nConnect SDA to GPIO 21 [1]. Blink with `digitalWrite` [2]. <img src=x onerror=alert(1)>"
    other = passage(2, "lessons/blink.md", "Lesson 1: Blink › The code")
    return Answer("extractive", text, (WIRING, other), (WIRING, other), COURSE.corpus_version, "")


def not_covered() -> Answer:
    return Answer("not-covered", "The guides don't cover this. The nearest sections are listed below.",
                  (BLINK,), (), COURSE.corpus_version, "")


def document(question: str = QUESTION):
    asked = [Asked(question, answered(), answered_at=WHEN), Asked("How do I wire it and blink?", extractive()),
             Asked("What is the weather?", not_covered())]
    return conversation_document(asked, COURSE, guide_title=TITLES.get, now=WHEN)


def squeeze(text: str) -> str:
    """Text without whitespace and with ligatures undone (PDF text extraction splits and joins lines
    and letters freely)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def pdf_text(path: Path) -> str:
    return "".join(page.extract_text() for page in PdfReader(path).pages)


# --- the document -------------------------------------------------------------------------

def test_citations_become_one_reference_list_numbered_across_answers():
    doc = document()
    assert [(r.source, r.section) for r in doc.references] == [
        (OLED.hit.source, OLED.hit.heading), (WIRING.hit.source, WIRING.hit.heading), ("lessons/blink.md", BLINK.hit.heading)]
    first, second, third = doc.answers
    assert first.verified == "The display needs the I2C address 0x3C [1]."  # passage 2 is reference 1
    assert "int pins[1];" in first.quotes  # brackets in code are not citations
    assert "[2]" in second.quotes and "[3]" in second.quotes and second.references == (2, 3)
    assert third.nearest == ("lessons/blink.md › Lesson 1: Blink › The code",) and not third.references
    ref = doc.references[0]
    assert (ref.course, ref.course_version, ref.date) == ("ESP32 Starter Lab", COURSE.course_version, "2026-12-02")
    text = reference_text(ref)
    assert text.startswith('Lesson 4: OLED display (lessons/oled.md), section "Troubleshooting › Blank display".')
    assert "corpus a482c15ba482" in text and "Cited 2026-12-02" in text


def test_markdown_holds_the_question_quotes_verified_sentences_and_every_reference():
    doc = document()
    text = to_markdown(doc)
    assert QUESTION in text and QUOTE in text and "The display needs the I2C address 0x3C [1]." in text
    assert "> " + QUOTE in text  # quotes are block quotes
    for ref in doc.references:
        assert reference_text(ref).replace("(", "(") in text.replace("\\", "")
    assert "*[image: Wiring diagram]*" in text and "oled.svg" not in text
    assert "Not covered by the guides." in text and "lessons/blink.md › Lesson 1: Blink › The code" in text


def test_html_is_self_contained_and_holds_every_reference():
    doc = document()
    page = to_html(doc)
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert QUESTION in page and QUOTE in page
    for ref in doc.references:
        assert f'<li id="ref-{ref.number}">' in page
    import html as html_module
    for ref in doc.references:
        assert html_module.escape(reference_text(ref)) in page
    assert '<a href="#ref-1">1</a>' in page  # markers link to the reference list
    assert not re.search(r"\b(src|href)=\"(?!#ref-)", page)  # nothing loaded or linked from elsewhere
    assert "<link" not in page and "<script" not in page.lower()


def test_html_and_markdown_escape_script_in_a_question_and_in_quotes():
    doc = document(SCRIPT_QUESTION)
    page = to_html(doc)
    assert "<script" not in page.lower() and "<b>bold</b>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page  # raw HTML in an answer is shown as text
    # The Markdown, rendered by a renderer that allows raw HTML, still shows the question as text.
    rendered = MarkdownIt("commonmark", {"html": True}).render(to_markdown(doc))
    assert "<script" not in rendered.lower().replace("&lt;script", "")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in rendered


# --- PDF by real Qt printing ---------------------------------------------------------------

def test_pdf_printed_by_qt_holds_the_question_a_quote_and_every_reference(tmp_path):
    doc = document()
    out = tmp_path / "conversation.pdf"
    assert write_document(out, lambda: to_markdown(doc), lambda: to_html(doc), doc.title) == "pdf"
    assert out.read_bytes().startswith(b"%PDF-")
    text = squeeze(pdf_text(out))
    assert squeeze(QUESTION) in text and squeeze(QUOTE) in text and squeeze(VERIFIED.replace("[2]", "[1]")) in text
    for ref in doc.references:
        assert squeeze(reference_text(ref)) in text
    assert squeeze(SCRIPT_QUESTION) not in text  # (the other question is not in this one)
    assert PdfReader(out).metadata.title == doc.title


def test_a_30000_character_question_is_exported_in_every_format(tmp_path):
    question = ("why " * 2500) + "x" * 20_000  # words, then one 20,000-character word
    assert len(question) == 30_000
    doc = document(question)
    for name in ("long.md", "long.html", "long.pdf"):
        write_document(tmp_path / name, lambda: to_markdown(doc), lambda: to_html(doc), doc.title)
    assert question in (tmp_path / "long.md").read_text(encoding="utf-8")
    assert question in (tmp_path / "long.html").read_text(encoding="utf-8")
    reader = PdfReader(tmp_path / "long.pdf")
    assert len(reader.pages) > 3  # the long word wraps onto many lines instead of running off the page
    # (pypdf reads about 3 pages a second: the first and the last four are read)
    assert "why" * 300 in squeeze(reader.pages[0].extract_text())
    end = squeeze("".join(page.extract_text() for page in reader.pages[-4:]))
    assert "x" * 40 + "Answeredfromtheguides" in end and squeeze(reference_text(doc.references[-1])) in end


# --- refused paths ------------------------------------------------------------------------

def test_an_unwritable_path_is_one_sentence_and_leaves_no_file(tmp_path, monkeypatch):
    doc = document()
    for fmt in ("md", "html", "pdf"):
        out = tmp_path / "missing-folder" / f"x.{fmt}"
        with pytest.raises(ExportError) as caught:
            write_document(out, lambda: to_markdown(doc), lambda: to_html(doc))
        message = str(caught.value)
        assert "missing-folder does not exist" in message and "\n" not in message and message.endswith(".")
        assert not out.parent.exists()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.access(locked, os.W_OK):  # root writes anywhere: the refusal is simulated
        real_open = os.open

        def refuse(path, *args, **kwargs):
            if str(path).startswith(str(locked)):
                raise PermissionError(errno.EACCES, "Permission denied")
            return real_open(path, *args, **kwargs)
        monkeypatch.setattr(os, "open", refuse)
    try:
        with pytest.raises(ExportError, match="may not write in"):
            write_document(locked / "x.pdf", lambda: to_markdown(doc), lambda: to_html(doc))
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "kept.md"
    out.write_text("the old export", encoding="utf-8")

    def full_disk(tmp: Path) -> None:
        tmp.write_bytes(b"half")
        raise OSError(28, "No space left on device")
    with pytest.raises(ExportError, match="is full"):
        write_atomically(out, full_disk)
    assert out.read_text(encoding="utf-8") == "the old export"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.md"]
    folder = tmp_path / "exports.pdf"
    folder.mkdir()
    with pytest.raises(ExportError, match="is a folder"):
        write_document(folder, lambda: "", lambda: "")
    not_a_folder = tmp_path / "kept.md" / "x.html"  # a file where a folder should be (refused even for root)
    with pytest.raises(ExportError, match="kept.md is not a folder"):
        write_document(not_a_folder, lambda: "", lambda: "<p>x</p>")
    with pytest.raises(ExportError, match=r"ends in \"\.docx\""):
        write_document(tmp_path / "x.docx", lambda: "", lambda: "")


# --- the CLI --------------------------------------------------------------------------------

def test_ask_format_markdown_prints_the_reply_with_its_reference_list(capsys, bundle_path):
    assert main(["ask", "--bundle", str(bundle_path), "--search-only", "--keyword-only", "--format", "markdown",
                 "OLED display blank I2C address"]) == 0
    out = capsys.readouterr().out
    assert "**From the guides:**" in out and "> " in out and "0x3C" in out
    assert "## References" in out and "\\[1\\] Lesson 4: OLED display (lessons/oled.md)" in out
    assert "Test course" in out and re.search(r"\[1\]", out)


def test_export_writes_a_history_file_in_each_format(capsys, bundle_path, tmp_path):
    assert main(["ask", "--bundle", str(bundle_path), "--search-only", "--keyword-only", "--json",
                 "OLED display blank I2C address"]) == 0
    reply = json.loads(capsys.readouterr().out)
    history = tmp_path / "chat.json"
    turns = [{"role": "user", "content": SCRIPT_QUESTION},
             {"role": "assistant", "content": reply["answer"], "state": reply["state"],
              "citations": reply["citations"], "corpus_version": reply["corpus_version"]},
             {"role": "user", "content": "and the wiring?"}, {"role": "assistant", "content": "SDA to GPIO 21 [1]."}]
    history.write_text(json.dumps(turns), encoding="utf-8")
    for name in ("chat.md", "chat.html", "chat.pdf"):
        assert main(["export", "--bundle", str(bundle_path), "--history", str(history), "-o", str(tmp_path / name)]) == 0
        assert f"Saved 2 answers with {len(reply['citations'])} reference" in capsys.readouterr().out
    page = (tmp_path / "chat.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;" in page and "<script" not in page and "Test course" in page
    assert "lessons/oled.md" in page and "not checked again" in page
    printed = squeeze(pdf_text(tmp_path / "chat.pdf"))
    assert squeeze("lessons/oled.md") in printed
    assert squeeze(SCRIPT_QUESTION) in printed  # Qt printed the tags as text: it did not read them as markup


def test_export_to_a_refused_path_exits_1_with_one_sentence(capsys, bundle_path, tmp_path):
    history = tmp_path / "chat.json"
    history.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    out = tmp_path / "nowhere" / "chat.pdf"
    assert main(["export", "--bundle", str(bundle_path), "--history", str(history), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: Could not save chat.pdf") and err.count("\n") == 1 and not out.parent.exists()
    assert main(["export", "--history", str(history), "-o", str(tmp_path / "chat.txt")]) == 1
    assert "end it in .md" in capsys.readouterr().err
    history.write_text("[]", encoding="utf-8")
    assert main(["export", "--bundle", str(bundle_path), "--history", str(history), "-o", str(tmp_path / "c.md")]) == 1
    assert "holds no turns" in capsys.readouterr().err and not (tmp_path / "c.md").exists()


# --- the window -----------------------------------------------------------------------------

gui_bundle = shared.gui_bundle  # tests/test_gui.py's tiny course and window fixtures, found here too
windows = shared.windows
SECOND = "How do I blink the onboard LED on GPIO 2 with digitalWrite?"


@pytest.fixture()
def answered_window(qtbot, windows, gui_bundle):
    """A window on fake models with two answered questions, the second on screen."""
    window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    for question in (shared.QUESTION, SECOND):
        with qtbot.waitSignal(window.answer_shown, timeout=5000):
            window.question_box.setPlainText(question)
            window.ask()
    return window


def test_the_file_menu_exports_the_conversation_with_its_references(answered_window, tmp_path):
    window = answered_window
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus[:3] == ["&Lantern", "&File", "&Conversation"]
    items = [a.text() for a in window.export.menu.actions() if a.text()]
    assert items == ["&Export conversation…", "Export this &answer…", "&Print…", "Print this a&nswer…"]
    assert window.export.print_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Print)
    asked: list[str] = []
    window.export.ask_path = lambda title, suggested: (asked.append(title), tmp_path / "chat.html")[1]
    window.export.export_action.trigger()
    page = (tmp_path / "chat.html").read_text(encoding="utf-8")
    assert asked == ["Export conversation"] and shared.QUESTION in page and SECOND in page
    doc = window.export.document(list(window.conversation))
    assert doc.references and all(f'<li id="ref-{r.number}">' in page for r in doc.references)
    assert "GUI test course" in page and "Saved 2 answers" in window.status_text()
    window.export.ask_path = lambda title, suggested: tmp_path / "chat.pdf"
    window.export.export_action.trigger()
    text = squeeze(pdf_text(tmp_path / "chat.pdf"))
    assert squeeze(shared.QUESTION) in text and all(squeeze(reference_text(r)) in text for r in doc.references)


def test_one_answer_is_exported_from_the_answer_context_menu(answered_window, tmp_path):
    window = answered_window
    window.show_exchange(0)  # the first answer back on screen
    menu = window.export.answer_menu(QPoint(5, 5))
    labels = [a.text() for a in menu.actions()]
    assert "Export this answer…" in labels and "Print this answer…" in labels
    window.export.ask_path = lambda title, suggested: tmp_path / "one.md"
    next(a for a in menu.actions() if a.text() == "Export this answer…").trigger()
    text = (tmp_path / "one.md").read_text(encoding="utf-8")
    assert "## Question 1" in text and "## Question 2" not in text and SECOND not in text
    assert "## References" in text and "lessons/oled.md" in text
    assert window.answer_view.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu


def test_a_refused_path_in_the_window_is_one_sentence_in_the_status_bar(answered_window, tmp_path):
    window = answered_window
    out = tmp_path / "gone" / "chat.pdf"
    window.export.ask_path = lambda title, suggested: out
    window.export.export_action.trigger()
    assert window.status_text().startswith("Could not save chat.pdf: the folder") and "\n" not in window.status_text()
    assert not out.parent.exists()


def test_ctrl_p_opens_the_print_preview_of_the_conversation(qtbot, answered_window):
    window = answered_window
    window.activateWindow()
    window.question_box.setFocus()
    qtbot.keyClick(window.question_box, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    preview = window.export.preview
    assert isinstance(preview, QPrintPreviewDialog)
    qtbot.waitUntil(preview.isVisible, timeout=3000)
    assert "Questions to Lantern: GUI test course" in preview.windowTitle()
    pages = preview.findChild(QPrintPreviewWidget)
    qtbot.waitUntil(lambda: pages.pageCount() >= 1, timeout=5000)  # the document was laid out on the printer's pages
    preview.close()


def test_nothing_to_export_yet_is_said(qtbot, windows, gui_bundle):
    window = shared.open_window(qtbot, windows, gui_bundle, FakeChatModel(reply=shared.REPLY))
    window.export.ask_path = lambda title, suggested: pytest.fail("no dialog without an answer")
    window.export.export_action.trigger()
    assert window.status_text() == "There is no answer to export yet; ask a question first."
    window.export.print_action.trigger()
    assert window.export.preview is None
