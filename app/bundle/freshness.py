"""Is a bundle up to date with its course folder? (``lantern check``)

The folder is read and chunked (cheap) and compared with the bundle without embedding
anything: per-guide sha256 of the file bytes (added, changed, removed guides), the
images the guides reference, the chunker settings, the embedding model the build would
use, and the corpus version the build would produce.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..ingest.chunker import ChunkerSettings
from .originals import is_original
from .plan import CoursePlan, asset_bytes, plan_course
from .reader import BundleReader


@dataclass(frozen=True)
class Freshness:
    """The difference between a course folder and a bundle; ``up_to_date`` when there is none.

    Guide and image lists hold course-relative paths, sorted. ``chunker_change`` and
    ``embedding_change`` are one sentence each, or empty when unchanged.
    """

    bundle: str
    bundle_version: str
    folder_version: str
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    images_added: tuple[str, ...]
    images_changed: tuple[str, ...]
    images_removed: tuple[str, ...]
    chunker_change: str
    embedding_change: str

    @property
    def up_to_date(self) -> bool:
        return self.bundle_version == self.folder_version and not any(
            (self.added, self.changed, self.removed, self.images_added, self.images_changed, self.images_removed,
             self.chunker_change, self.embedding_change))

    def lines(self) -> list[str]:
        """Human-readable report, one finding per line."""
        if self.up_to_date:
            return [f"{self.bundle} is up to date (corpus version {self.bundle_version[:12]})."]
        out = [f"{self.bundle} is stale: rebuild it with `lantern build` "
               f"(bundle {self.bundle_version[:12]}, folder would give {self.folder_version[:12]})."]
        for label, items in (("added guide", self.added), ("changed guide", self.changed),
                             ("removed guide", self.removed), ("added image", self.images_added),
                             ("changed image", self.images_changed), ("removed image", self.images_removed)):
            out.extend(f"  {label}: {path}" for path in items)
        out.extend(f"  {text}" for text in (self.chunker_change, self.embedding_change) if text)
        return out

    def as_json(self) -> dict:
        return {"up_to_date": self.up_to_date, "bundle": self.bundle, "bundle_version": self.bundle_version,
                "folder_version": self.folder_version, "added": list(self.added), "changed": list(self.changed),
                "removed": list(self.removed), "images_added": list(self.images_added),
                "images_changed": list(self.images_changed), "images_removed": list(self.images_removed),
                "chunker_change": self.chunker_change, "embedding_change": self.embedding_change}


def _diff(old: dict[str, str], new: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    added = tuple(sorted(set(new) - set(old)))
    removed = tuple(sorted(set(old) - set(new)))
    changed = tuple(sorted(p for p in set(old) & set(new) if old[p] != new[p]))
    return added, changed, removed


def compare(plan: CoursePlan, bundle: BundleReader, embedding: tuple[str, int, str]) -> Freshness:
    """Compare a course plan with an open bundle; ``embedding`` is ``(model id, dim, checksum)``
    of the model a build would use."""
    stored = dict(bundle._query("SELECT path, sha256 FROM sources"))
    current = {doc.path: doc.sha256 for doc in plan.documents}
    added, changed, removed = _diff(stored, current)
    # Kept originals (--keep-originals) follow their guides' sha256, compared above.
    stored_images = {p: sha for p, sha in bundle._query("SELECT path, sha256 FROM assets") if not is_original(p)}
    current_images = {rel: hashlib.sha256(asset_bytes(a)).hexdigest() for rel, a in plan.assets.items()}
    images = _diff(stored_images, current_images)
    chunker_change = ""
    theirs = bundle.chunker_settings()
    ours = plan.settings.as_dict()
    if theirs != ours:
        chunker_change = (f"chunker settings changed: bundle {json.dumps(theirs, sort_keys=True)}, "
                          f"build would use {json.dumps(ours, sort_keys=True)}")
    embedding_change = ""
    meta = bundle.meta
    model_id, dim, checksum = embedding
    if (meta["embedding_model_id"], meta["embedding_dim"], meta["embedding_checksum"]) != (model_id, str(dim), checksum):
        embedding_change = (f"embedding model changed: bundle {meta['embedding_model_id']} ({meta['embedding_dim']} dims, "
                            f"checksum {meta['embedding_checksum'][:12]}), build would use {model_id} ({dim} dims, "
                            f"checksum {checksum[:12]})")
    return Freshness(bundle=bundle.path.name, bundle_version=bundle.corpus_version,
                     folder_version=plan.corpus_version, added=added, changed=changed, removed=removed,
                     images_added=images[0], images_changed=images[1], images_removed=images[2],
                     chunker_change=chunker_change, embedding_change=embedding_change)


def check_bundle(source_dir: Path, bundle_path: Path, embedding: tuple[str, int, str], *,
                 settings: ChunkerSettings | None = None, include: list[str] | None = None,
                 exclude: list[str] | None = None) -> Freshness:
    """Compare ``source_dir`` with the bundle at ``bundle_path``.

    ``include``/``exclude`` default to the globs the bundle was built with (recorded in
    its meta). Raises :class:`CourseFolderError` for a bad folder and :class:`BundleError`
    for a missing or unreadable bundle.
    """
    bundle = BundleReader(bundle_path)
    try:
        globs = json.loads(bundle.meta.get("source_globs", "{}") or "{}")
        plan = plan_course(source_dir, embedding[2], settings=settings,
                           include=include if include is not None else globs.get("include"),
                           exclude=exclude if exclude is not None else globs.get("exclude"))
        return compare(plan, bundle, embedding)
    finally:
        bundle.close()
