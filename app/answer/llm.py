"""The chat model adapter (the only module that imports llama_cpp).

Any chat GGUF works through the chat template stored in its own metadata. Generation
uses temperature 0 and a fixed seed so answers repeat; it streams text pieces and
stops between tokens when ``should_stop()`` turns true.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, cast

from ..config import load_manifest, model_entries, models_dir, resolve_chat_model
from ..errors import ModelError

if TYPE_CHECKING:  # pragma: no cover
    from llama_cpp.llama_types import ChatCompletionRequestMessage, CreateCompletionStreamResponse

#: Context window in tokens: room for the system prompt, ~4,000 characters of sources
#: (~1,100 tokens), the question, history and the answer. llama-cpp-python's default
#: of 512 cannot hold the sources.
N_CTX = 4096
SEED = 1234
#: Prompt tokens evaluated per step while the prompt is read; Stop is checked between steps.
#: 32 tokens take about 0.2 s for the 135M model on 2 cores (~150-200 prompt tokens/s), so Stop
#: lands within half a second also while the prompt is being read.
PREFILL_BATCH = 32


class ContextOverflow(ModelError):
    """The prompt and the answer do not fit in the model's context window."""

    def __init__(self, prompt_tokens: int, answer_tokens: int, n_ctx: int) -> None:
        super().__init__(f"The question and its sources need {prompt_tokens:,} tokens plus {answer_tokens:,} for the "
                         f"answer, more than the model's context window of {n_ctx:,} tokens; ask a shorter question.")
        self.prompt_tokens = prompt_tokens


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

    def prompt_tokens(self, messages: list[dict]) -> int:
        """Number of tokens of the full chat prompt for ``messages`` (template included)."""
        ...


class LlamaChatModel:
    """A GGUF chat model run by llama.cpp on the CPU.

    ``path`` is a GGUF file or the id of one of the manifest's ``optional_chat`` models
    (``qwen2.5-coder-0.5b``), so ``--model ID`` works wherever ``--model FILE`` does.
    Raises :class:`ModelError` when the file is missing, differs from the manifest's
    sha256 (for a model the manifest pins: the default or an ``optional_chat`` one, in
    ``models/``), or llama.cpp cannot load it.
    """

    def __init__(self, path: Path | str, n_ctx: int = N_CTX, threads: int = 0) -> None:
        self.path = resolve_chat_model(path)  # a GGUF file, or an optional model's id from the manifest
        self.name = self.path.name
        self.n_ctx = n_ctx
        if self.path.is_dir():
            raise ModelError(f"The chat model {self.path} is a folder; choose a .gguf file with --model or in Settings.")
        if not self.path.is_file():
            raise ModelError(f"The chat model {self.path} is missing; run `make models`, or choose another GGUF "
                             "file with --model or in Settings.")
        self._check_manifest()
        try:
            from llama_cpp import Llama

            self._llm = Llama(model_path=str(self.path), n_ctx=n_ctx, n_threads=threads or default_threads(),
                              n_batch=PREFILL_BATCH * 4, seed=SEED, verbose=False)
        except Exception as exc:  # llama_cpp raises ValueError/RuntimeError on bad files
            raise ModelError(f"The chat model {self.path.name} could not be loaded ({exc}); "
                             "check that it is a GGUF chat model, or run `make models` for the default.") from exc

    def _check_manifest(self) -> None:
        try:
            manifest = load_manifest()
        except ModelError:
            return
        entry = next((f for f in model_entries(manifest) if f["path"] == self.path.name), None)
        if entry is None or self.path.resolve() != (models_dir() / entry["path"]).resolve():
            return
        from ..embedding import file_sha256

        actual = file_sha256(self.path)
        if actual != entry["sha256"]:
            fix = f"make models MODEL={entry['id']}" if "id" in entry else "make models"
            raise ModelError(f"The chat model {self.path} has sha256 {actual[:12]}…, not the manifest's "
                             f"{entry['sha256'][:12]}…; run `{fix}` to restore it.")

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _prompt_tokens(self, messages: list[dict]) -> tuple[list[int], list[str]]:
        """Token ids of the chat prompt rendered with the GGUF's own chat template, and its stop strings.

        Raises :class:`ModelError` when the GGUF carries no chat template (not a chat model).
        """
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llm = self._llm
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError(f"The model {self.name} has no chat template in its metadata; choose an "
                             "instruct/chat GGUF (for example SmolLM2-135M-Instruct).")
        eos_id, bos_id = llm.token_eos(), llm.token_bos()
        eos = llm._model.token_get_text(eos_id) if eos_id != -1 else ""
        bos = llm._model.token_get_text(bos_id) if bos_id != -1 else ""
        result = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos,
                                     stop_token_ids=[eos_id])(
            messages=cast("list[ChatCompletionRequestMessage]", messages))  # plain role/content dicts
        tokens = llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True)
        stop = result.stop if isinstance(result.stop, list) else ([result.stop] if result.stop else [])
        return tokens, stop

    def prompt_tokens(self, messages: list[dict]) -> int:
        """Length in tokens of the chat prompt for ``messages``."""
        return len(self._prompt_tokens(messages)[0])

    def _prefill(self, tokens: list[int], should_stop: Callable[[], bool] | None) -> bool:
        """Evaluate all but the last prompt token in batches of :data:`PREFILL_BATCH`, reusing the
        longest prefix already in the KV cache (the fixed system prompt after the first question).

        Returns False when ``should_stop()`` turned true between batches.
        """
        llm = self._llm
        cached = llm.input_ids[:llm.n_tokens]
        prefix = 0
        for a, b in zip(cached, tokens):
            if a != b:
                break
            prefix += 1
        llm.n_tokens = min(prefix, len(tokens) - 1)
        for start in range(llm.n_tokens, len(tokens) - 1, PREFILL_BATCH):
            if should_stop is not None and should_stop():
                return False
            llm.eval(tokens[start:min(start + PREFILL_BATCH, len(tokens) - 1)])
        return True

    def stream(self, messages: list[dict], max_tokens: int,
               should_stop: Callable[[], bool] | None = None) -> Iterator[str]:
        tokens, stop = self._prompt_tokens(messages)
        if len(tokens) + max_tokens > self.n_ctx:
            raise ContextOverflow(len(tokens), max_tokens, self.n_ctx)
        if not self._prefill(tokens, should_stop):
            return
        # stream=True returns the iterator; llama_cpp's annotation is the union of both results.
        parts = cast("Iterator[CreateCompletionStreamResponse]", self._llm.create_completion(
            prompt=tokens, stream=True, temperature=0.0, top_k=1, seed=SEED,
            max_tokens=max_tokens, repeat_penalty=1.1, stop=stop))
        for part in parts:
            if should_stop is not None and should_stop():
                break
            text = part["choices"][0].get("text")
            if text:
                yield text


def default_threads() -> int:
    """Threads for llama.cpp when the setting is 0: all cores but one (at least 1). Measured with
    benchmarks/answer_latency.py on 2 cores (docs/answers.md): on a quiet machine the first token
    comes as fast with 1 thread as with 2 (4.5 s against 4.9 s), and with another program busy
    generation keeps 23 tokens/s instead of falling to 12, because llama.cpp's threads no longer
    spin waiting for a core."""
    return max(1, (os.cpu_count() or 2) - 1)


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
