"""A tiny Word course built end to end: the self-test's proof that the installed app reads ``.docx``.

The document is written here by hand (four XML parts, no template), so the probe needs nothing
beside the app: :func:`build_docx_probe` writes it into a temporary folder, builds a bundle from it
with the given embedder and checks that its heading and table arrived.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from ..errors import LanternError

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/'
                  '2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-'
                  'package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
                  'PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                  'wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType='
                  '"application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
         'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
         'relationships/officeDocument" Target="word/document.xml"/></Relationships>')
_DOC_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
             '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
             '2006/relationships/styles" Target="styles.xml"/></Relationships>')
_STYLES = (f'<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="{_W}">'
           '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>')


def _p(text: str, style: str = "") -> str:
    ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{ppr}<w:r><w:t>{text}</w:t></w:r></w:p>"


def probe_docx() -> bytes:
    """A minimal Word document: a ``Heading 1`` "Blinking an LED", a paragraph and a two-row table."""
    cells = "".join(f"<w:tr>{''.join(f'<w:tc>{_p(c)}</w:tc>' for c in row)}</w:tr>"
                    for row in (("Pin", "Use"), ("GPIO 2", "onboard LED")))
    body = (_p("Blinking an LED", "Heading1") + _p("The onboard LED of the board is wired to GPIO 2.")
            + f"<w:tbl><w:tblPr/><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>{cells}</w:tbl>")
    document = f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{_W}"><w:body>{body}</w:body></w:document>'
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, xml in (("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _RELS),
                          ("word/_rels/document.xml.rels", _DOC_RELS), ("word/styles.xml", _STYLES),
                          ("word/document.xml", document)):
            z.writestr(name, xml)
    return out.getvalue()


def build_docx_probe(embedder) -> int:
    """Build a bundle of a one-file Word course with ``embedder`` (in a temporary folder, removed
    after); returns its chunk count. Raises :class:`LanternError` when the ``.docx`` was not read
    with its heading and table."""
    from ..bundle.builder import build_bundle
    from ..bundle.reader import BundleReader

    with tempfile.TemporaryDirectory(prefix="lantern-selftest-") as tmp:
        course = Path(tmp) / "course"
        course.mkdir()
        (course / "blink.docx").write_bytes(probe_docx())
        out = Path(tmp) / "probe.sqlite"
        report = build_bundle(course, out, embedder, title="Self-test Word course")
        bundle = BundleReader(out)
        try:
            rows = bundle._query("SELECT heading, text FROM chunks")
        finally:
            bundle.close()
    if report.warnings or not any(h == "Blinking an LED" and "| GPIO 2 | onboard LED |" in t for h, t in rows):
        raise LanternError("Self-test failed: a Word (.docx) guide was not read with its heading and table "
                           f"({'; '.join(report.warnings)[:200] or 'no such chunk'}); reinstall Lantern.")
    return len(rows)
