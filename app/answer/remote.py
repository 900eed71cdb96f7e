"""The lab's model engine: an OpenAI-compatible ``/v1/chat/completions`` endpoint, streamed (SSE).

A lab admin points Lantern at one stronger machine running llama.cpp's ``llama-server``,
``python -m llama_cpp.server``, vLLM or Ollama: ``model_url`` in the settings file, or
``--model-url URL`` (window, ``ask``, ``serve``). Only the chat model moves: the prompt
(:mod:`app.answer.prompt`), the sentence-by-sentence check and evidence first stay Lantern's,
because :class:`RemoteChatModel` is just another :class:`~app.answer.llm.ChatModel`.

When the engine cannot be reached, is slower than its timeouts (seconds), answers an HTTP error
or anything that is not the API's shape, the reply comes from the in-app model when one is loaded,
else there is none (search-only); either way the answer carries the named degraded state
:data:`ENGINE_UNAVAILABLE` and the log has one sentence saying why. The evidence is on screen
before the engine is asked, so it always stays.

Without ``model_url`` nothing here runs and Lantern opens no connection. With it, Lantern connects
to that host and port only: no proxy from the environment, no redirects. The API key is sent as a
Bearer header and is never logged nor put in a message.
"""

from __future__ import annotations

import argparse
import logging
import math
from typing import Callable, Iterator

from ..config import Settings
from ..errors import ModelError
from .engine_http import Engine, EngineFailure, Transfer
from .llm import N_CTX, SEED, ChatModel

__all__ = ["ENGINE_UNAVAILABLE", "IN_APP", "Engine", "EngineFailure", "RemoteChatModel", "add_model_url_argument",
           "configured_engine", "engine_words", "remote_chat_model", "use_model_url"]

log = logging.getLogger("app.answer.remote")

#: The degraded state of an answer the lab's engine should have written and did not.
ENGINE_UNAVAILABLE = "engine-unavailable"
#: The engine name of the in-app llama.cpp model (``ask --json``'s ``engine``).
IN_APP = "in-app"
_SEARCH_ONLY = "search-only"  # app.answer.answerer.SEARCH_ONLY (not imported: the answerer imports models)
#: Characters per token assumed without an in-app tokenizer (fewer than the ~4 of English prose,
#: so the prompt is overestimated and always fits the engine's window).
CHARS_PER_TOKEN = 3
_override: dict[str, str] = {}


def add_model_url_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--model-url URL`` to ``parser`` (the window's, ``ask``'s, ``serve``'s); it never
    overwrites a value given to a parent parser. :func:`use_model_url` applies it."""
    parser.add_argument("--model-url", metavar="URL", default=argparse.SUPPRESS,
                        help="the lab's OpenAI-compatible model engine, e.g. http://192.168.1.10:8080 "
                        "(default: model_url in the settings file, else the in-app model)")


def use_model_url(url: str | None) -> None:
    """Make ``url`` this process's model engine in place of the settings file's (None or '': the
    settings file's, if any). Raises :class:`ModelError` (one sentence) when it is not an engine address."""
    _override.pop("url", None)
    if url:
        Engine.parse(url)
        _override["url"] = url


def configured_engine(settings: Settings | None = None) -> Engine | None:
    """The engine from ``--model-url`` or the settings file, or None (the default: no engine, no
    connection). The settings' ``api_key`` is sent only to the settings' own ``model_url`` origin.
    Raises :class:`ModelError` for an address that is not an engine's."""
    settings = settings or Settings.load()
    url = _override.get("url") or settings.model_url
    if not url.strip():
        return None
    options = dict(model=settings.engine_model, connect_timeout_s=float(settings.connect_timeout_s),
                   read_timeout_s=float(settings.read_timeout_s))
    engine = Engine.parse(url, **options)
    if settings.api_key and settings.model_url.strip() and Engine.parse(settings.model_url).origin == engine.origin:
        engine = Engine.parse(url, api_key=settings.api_key, **options)
    return engine


def remote_chat_model(engine: Engine, load_fallback: Callable[[], ChatModel]) -> RemoteChatModel:
    """The engine's chat model, with the in-app model from ``load_fallback()`` as its fallback and
    tokenizer; when that raises :class:`ModelError`, without one (the engine failing means search-only)."""
    try:
        fallback: ChatModel | None = load_fallback()
    except ModelError as exc:
        log.info("no in-app model to fall back on when the engine fails: %s", exc)
        fallback = None
    return RemoteChatModel(engine, fallback)


def engine_words(model: str, engine: str) -> str:
    """The model and, for the lab's engine, where it runs: ``qwen.gguf (remote http://h:8080)``."""
    return f"{model} ({engine})" if engine and engine != IN_APP else model


class RemoteChatModel:
    """A :class:`~app.answer.llm.ChatModel` answered by the lab's engine, falling back on ``fallback``.

    ``name`` is the model that wrote the last reply (the engine's ``model`` field, or the
    fallback's file name); ``engine_label`` who ran it (``remote http://…`` or :data:`IN_APP`);
    ``degraded`` the last reply's degraded states (:data:`ENGINE_UNAVAILABLE`, plus ``search-only``
    when nothing could answer) and ``failure`` its one sentence. Tokens are counted with the
    fallback's tokenizer (the same passages as in-app), else as :data:`CHARS_PER_TOKEN` characters each.
    """

    def __init__(self, engine: Engine, fallback: ChatModel | None = None, n_ctx: int = N_CTX) -> None:
        self.engine = engine
        self.fallback = fallback
        self.n_ctx = fallback.n_ctx if fallback is not None else n_ctx
        self._engine_name = engine.model or "the lab's model"  # then the name the engine last gave
        self.name = self._engine_name
        self.engine_label = engine.label
        self.degraded: tuple[str, ...] = ()
        self.failure = ""

    def begin_reply(self) -> None:
        """Forget the last reply's failure: a new reply that never calls the model (not covered,
        declined) is not marked with an engine failure it did not meet."""
        self.degraded, self.failure = (), ""

    def count_tokens(self, text: str) -> int:
        if self.fallback is not None:
            return self.fallback.count_tokens(text)
        return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))

    def prompt_tokens(self, messages: list[dict]) -> int:
        if self.fallback is not None:
            return self.fallback.prompt_tokens(messages)
        return sum(self.count_tokens(str(m.get("content", ""))) + 8 for m in messages)

    def stream(self, messages: list[dict], max_tokens: int,
               should_stop: Callable[[], bool] | None = None) -> Iterator[str]:
        """The engine's reply in pieces; on an :class:`EngineFailure` before the first piece, the
        fallback's reply (or none). A failure after it ends the reply there (its sentences stand)."""
        self.degraded, self.failure, self.engine_label, self.name = (), "", self.engine.label, self._engine_name
        started = False
        try:
            for piece in self._remote(messages, max_tokens, should_stop):
                started = True
                yield piece
            return
        except EngineFailure as exc:
            self.failure = str(exc)
            log.warning("%s", exc)
            alone = not started and self.fallback is None  # nothing at all answers this question
            self.degraded = (ENGINE_UNAVAILABLE,) + ((_SEARCH_ONLY,) if alone else ())
            if started or self.fallback is None or (should_stop is not None and should_stop()):
                return
        self.name, self.engine_label = self.fallback.name, IN_APP
        yield from self.fallback.stream(messages, max_tokens, should_stop)

    def _remote(self, messages: list[dict], max_tokens: int,
                should_stop: Callable[[], bool] | None) -> Iterator[str]:
        body = {"messages": messages, "stream": True, "max_tokens": max_tokens, "temperature": 0.0,
                "seed": SEED, "top_k": 1, "repeat_penalty": 1.1}  # the in-app sampling (llm.py)
        if self.engine.model:
            body["model"] = self.engine.model
        transfer = Transfer(self.engine, body)
        transfer.start()
        try:
            yield from transfer.pieces(should_stop)
        finally:
            transfer.cancel()  # Stop, the end, or a failure: the connection is shut at once
            if transfer.model:
                self.name = self._engine_name = transfer.model
