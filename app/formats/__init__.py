"""Instructors' own document formats (Word, PowerPoint, OpenDocument, EPUB, Jupyter) read as Markdown guides."""
