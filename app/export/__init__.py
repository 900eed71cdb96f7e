"""Export and print a conversation with its references (issue 28): Markdown, self-contained HTML
and PDF from one document, in the window (File ▸ Export conversation…, File ▸ Print…, an
answer's context menu) and the CLI (``lantern export``, ``lantern ask --format markdown``).

- :mod:`app.export.document`: exchanges -> :class:`~app.export.document.ConversationDocument`
  (answers, quotes, verified sentences, one reference list); no Qt.
- :mod:`app.export.render`: the document as Markdown or HTML; no Qt.
- :mod:`app.export.words`: the words Lantern writes into an export, in the course's language (the
  command line) or the window's (the window); no Qt.
- :mod:`app.export.files`: the format by file ending, atomic writes, one-sentence errors.
- :mod:`app.export.printing`: Qt's rich text printed to PDF or a printer.
- :mod:`app.export.cli`: ``lantern export`` and ``ask --format markdown``.
- :mod:`app.export.window`: the window's File menu, print preview and answer context menu.
"""
