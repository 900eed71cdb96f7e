"""Take the README screenshot: the real window, real models, one question, first citation open.

Run under a display, e.g.:
    xvfb-run -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot.py
Options: --bundle (default corpus_bundle/esp32-starter.sqlite), --question, --out
(default docs/screenshot-answer.png). Exits 1 when the answer does not arrive in time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.bundle.reader import BundleReader  # noqa: E402
from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.workers import load_assistant  # noqa: E402

QUESTION = "My OLED display stays blank, what should I check?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "corpus_bundle" / "esp32-starter.sqlite")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot-answer.png")
    parser.add_argument("--timeout", type=float, default=180, help="seconds to wait for the answer")
    args = parser.parse_args()

    app = QApplication(sys.argv[:1])
    bundle = BundleReader(args.bundle)
    window = MainWindow(bundle, lambda report: load_assistant(bundle, None, report))
    window.resize(1380, 860)
    window.show()
    outcome = {"code": 1}

    def ask() -> None:
        window.question_box.setPlainText(args.question)
        window.ask()

    def shown(answer) -> None:
        print(f"state={answer.state} citations={[p.n for p in answer.citations]}\n{answer.text}", file=sys.stderr)
        first = (answer.citations or answer.passages or (None,))[0]
        if first is not None:
            window.open_citation(first.n)
            window.sources_list.setCurrentRow(first.n - 1)
        QTimer.singleShot(400, save)

    def save() -> None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(args.out))
        print(f"saved {args.out}", file=sys.stderr)
        outcome["code"] = 0
        window.close()

    def give_up() -> None:
        print(f"no answer within {args.timeout:.0f} s", file=sys.stderr)
        window.close()

    window.answer_shown.connect(shown)
    window.error_shown.connect(lambda message: (print(message, file=sys.stderr), window.close()))
    QTimer.singleShot(300, ask)  # the question waits in the worker until the models are loaded
    QTimer.singleShot(int(args.timeout * 1000), give_up)
    app.exec()
    window.shutdown()
    return outcome["code"]


if __name__ == "__main__":
    raise SystemExit(main())
