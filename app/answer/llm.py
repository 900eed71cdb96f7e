"""The chat model adapter (the only module that imports llama_cpp).

Any chat GGUF works through the chat template stored in its own metadata. Generation
uses temperature 0 and a fixed seed so answers repeat; it streams text pieces and
stops between tokens when ``should_stop()`` turns true.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator, Protocol

from ..config import load_manifest, models_dir
from ..errors import ModelError

#: Context window in tokens: room for the system prompt, ~4,000 characters of sources
#: (~1,100 tokens), the question, history and the answer. llama-cpp-python's default
#: of 512 cannot hold the sources.
N_CTX = 4096
SEED = 1234


class ChatModel(Protocol):
    """What the answerer needs from a chat model."""

    name: str
    n_ctx: int

    def stream(self, messages: list[dict], max_tokens: int,
               should_stop: Callable[[], bool] | None = None) -> Iterator[str]:
        """Yield pieces of the reply to ``messages`` (``role``/``content`` dicts)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Number of model tokens in ``text``."""
        ...


class LlamaChatModel:
    """A GGUF chat model run by llama.cpp on the CPU.

    Raises :class:`ModelError` when the file is missing, differs from the manifest's
    sha256 (for the default model), or llama.cpp cannot load it.
    """

    def __init__(self, path: Path, n_ctx: int = N_CTX, threads: int = 0) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.n_ctx = n_ctx
        if not self.path.is_file():
            raise ModelError(f"The chat model {self.path} is missing; run `make models`, or choose another GGUF "
                             "file with --model or in Settings.")
        self._check_manifest()
        try:
            from llama_cpp import Llama

            self._llm = Llama(model_path=str(self.path), n_ctx=n_ctx, n_threads=threads or os.cpu_count() or 2,
                              n_batch=128, seed=SEED, verbose=False)
        except Exception as exc:  # llama_cpp raises ValueError/RuntimeError on bad files
            raise ModelError(f"The chat model {self.path.name} could not be loaded ({exc}); "
                             "check that it is a GGUF chat model, or run `make models` for the default.") from exc

    def _check_manifest(self) -> None:
        try:
            manifest = load_manifest()
        except ModelError:
            return
        entry = next((f for f in manifest["files"] if f["path"] == self.path.name), None)
        if entry is None or self.path.resolve() != (models_dir() / entry["path"]).resolve():
            return
        from ..embedding import file_sha256

        actual = file_sha256(self.path)
        if actual != entry["sha256"]:
            raise ModelError(f"The chat model {self.path} has sha256 {actual[:12]}…, not the manifest's "
                             f"{entry['sha256'][:12]}…; run `make models` to restore it.")

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def stream(self, messages: list[dict], max_tokens: int,
               should_stop: Callable[[], bool] | None = None) -> Iterator[str]:
        self._llm.reset()
        parts = self._llm.create_chat_completion(messages=messages, stream=True, temperature=0.0, top_k=1,
                                                 seed=SEED, max_tokens=max_tokens, repeat_penalty=1.1)
        for part in parts:
            if should_stop is not None and should_stop():
                break
            delta = part["choices"][0].get("delta", {}).get("content")
            if delta:
                yield delta


def default_model_path() -> Path:
    """The manifest's default chat GGUF in ``models/``."""
    return models_dir() / load_manifest()["chat"]


#: Names in llama.cpp's system info that are build options, not CPU instructions.
_NOT_ISA = {"LLAMAFILE", "OPENMP", "REPACK", "ACCELERATE", "KLEIDIAI"}


def cpu_features() -> tuple[str, ...]:
    """CPU instruction-set features this llama.cpp build uses (e.g. ``("SSE3", "AVX")``),
    parsed from ``llama_print_system_info()``; a CPU lacking one of them cannot run it."""
    from llama_cpp import llama_print_system_info

    info = llama_print_system_info()
    text = info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info)
    features = []
    for part in text.replace("CPU :", "|").split("|"):
        name, _, value = part.partition("=")
        name = name.strip()
        if value.strip() == "1" and name.isupper() and name not in _NOT_ISA and name not in features:
            features.append(name)
    return tuple(features)
