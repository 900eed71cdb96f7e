"""Pictures inside Word, PowerPoint and OpenDocument files, kept so the guide viewer shows them.

A converter hands each picture it meets to a :class:`Pictures` collector, which answers the
Markdown that stands for it:

- a PNG, JPEG or GIF picture (recognised by its first bytes, not by its name or declared type)
  of at most :data:`MAX_PICTURE_BYTES` becomes ``![alt text](.lantern-media/<digest>.png)``: the
  name is the first :data:`DIGEST_CHARS` hex characters of the picture's sha256, so the same file
  always gives the same names (incremental rebuilds and ``lantern check`` stay stable) and a
  picture used twice is stored once. The folder :data:`MEDIA_FOLDER` sits beside the guide; it is
  hidden, so it never names a file of the course folder (the reader skips hidden folders);
- any other picture (EMF/WMF drawings, TIFF, SVG, a part that is not a picture at all, a linked
  picture outside the file, one over the size limit, or past :data:`MAX_DOCUMENT_PICTURE_BYTES`
  or :data:`MAX_DOCUMENT_PICTURES` for the whole document) becomes ``(Image: alt text)``, as before, and is counted in
  :attr:`Pictures.skipped` so the reader can say so in one line.

The alt text is kept either way, so a search for words of a picture's description still finds it.
The archive limits of :mod:`app.formats.safety` have already bounded every part's size before a
picture is read.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from dataclasses import dataclass, field

from .base import UnreadableDocument, image_note, inline
from .safety import read_member

#: The hidden folder, beside the guide, that a document's pictures are stored under in the bundle.
MEDIA_FOLDER = ".lantern-media"
#: Largest picture kept (bytes, 4 MiB): a full-screen photo saved by PowerPoint is about 1-3 MB.
MAX_PICTURE_BYTES = 4 * 1024 * 1024
#: Most picture bytes kept from one document (32 MiB); the pictures after that are alt text only.
MAX_DOCUMENT_PICTURE_BYTES = 32 * 1024 * 1024
#: Most distinct pictures kept from one document; the pictures after that are alt text only.
MAX_DOCUMENT_PICTURES = 2000
#: How :meth:`Pictures._refusal`'s reasons for the document-wide caps end.
_DOCUMENT_CAPS = "pictures kept from one document"
#: Hex characters of the sha256 that name a stored picture (64 bits).
DIGEST_CHARS = 16
#: First bytes -> extension of the picture formats the viewer draws.
_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", ".png"), (b"\xff\xd8\xff", ".jpg"), (b"GIF87a", ".gif"), (b"GIF89a", ".gif"))


def picture_extension(data: bytes) -> str:
    """``.png``, ``.jpg`` or ``.gif`` for the bytes of such a picture (by its signature), else ``""``."""
    return next((ext for magic, ext in _SIGNATURES if data.startswith(magic)), "")


def picture_name(data: bytes) -> str:
    """The stored name of a picture, relative to its guide's folder: ``.lantern-media/<digest>.png``.

    ``data`` must be a picture :func:`picture_extension` recognises (``ValueError`` otherwise)."""
    extension = picture_extension(data)
    if not extension:
        raise ValueError("not a PNG, JPEG or GIF picture")
    return f"{MEDIA_FOLDER}/{hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]}{extension}"


def _alt(text: str) -> str:
    """Alt text safe inside ``![…]``: one line, brackets and backslashes escaped."""
    return re.sub(r"([\\\[\]])", r"\\\1", inline(text))


@dataclass
class Pictures:
    """The pictures of one document, collected while it is converted.

    ``kept`` maps stored names (relative to the guide's folder, :func:`picture_name`) to bytes;
    ``skipped`` lists, for each picture left as alt text, why (a short phrase naming its part)."""

    kept: dict[str, bytes] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    _kept_bytes: int = field(default=0, init=False, repr=False)

    @property
    def kept_bytes(self) -> int:
        """Bytes of all pictures kept so far (a running total, updated by :meth:`reference`)."""
        return self._kept_bytes

    def reference(self, alt: str, part: str, data: bytes | None) -> str:
        """The Markdown for one picture: an image reference when it is kept, else ``(Image: alt)``.

        ``part`` names the picture inside the file (``ppt/media/image3.emf``) for :attr:`skipped`;
        ``data`` is None when the picture cannot be read (linked, missing or damaged)."""
        why = self._refusal(part, data)
        if why or data is None:
            self.skipped.append(why)
            return image_note(alt)
        name = picture_name(data)
        if name not in self.kept:
            self.kept[name] = data
            self._kept_bytes += len(data)
        return f"![{_alt(alt)}]({name})"

    def member(self, archive: zipfile.ZipFile, name: str, alt: str) -> str:
        """:meth:`reference` for the archive member ``name`` (an OpenDocument ``Pictures/…`` part);
        a member declaring more than :data:`MAX_PICTURE_BYTES` is refused before it is unpacked, a
        missing or damaged one is left as its alt text."""
        try:
            info = archive.getinfo(name)
        except KeyError:
            return self.reference(alt, name, None)
        if info.file_size > MAX_PICTURE_BYTES:
            self.skipped.append(f"{name[:80]}: {info.file_size:,} bytes, over the {MAX_PICTURE_BYTES:,}-byte "
                                "limit for one picture")
            return image_note(alt)
        try:
            data: bytes | None = read_member(archive, name)
        except UnreadableDocument:
            data = None
        return self.reference(alt, name, data)

    def _refusal(self, part: str, data: bytes | None) -> str:
        if data is None:
            return f"{part[:80]}: not in the file (a linked picture?)"
        if not picture_extension(data):
            return f"{part[:80]}: not a PNG, JPEG or GIF picture"
        if len(data) > MAX_PICTURE_BYTES:
            return f"{part[:80]}: {len(data):,} bytes, over the {MAX_PICTURE_BYTES:,}-byte limit for one picture"
        if picture_name(data) in self.kept:
            return ""
        if self.kept_bytes + len(data) > MAX_DOCUMENT_PICTURE_BYTES:
            return f"{part[:80]}: past the {MAX_DOCUMENT_PICTURE_BYTES:,} bytes of pictures kept from one document"
        if len(self.kept) >= MAX_DOCUMENT_PICTURES:
            return f"{part[:80]}: past the {MAX_DOCUMENT_PICTURES:,} pictures kept from one document"
        return ""

    def summary(self) -> str:
        """One sentence on the pictures left as alt text (``""`` when none was): how many, the first
        and why, and the fix."""
        if not self.skipped:
            return ""
        count = len(self.skipped)
        fix = (f"save pictures as PNG or JPEG under {MAX_PICTURE_BYTES // (1024 * 1024)} MiB to show them in the "
               "viewer")
        if any(why.endswith(_DOCUMENT_CAPS) for why in self.skipped):  # a cap of the whole document was reached
            fix += (f"; at most {MAX_DOCUMENT_PICTURES:,} pictures and {MAX_DOCUMENT_PICTURE_BYTES // (1024 * 1024)} "
                    "MiB of them are kept from one document, so split a larger one into several files")
        return (f"{count:,} picture{'s' if count != 1 else ''} shown as {'their' if count != 1 else 'its'} alt text "
                f"only (first: {self.skipped[0]}); {fix}")


def skip_unless_picture(pictures: Pictures | None, alt: str, part: str, data: bytes | None) -> str:
    """:meth:`Pictures.reference`, or ``(Image: alt)`` when no collector is given (pictures not kept)."""
    return pictures.reference(alt, part, data) if pictures is not None else image_note(alt)
