"""The settings dialog (for instructors): course bundle, chat model, CPU threads, font size, language.

It edits :class:`app.config.Settings`, the plain JSON file the CLI reads too, and saves it
with :meth:`Settings.save`. The font size applies at once; the bundle, model, threads and the
window's language take effect the next time Lantern starts (the models are loaded once, in the
worker; the language is chosen when the window opens, :mod:`app.gui.translation`).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..config import Settings, settings_path
from .translation import LANGUAGES, QT_TR_NOOP, tr

RESTART_NOTE = QT_TR_NOOP("A new course bundle, chat model, thread count or language takes effect the next time "
                          "Lantern starts.")


class SettingsDialog(QDialog):
    """Edit and save the settings; ``settings`` holds the saved values after ``accept()``."""

    def __init__(self, settings: Settings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle(tr("Lantern settings"))
        self.setAccessibleName(tr("Settings"))
        layout = QVBoxLayout(self)
        form = QFormLayout()

        self.bundle_edit = QLineEdit(settings.bundle)
        self.bundle_edit.setPlaceholderText(tr("The course bundle shipped with Lantern"))
        self.bundle_edit.setAccessibleName(tr("Course bundle file"))
        form.addRow(tr("Course &bundle:"), self._with_browse(self.bundle_edit, tr("Choose a course bundle"),
                                                             tr("Course bundles (*.sqlite);;All files (*)")))
        self.model_edit = QLineEdit(settings.chat_model)
        self.model_edit.setPlaceholderText(tr("The default chat model (models/manifest.json)"))
        self.model_edit.setAccessibleName(tr("Chat model file"))
        form.addRow(tr("Chat &model (GGUF):"), self._with_browse(self.model_edit, tr("Choose a chat model"),
                                                                 tr("GGUF models (*.gguf);;All files (*)")))
        self.threads_spin = QSpinBox()
        self.threads_spin.setRange(0, max(64, os.cpu_count() or 2))
        self.threads_spin.setSpecialValueText(tr("All cores"))
        self.threads_spin.setValue(settings.threads)
        self.threads_spin.setAccessibleName(tr("CPU threads for the language model"))
        self.threads_spin.setToolTip(tr("This computer has {cores} cores; 0 uses all but one.").format(
            cores=os.cpu_count() or "?"))
        form.addRow(tr("CPU &threads:"), self.threads_spin)
        self.font_spin = QSpinBox()
        self.font_spin.setRange(8, 32)
        self.font_spin.setSuffix(tr(" pt"))
        self.font_spin.setValue(settings.font_size or 11)
        self.font_spin.setAccessibleName(tr("Font size in points"))
        form.addRow(tr("&Font size:"), self.font_spin)
        self.language_box = QComboBox()  # the window's language: applies at the next start
        self.language_box.addItem(tr("The system's language"), "")
        for code, name in {"en": "English", **LANGUAGES}.items():
            self.language_box.addItem(name, code)
        chosen = self.language_box.findData(settings.ui_language)
        self.language_box.setCurrentIndex(max(chosen, 0))
        self.language_box.setAccessibleName(tr("Language of the window"))
        self.language_box.setToolTip(tr("The language of menus, buttons and messages; the answers are in the "
                                        "course's language. Applies the next time Lantern starts."))
        form.addRow(tr("Window &language:"), self.language_box)
        layout.addLayout(form)

        note = QLabel(tr(RESTART_NOTE) + "\n"
                      + tr("Saved in {path} (the command line reads it too).").format(path=settings_path()))
        note.setWordWrap(True)
        layout.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _with_browse(self, edit: QLineEdit, title: str, filters: str) -> QWidget:
        row = QWidget()
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        button = QPushButton(tr("Browse…"))
        button.setAccessibleName(tr("Browse for the {what}").format(what=edit.accessibleName().lower()))

        def browse() -> None:
            start = str(Path(edit.text()).parent) if edit.text() else ""
            chosen, _ = QFileDialog.getOpenFileName(self, title, start, filters)
            if chosen:
                edit.setText(chosen)

        button.clicked.connect(browse)
        box.addWidget(button)
        return row

    def values(self) -> Settings:
        """The settings as the dialog shows them (not saved); those it does not show (the lab's model
        engine, the instructor's report) are kept as they were."""
        return dataclasses.replace(self.settings, bundle=self.bundle_edit.text().strip(),
                                   chat_model=self.model_edit.text().strip(), threads=self.threads_spin.value(),
                                   font_size=self.font_spin.value(),
                                   ui_language=str(self.language_box.currentData() or ""))

    def accept(self) -> None:  # noqa: D102 (Qt override)
        values = self.values()
        try:
            values.save()
        except OSError as exc:
            QMessageBox.warning(self, "Lantern", tr("The settings could not be saved to {path} ({problem}); check that the "
                                                    "folder is writable.").format(path=settings_path(),
                                                                                  problem=exc.strerror or exc))
            return
        self.settings = values
        super().accept()
