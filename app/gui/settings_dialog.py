"""The settings dialog (for instructors): course bundle, chat model, CPU threads, font size.

It edits :class:`app.config.Settings`, the plain JSON file the CLI reads too, and saves it
with :meth:`Settings.save`. The font size applies at once; the bundle, model and threads
take effect the next time Lantern starts (the models are loaded once, in the worker).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import (
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

RESTART_NOTE = "A new course bundle, chat model or thread count takes effect the next time Lantern starts."


class SettingsDialog(QDialog):
    """Edit and save the settings; ``settings`` holds the saved values after ``accept()``."""

    def __init__(self, settings: Settings, parent=None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Lantern settings")
        self.setAccessibleName("Settings")
        layout = QVBoxLayout(self)
        form = QFormLayout()

        self.bundle_edit = QLineEdit(settings.bundle)
        self.bundle_edit.setPlaceholderText("The course bundle shipped with Lantern")
        self.bundle_edit.setAccessibleName("Course bundle file")
        form.addRow("Course &bundle:", self._with_browse(self.bundle_edit, "Choose a course bundle",
                                                         "Course bundles (*.sqlite);;All files (*)"))
        self.model_edit = QLineEdit(settings.chat_model)
        self.model_edit.setPlaceholderText("The default chat model (models/manifest.json)")
        self.model_edit.setAccessibleName("Chat model file")
        form.addRow("Chat &model (GGUF):", self._with_browse(self.model_edit, "Choose a chat model",
                                                             "GGUF models (*.gguf);;All files (*)"))
        self.threads_spin = QSpinBox()
        self.threads_spin.setRange(0, max(64, os.cpu_count() or 2))
        self.threads_spin.setSpecialValueText("All cores")
        self.threads_spin.setValue(settings.threads)
        self.threads_spin.setAccessibleName("CPU threads for the language model")
        self.threads_spin.setToolTip(f"This computer has {os.cpu_count() or '?'} cores; 0 uses all but one.")
        form.addRow("CPU &threads:", self.threads_spin)
        self.font_spin = QSpinBox()
        self.font_spin.setRange(8, 32)
        self.font_spin.setSuffix(" pt")
        self.font_spin.setValue(settings.font_size or 11)
        self.font_spin.setAccessibleName("Font size in points")
        form.addRow("&Font size:", self.font_spin)
        layout.addLayout(form)

        note = QLabel(f"{RESTART_NOTE}\nSaved in {settings_path()} (the command line reads it too).")
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
        button = QPushButton("Browse…")
        button.setAccessibleName(f"Browse for the {edit.accessibleName().lower()}")

        def browse() -> None:
            start = str(Path(edit.text()).parent) if edit.text() else ""
            chosen, _ = QFileDialog.getOpenFileName(self, title, start, filters)
            if chosen:
                edit.setText(chosen)

        button.clicked.connect(browse)
        box.addWidget(button)
        return row

    def values(self) -> Settings:
        """The settings as the dialog shows them (not saved)."""
        return Settings(bundle=self.bundle_edit.text().strip(), chat_model=self.model_edit.text().strip(),
                        threads=self.threads_spin.value(), font_size=self.font_spin.value())

    def accept(self) -> None:  # noqa: D102 (Qt override)
        values = self.values()
        try:
            values.save()
        except OSError as exc:
            QMessageBox.warning(self, "Lantern", f"The settings could not be saved to {settings_path()} "
                                f"({exc.strerror or exc}); check that the folder is writable.")
            return
        self.settings = values
        super().accept()
