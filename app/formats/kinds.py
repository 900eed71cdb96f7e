"""Which document formats :mod:`app.formats` reads (no imports: the chunker and planner use these names).

:data:`FORMAT_KINDS` maps a file extension to the guide kind stored in the bundle (``sources.kind``);
each kind's text is Markdown (:data:`MARKDOWN_KINDS`). Legacy binary Office files (:data:`LEGACY_FORMATS`)
are recognised only to be skipped with the fix.
"""

from __future__ import annotations

#: Extension -> guide kind of the documents read here.
FORMAT_KINDS = {".docx": "docx", ".pptx": "pptx", ".odt": "odt", ".odp": "odp", ".epub": "epub", ".ipynb": "ipynb"}
#: Legacy binary extension -> (program, the extension to save it as).
LEGACY_FORMATS = {".doc": ("Word", ".docx"), ".ppt": ("PowerPoint", ".pptx")}
#: Guide kinds whose stored text is Markdown converted from the document.
MARKDOWN_KINDS = frozenset(FORMAT_KINDS.values())
#: Largest document file read (bytes, 64 MiB): decks and Word files carry pictures, which are not
#: kept, so they may be larger than the reader's limit for a text guide.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
