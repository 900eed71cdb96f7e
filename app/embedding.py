"""Sentence embeddings for retrieval (the only module that imports fastembed).

The default model is all-MiniLM-L6-v2 as an int8 ONNX file in ``models/``; it is
loaded from that folder with fastembed's ``specific_model_path`` and never from a hub.
Vectors are ``(n, 384) float32`` and L2-normalised, so a dot product is the cosine
similarity (higher is more similar, in [-1, 1]).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from .config import load_manifest, models_dir
from .errors import ModelError

log = logging.getLogger(__name__)


def disable_onnxruntime_telemetry() -> bool:
    """Switch off onnxruntime's telemetry for this process; call it before onnxruntime is imported.

    Recent official onnxruntime wheels (1.32 here; Linux, macOS and Windows, see the ``Privacy.md``
    they ship) carry Microsoft's 1DS telemetry client: when a session is created it writes a device identifier to
    ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/deviceid`` (and an event store next to it) and,
    about nine seconds later, looks up ``mobile.events.data.microsoft.com`` to upload events.
    ``ORT_DISABLE_TELEMETRY=1`` stops the uploader, the events and the identifier, but onnxruntime
    reads it once, when its native library is imported (measured: set after the import, the
    identifier is still written and the lookup still made), so it is set here unconditionally (a value of
    ``0`` in the environment is overridden). Returns False when onnxruntime was imported before this
    call, in which case the variable came too late; the caller then also turns off the events it
    still can through :func:`onnxruntime.disable_telemetry_events`. Raises nothing.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    return "onnxruntime" not in sys.modules


#: True when the switch above was set before onnxruntime was loaded (the usual case: only this
#: module imports fastembed, which imports onnxruntime).
_TELEMETRY_OFF_IN_TIME = disable_onnxruntime_telemetry()

#: Texts per embedding batch. fastembed pads each batch to its longest text; with its
#: default of 256 a build here took 16 GB at 4 chunks/s. Length-sorted batches of 8 measured
#: fastest on the IoT chunks here: 18 chunks/s vs 15 at 24; the full IoT build took 162 s in
#: 1.2 GB peak RSS at batch 8 against 200 s in 3.4 GB at batch 24. (fastembed reads up to 512 tokens
#: per text; truncating at MiniLM's training length of 256 built 2.5x faster in 0.6 GB instead
#: of 3.4 GB, but cost IoT MRR@10 0.855 -> 0.796, so it is not done: see docs/retrieval.md.)
BATCH_SIZE = 8


#: Blocks of at least this size are mapped for themselves and unmapped when freed (glibc, see
#: :func:`return_freed_memory`). Measured on the IoT questions (search-only, one thread, 2-core PC;
#: CPU seconds for 3 × 61 questions, RSS after): onnxruntime's arena 22.1–22.3 s, 351 MB; no arena
#: with glibc's default (adjusting) threshold 22.2–22.6 s, 291–300 MB and wandering; no arena with the
#: threshold fixed at 128 KiB 25.9–26.3 s (+17%: every tensor's pages are faulted in again), 211 MB;
#: at 1 MiB 25.1–26.0 s, 220 MB; at 4 MiB 22.7–23.3 s, 258 MB, and flat.
MMAP_THRESHOLD = 4 * 1024 * 1024


def return_freed_memory() -> bool:
    """Make the C allocator give large freed blocks back to the system at once (glibc only; True
    when it did). Called before a question-time embedder is loaded, with onnxruntime's memory arena
    off (:class:`FastEmbedder`). Without the arena every tensor is a ``malloc``; glibc maps blocks
    over its mmap threshold for themselves and unmaps them on ``free``, but raises that threshold to
    the largest block freed so far (up to 32 MiB), after which the large tensors come from its heap,
    which fragments and is not trimmed: measured over 1,000 soak questions, RSS then wandered between
    266 and 317 MB instead of staying flat. Setting the threshold with ``mallopt`` switches that
    raising off (glibc's documented behaviour). Process-wide; on other C libraries and on Windows
    (whose heap gives large blocks back itself) nothing is done. Raises nothing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        import ctypes

        m_mmap_threshold = -3  # <malloc.h>
        return ctypes.CDLL("libc.so.6").mallopt(m_mmap_threshold, MMAP_THRESHOLD) == 1
    except (OSError, ValueError, AttributeError):
        return False


class Embedder(Protocol):
    """What retrieval and the bundle builder need from an embedding model."""

    model_id: str
    dim: int
    checksum: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim) float32``, L2-normalised rows."""
        ...


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file (``hashlib.file_digest``, read in blocks)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class FastEmbedder:
    """all-MiniLM-L6-v2 (or the manifest's embedding model) through fastembed, offline.

    ``memory_arena``: whether onnxruntime keeps its CPU memory arena. Off (the default, for
    questions): each run's tensors are freed when it ends, so memory stays flat however many
    questions are asked; with the arena, the process keeps the memory of the largest batch it has
    embedded (it grows in steps for the first hundreds of questions: +100 MB over a soak run, and to
    over 1 GB after building). On for ``lantern build``, which embeds long chunks in batches and then
    exits: there the arena is about a third faster (measured: a batch of eight 512-token chunks in
    1.75 s of CPU against 2.3–2.5 s without). The vectors are the same either way.

    Raises :class:`ModelError` when a model file is missing or its sha256 differs from
    ``models/manifest.json``.
    """

    def __init__(self, folder: Path | None = None, threads: int | None = None, *,
                 memory_arena: bool = False) -> None:
        manifest = load_manifest()
        spec = manifest["embedding"]
        base = models_dir()
        self.folder = folder or base / spec["dir"]
        self.model_id = spec["id"]
        self.dim = int(spec["dim"])
        expected = {Path(f["path"]).name: f["sha256"] for f in manifest["files"]
                    if Path(f["path"]).parent.name == spec["dir"]}
        for name, sha in expected.items():
            path = self.folder / name
            if not path.is_file():
                raise ModelError(f"The embedding model file {path} is missing; run `make models` to fetch it.")
        self.checksum = file_sha256(self.folder / "model.onnx")
        if expected.get("model.onnx") and self.checksum != expected["model.onnx"]:
            raise ModelError(f"The embedding model {self.folder / 'model.onnx'} has sha256 {self.checksum[:12]}…, "
                             f"not the manifest's {expected['model.onnx'][:12]}…; run `make models` to restore it.")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        if not memory_arena:  # before the model loads, so that all its allocations follow the rule
            return_freed_memory()
        disable_onnxruntime_telemetry()  # in case something cleared it since this module was loaded
        try:
            import onnxruntime

            # Also covers builds whose telemetry ignores the variable (Windows TraceLogging).
            onnxruntime.disable_telemetry_events()
            if not _TELEMETRY_OFF_IN_TIME:
                log.warning("onnxruntime was loaded before Lantern could switch its telemetry off; "
                            "start Lantern through `lantern` or `python -m app` so that it is off.")
            from fastembed import TextEmbedding

            self._model = TextEmbedding(model_name=self.model_id, specific_model_path=str(self.folder),
                                        threads=threads or None, local_files_only=True,
                                        enable_cpu_mem_arena=memory_arena)
        except Exception as exc:  # fastembed/onnxruntime raise many types
            raise ModelError(f"The embedding model in {self.folder} could not be loaded ({exc}); "
                             "run `make models` to restore it.") from exc

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts in length-sorted batches of :data:`BATCH_SIZE`; returns rows in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for begin in range(0, len(order), BATCH_SIZE):
            idx = order[begin:begin + BATCH_SIZE]
            vectors = list(self._model.embed([texts[i] for i in idx], batch_size=BATCH_SIZE))
            out[idx] = np.asarray(vectors, dtype=np.float32)
        return out


def manifest_embedding() -> tuple[str, int, str]:
    """``(model id, dimension, sha256 of model.onnx)`` of the embedding model a build would
    use, read from ``models/manifest.json`` without loading the model (``FastEmbedder``
    refuses a file whose sha256 differs, so the manifest's value is the one it would
    record). Raises :class:`ModelError` when the manifest cannot be read or lists no
    ``model.onnx`` for the embedding model.
    """
    manifest = load_manifest()
    spec = manifest["embedding"]
    for entry in manifest["files"]:
        path = Path(entry["path"])
        if path.parent.name == spec["dir"] and path.name == "model.onnx":
            return spec["id"], int(spec["dim"]), entry["sha256"]
    raise ModelError(f"The model manifest {models_dir() / 'manifest.json'} lists no model.onnx for the embedding "
                     f"model {spec['id']}; run `make models` to restore the models folder.")
