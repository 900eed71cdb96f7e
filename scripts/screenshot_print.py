"""Take the print preview's screenshot (docs/gui.md, docs/instructors.md): the real window, real
models and the demo course; one question answered, then File ▸ Print… (the preview of the document
that File ▸ Export conversation… writes), and the same conversation exported as Markdown, HTML and
PDF beside the picture for a look.

Run under a display, e.g.:
    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_print.py
Options: --bundle (default corpus_bundle/esp32-starter.sqlite), --question, --out-dir (default
docs/; the picture is ``screenshot-print-preview.png``), --exports DIR (where the exports go;
default a temporary folder, printed), --fake-reply TEXT (no chat model: a scripted stand-in, see
scripts/screenshot.py), --timeout seconds. Settings and the window layout are kept in a temporary
folder. Exits 1 when the answer does not arrive in time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtPrintSupport import QPrintPreviewWidget  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.bundle.reader import BundleReader  # noqa: E402
from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.workers import load_assistant  # noqa: E402

QUESTION = "My OLED display stays blank, what should I check?"


def take(bundle: BundleReader, question: str, picture: Path, exports: Path, timeout: float,
         fake_reply: str | None) -> int:
    """Ask ``question``, export the conversation to ``exports``, open the print preview and save it
    to ``picture``; 0 on success."""
    if fake_reply is not None:
        from screenshot import scripted_assistant

        window = MainWindow(bundle, lambda report: scripted_assistant(bundle, fake_reply, report))
    else:
        window = MainWindow(bundle, lambda report: load_assistant(bundle, None, report))
    window.resize(1380, 860)
    window.show()
    outcome = {"code": 1}
    loop = QEventLoop()

    def finish() -> None:
        if window.export.preview is not None:
            window.export.preview.close()
        window.close()
        loop.quit()

    def save() -> None:
        preview = window.export.preview
        preview.grab().save(str(picture), "PNG", 9)
        print(f"saved {picture} ({picture.stat().st_size // 1024} KB)", file=sys.stderr)
        outcome["code"] = 0
        finish()

    def answered(answer) -> None:
        print(f"state={answer.state} citations={[p.n for p in answer.citations]}\n{answer.text}", file=sys.stderr)
        exports.mkdir(parents=True, exist_ok=True)
        for name in ("conversation.md", "conversation.html", "conversation.pdf"):
            window.export.save(list(window.conversation), exports / name)
            print(f"{window.status_text()} ({exports / name})", file=sys.stderr)
        preview = window.export.open_preview(list(window.conversation))
        preview.resize(1000, 880)
        pages = preview.findChild(QPrintPreviewWidget)
        pages.fitInView()  # the whole first page: the question, the quotes and the start of the references
        QTimer.singleShot(1500, save)

    def ready() -> None:
        window.question_box.setPlainText(question)
        window.ask()

    def give_up() -> None:
        print(f"not finished within {timeout:.0f} s", file=sys.stderr)
        finish()

    window.answer_shown.connect(answered)
    window.error_shown.connect(lambda message: (print(message, file=sys.stderr), finish()))
    window.models_loaded.connect(ready)
    QTimer.singleShot(int(timeout * 1000), give_up)
    loop.exec()
    window.shutdown()
    return outcome["code"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "corpus_bundle" / "esp32-starter.sqlite")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    parser.add_argument("--exports", type=Path, default=None)
    parser.add_argument("--fake-reply", default=None)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    os.environ["LANTERN_CONFIG_DIR"] = tempfile.mkdtemp(prefix="lantern-shot-config-")
    exports = args.exports or Path(tempfile.mkdtemp(prefix="lantern-shot-exports-"))
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Lantern")
    bundle = BundleReader(args.bundle)
    code = take(bundle, args.question, args.out_dir / "screenshot-print-preview.png", exports, args.timeout,
                args.fake_reply)
    print(f"exports in {exports}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
