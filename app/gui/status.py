"""The window's status bar: the message, the course, the corpus version, the model and any
degraded state, shared fairly when they don't all fit (a big font, a narrow window)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QProgressBar, QStatusBar

from ..bundle.reader import BundleReader
from .translation import tr
from .widgets import FitLabel
from .words import DEGRADED_WORDS

STATUS_CHARS = 24  # characters of a status message kept when the status bar is short (the rest is elided)
DEGRADED_CHARS = 160  # characters of the degraded states' preferred width (both states, in any language)


class StatusArea(QObject):
    """Fills ``bar`` for ``bundle``. Messages go to a label of their own (not ``showMessage``,
    which is drawn under the labels on the right and cut off when they are wide); every label
    is elided when the bar is short. Attributes: ``message_label``, ``course_label``,
    ``version_label``, ``model_label``, ``degraded_label``, ``load_bar``."""

    def __init__(self, bar: QStatusBar, bundle: BundleReader, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bar = bar
        built = bundle.meta.get("built_at", "")
        self.message_label = FitLabel("", max_lines=1, min_chars=STATUS_CHARS)
        self.message_label.setAccessibleName(tr("Status"))
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.timeout.connect(self._clear_message)  # a method, not a lambda holding self
        self.course_label = FitLabel(bundle.title, max_lines=1)
        self.course_label.setAccessibleName(tr("Course"))
        self.course_label.setToolTip(str(bundle.path))
        self.version_label = FitLabel(tr("corpus {version}").format(version=bundle.corpus_version[:12])
                                      + (" · " + tr("built {date}").format(date=built[:10]) if built else ""),
                                      max_lines=1)
        self.version_label.setToolTip(tr("Corpus version {version}, built {date}").format(
            version=bundle.corpus_version, date=built or tr("at an unknown time")))
        self.version_label.setAccessibleName(tr("Corpus version and build date"))
        self.model_label = FitLabel(tr("model: loading…"), max_lines=1)
        self.model_label.setAccessibleName(tr("Language model"))
        # Its whole text is wanted: French names both states in 77 characters, more than HINT_CHARS.
        self.degraded_label = FitLabel("", max_lines=1, hint_chars=DEGRADED_CHARS)
        self.degraded_label.setAccessibleName(tr("Limitations"))
        self.load_bar = QProgressBar()
        self.load_bar.setRange(0, 0)  # busy: loading has no measurable steps
        self.load_bar.setMaximumWidth(120)
        self.load_bar.setAccessibleName(tr("Loading the models"))
        bar.addWidget(self.load_bar)
        bar.addWidget(self.message_label, 1)
        for label in (self.course_label, self.version_label, self.model_label, self.degraded_label):
            bar.addPermanentWidget(label)
        bar.installEventFilter(self)  # share its width again when it, or a text in it, changes
        self.show_status(tr("Loading the models…"))

    def fit(self) -> None:
        """Share the status bar when its texts don't all fit (a big font, a narrow window): the
        message keeps up to :data:`STATUS_CHARS` characters; the degraded states (the one label that
        says the replies are limited) keep their whole text while the others can still show their
        minimum; the course, corpus version and model labels give up room in proportion to their
        length. Each elided label has its whole text as tooltip."""
        labels = [self.course_label, self.version_label, self.model_label]
        wants = [label.sizeHint().width() if label.text() else 0 for label in labels]
        spacing = 8
        room = self.bar.width() - 24 - spacing * (len(labels) + 2)  # the size grip and the gaps
        if self.load_bar.isVisible():
            room -= self.load_bar.width() + spacing
        message = self.message_label
        keep = min(message.sizeHint().width(), message.minimumSizeHint().width()) if message.text() else 0
        degraded = self.degraded_label
        degraded_want = degraded.sizeHint().width() if degraded.text() else 0
        total = sum(wants)
        limits: list[int | None]
        if total + degraded_want + keep <= room:
            limits = [None] * (len(labels) + 1)
        else:
            smallest = sum(label.minimumSizeHint().width() for label, want in zip(labels, wants) if want)
            first = min(degraded_want, max(room - keep - smallest, degraded.minimumSizeHint().width()))
            share = max(room - keep - first, 0) / total if total else 0.0
            limits = [max(label.minimumSizeHint().width(), int(want * share)) for label, want in zip(labels, wants)]
            limits.append(max(degraded.minimumSizeHint().width(), first) if degraded_want else None)
        for label, limit in zip([*labels, degraded], limits):
            width = 16_777_215 if limit is None else limit
            if label.maximumWidth() != width:
                label.setMaximumWidth(width)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if obj is self.bar and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.fit()
        return super().eventFilter(obj, event)

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        """Say ``text`` in the status bar (for ``timeout_ms``, or until the next message)."""
        self._message_timer.stop()
        self.message_label.setText(text)
        self.fit()
        if text and timeout_ms:
            self._message_timer.start(timeout_ms)

    def _clear_message(self) -> None:
        self.show_status("")

    def text(self) -> str:
        """The status bar's message ('' when none)."""
        return self.message_label.text()

    def show_models(self, model_name: str, degraded: tuple[str, ...], keyword_reason: str = "") -> None:
        """The models are loaded: name the chat model and any degraded state (why, in its tooltip)."""
        self.load_bar.hide()
        self.show_status("")
        self.model_label.setText(tr("model: {name}").format(name=model_name) if model_name else
                                 tr("no language model"))
        self.degraded_label.setText("; ".join(tr(DEGRADED_WORDS.get(d, d)) for d in degraded))
        tips = [tr("keyword-only: {reason}.").format(reason=keyword_reason)
                if keyword_reason and "keyword-only" in degraded else "",
                tr("search-only: the chat model could not be loaded.") if "search-only" in degraded else ""]
        self.degraded_label.setToolTip("\n".join(t for t in tips if t))

    def show_loading(self) -> None:
        """The models are being loaded (again): the busy bar, "model: loading…", no degraded state yet."""
        self.load_bar.show()
        self.model_label.setText(tr("model: loading…"))
        self.degraded_label.setText("")
        self.degraded_label.setToolTip("")
        self.show_status(tr("Loading the models…"))

    def show_load_failed(self) -> None:
        self.load_bar.hide()
        self.show_status(tr("The models could not be loaded."))
        self.model_label.setText(tr("no language model"))
