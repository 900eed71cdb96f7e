"""The checks a document archive passes before any converter unpacks it.

Word, PowerPoint, OpenDocument and EPUB files are zip archives of XML, and a course folder may
hold one made by anyone. :func:`open_archive` opens such a file only when:

- it is a zip archive at all: an encrypted (password-protected) Office file is an OLE compound
  file, as is a legacy ``.doc``/``.ppt`` saved under a new extension, and a truncated or damaged
  download is not a complete zip (each gets its own reason and fix);
- what its directory declares is sane, checked before a byte is unpacked (a zip bomb):
  at most :data:`MAX_MEMBERS` members, :data:`MAX_UNPACKED_BYTES` in all, :data:`MAX_XML_BYTES` for
  one XML part, and no member over :data:`RATIO_FLOOR_BYTES` that unpacks to more than
  :data:`MAX_RATIO` times its packed size. Python's ``zipfile`` never returns more bytes than a
  member declares (a member that lies fails its CRC check), so the declared sizes bound the work;
- (:func:`refuse_dtd`) no XML part declares a document type: Office and OpenDocument parts never
  need one, and a ``<!DOCTYPE`` is how external entities (a local file's content pulled into the
  text) and entity expansion bombs are declared. The XML parsers are configured not to resolve
  entities as well (``resolve_entities=False`` in python-docx, python-pptx and :func:`parse_xml`).

Nothing is written to disk: archives are read in memory, so no member name can place a file
anywhere. Macros (``vbaProject.bin``) and embedded objects (OLE, ``.bin`` parts) are never read,
let alone run: converters read only the XML text parts, and the pictures they keep as bytes
(:mod:`app.formats.pictures`: PNG, JPEG or GIF only, each within its own byte limit).
"""

from __future__ import annotations

import io
import zipfile
import zlib

from lxml import etree  # type: ignore[import-untyped]  # no stubs; python-docx and python-pptx use it too

from .base import UnreadableDocument

#: Most members (files) one document archive may hold; a 100-slide deck holds about 600.
MAX_MEMBERS = 20_000
#: Most bytes all members of one archive may declare unpacked (512 MiB); a 200-page Word file with
#: pictures declares about 20 MB.
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
#: Most bytes one XML part may declare unpacked (64 MiB); the text of a 200-page Word document is
#: about 5 MB of XML.
MAX_XML_BYTES = 64 * 1024 * 1024
#: Members that declare more unpacked bytes than this (4 MiB) must respect :data:`MAX_RATIO`.
RATIO_FLOOR_BYTES = 4 * 1024 * 1024
#: Most unpacked bytes per packed byte for a member over :data:`RATIO_FLOOR_BYTES`; Office XML packs
#: about 10-30 to 1, a zip bomb about 1000 to 1.
MAX_RATIO = 100
#: The first bytes of an OLE compound file (legacy Office, and encrypted Office 2007+ files).
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

_FIX_DAMAGED = "open it in the program that made it and save it again (or copy it again: it may be truncated)"


def _ole_reason(data: bytes, label: str) -> str:
    if "EncryptedPackage".encode("utf-16-le") in data:
        return (f"the {label} file is password-protected (encrypted); open it, remove the password "
                "(File › Info › Protect, clear the password), save it and build again")
    return (f"this is a legacy binary Office file with a {label} name; open it and save it as {label} "
            "(or run `soffice --headless --convert-to` on it) and build again")


def open_archive(data: bytes, label: str) -> zipfile.ZipFile:
    """The zip archive in ``data`` (a document's bytes), after the checks in the module docstring.

    ``label`` names the format in messages (``".docx"``). Raises :class:`UnreadableDocument`."""
    if data.startswith(OLE_MAGIC):
        raise UnreadableDocument(_ole_reason(data, label))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
        raise UnreadableDocument(f"the file is damaged: not a complete {label} (zip) archive "
                                 f"({str(exc)[:60]}); {_FIX_DAMAGED}") from exc
    check_declared_sizes(members)
    return archive


def check_declared_sizes(members: list[zipfile.ZipInfo]) -> None:
    """Refuse an archive whose directory declares too many members or too many unpacked bytes
    (limits in the module docstring). Raises :class:`UnreadableDocument`."""
    if len(members) > MAX_MEMBERS:
        raise UnreadableDocument(f"the archive holds {len(members):,} members, more than the {MAX_MEMBERS:,} "
                                 "a document may hold (a zip bomb?); refused without unpacking it")
    total = sum(m.file_size for m in members)
    if total > MAX_UNPACKED_BYTES:
        raise UnreadableDocument(f"the archive declares {total:,} unpacked bytes, more than the "
                                 f"{MAX_UNPACKED_BYTES:,}-byte limit (a zip bomb?); refused without unpacking it")
    for m in members:
        if m.filename.lower().endswith((".xml", ".rels")) and m.file_size > MAX_XML_BYTES:
            raise UnreadableDocument(f"its part {m.filename[:80]} declares {m.file_size:,} bytes, more than the "
                                     f"{MAX_XML_BYTES:,}-byte limit for one XML part; refused without unpacking it")
        if m.file_size > RATIO_FLOOR_BYTES and m.file_size > MAX_RATIO * max(1, m.compress_size):
            raise UnreadableDocument(f"its part {m.filename[:80]} unpacks {m.compress_size:,} bytes to "
                                     f"{m.file_size:,} (over {MAX_RATIO} to 1: a zip bomb?); refused without unpacking it")


def read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """The unpacked bytes of one member; raises :class:`UnreadableDocument` when it is missing or damaged."""
    try:
        return archive.read(name)
    except KeyError as exc:
        raise UnreadableDocument(f"the file lacks its part {name[:80]}; {_FIX_DAMAGED}") from exc
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as exc:
        raise UnreadableDocument(f"its part {name[:80]} is damaged ({str(exc)[:60]}); {_FIX_DAMAGED}") from exc


def refuse_dtd(name: str, xml: bytes) -> None:
    """Raise :class:`UnreadableDocument` when the XML part ``name`` declares a document type
    (``<!DOCTYPE``, where entities are declared); UTF-16 parts are decoded first."""
    head = xml
    if xml.startswith((b"\xff\xfe", b"\xfe\xff")):
        head = xml.decode("utf-16", errors="replace").encode("utf-8")
    if b"<!DOCTYPE" in head.upper() or b"<!ENTITY" in head.upper():
        raise UnreadableDocument(f"its XML part {name[:80]} declares a document type or entities, which Office "
                                 "and OpenDocument files never do (a hostile file?); refused")


def checked_archive(data: bytes, label: str) -> zipfile.ZipFile:
    """:func:`open_archive`, then :func:`refuse_dtd` on every XML part (``.xml``, ``.rels``) of it.

    Raises :class:`UnreadableDocument`."""
    archive = open_archive(data, label)
    for member in archive.infolist():
        if member.filename.lower().endswith((".xml", ".rels")):
            refuse_dtd(member.filename, read_member(archive, member.filename))
    return archive


def parse_xml(name: str, xml: bytes) -> etree._Element:
    """The root element of an XML part parsed by an lxml parser that resolves no entity, loads no
    DTD, opens no network and refuses huge trees; raises :class:`UnreadableDocument`."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        return etree.fromstring(xml, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise UnreadableDocument(f"its XML part {name[:80]} is damaged ({str(exc)[:60]}); {_FIX_DAMAGED}") from exc
