"""One request to the lab's model engine over HTTP (httpx), read as OpenAI's streamed chat completions.

:class:`Engine` is where and how to ask (its address parsed and checked once); :class:`Transfer`
sends one request on a thread of its own and hands over the reply's text pieces, so that Stop
never waits for the network; anything that is not a chat-completion stream is an
:class:`EngineFailure` with one sentence. :mod:`app.answer.remote` builds on it.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator
from urllib.parse import urlsplit

from ..errors import ModelError

#: Seconds between two looks at Stop while the engine is silent.
POLL_S = 0.05
#: The largest reply body read when the engine answers plain JSON instead of a stream (bytes).
MAX_JSON_BYTES = 1_000_000


class EngineFailure(ModelError):
    """The engine gave no usable reply: unreachable, too slow, an HTTP error, or not the API's shape."""


@dataclass(frozen=True)
class Engine:
    """Where and how to ask the lab's engine. ``endpoint`` is the full chat-completions URL;
    ``label`` names it for people (``remote http://10.0.0.5:8080``: scheme, host and port only);
    ``model`` is the model name sent ('' sends none: llama.cpp and vLLM use the one they serve,
    Ollama needs one); timeouts are in seconds (``read_timeout_s``: the longest silence)."""

    endpoint: str
    label: str
    model: str = ""
    api_key: str = field(default="", repr=False)
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 60.0

    @classmethod
    def parse(cls, url: str, **options) -> Engine:
        """The engine at ``url`` (``http://host:port``, ``…/v1`` or ``…/v1/chat/completions``).

        Raises :class:`ModelError` (one sentence) for anything else, and for a URL carrying a
        user name or password (the key belongs in ``api_key``, where it is never logged)."""
        text = url.strip()
        fix = ("give the engine's address like http://192.168.1.10:8080 "
               "(--model-url, or model_url in the settings file).")
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 (raises ValueError for a port that is not a number 0-65535)
        except ValueError:
            raise ModelError(f"The model engine address {text!r} has an unusable port; {fix}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ModelError(f"The model engine address {text!r} is not an http:// or https:// URL; {fix}")
        if parts.username or parts.password:
            raise ModelError("The model engine address holds a user name or password; put the key in the "
                             "settings file's api_key instead, where it is never logged.")
        if parts.query or parts.fragment:
            raise ModelError(f"The model engine address {text!r} has a query or fragment; {fix}")
        path = parts.path.rstrip("/")
        if not path.endswith("/chat/completions"):
            path = (path if path.endswith("/v1") else path + "/v1") + "/chat/completions"
        origin = f"{parts.scheme}://{parts.netloc}"
        return cls(origin + path, f"remote {origin}", **options)

    @property
    def origin(self) -> str:
        """``scheme://host:port`` of the engine."""
        return self.label.removeprefix("remote ")

    @property
    def address(self) -> tuple[str, int]:
        """The (host, port) Lantern connects to, and nothing else."""
        parts = urlsplit(self.endpoint)
        return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)

class Transfer:
    """One request to the engine, read on its own thread so that Stop never waits for the network:
    :meth:`pieces` hands over what arrives and :meth:`cancel` shuts the socket under a blocked read."""

    def __init__(self, engine: Engine, body: dict) -> None:
        self.engine, self.body = engine, body
        self.model = ""
        self._queue: queue.Queue = queue.Queue()
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None

    def start(self) -> None:
        threading.Thread(target=self._run, name="lantern-engine", daemon=True).start()

    def pieces(self, should_stop: Callable[[], bool] | None) -> Iterator[str]:
        """The reply's text pieces until the engine ends it; returns as soon as ``should_stop()``
        is true. Raises :class:`EngineFailure` (also after connect + read timeouts of silence)."""
        silence = self.engine.connect_timeout_s + self.engine.read_timeout_s
        last = time.monotonic()
        while not (should_stop is not None and should_stop()):
            try:
                kind, value = self._queue.get(timeout=POLL_S)
            except queue.Empty:
                if time.monotonic() - last > silence:
                    raise EngineFailure(self._sentence(f"sent nothing for {silence:g} s")) from None
                continue
            last = time.monotonic()
            if kind == "piece":
                yield value
            elif kind == "failed":
                raise value
            else:
                return

    def cancel(self) -> None:
        """Stop reading and shut the connection (wakes a read blocked in the worker thread)."""
        self._cancelled.set()
        with self._lock:
            sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _sentence(self, what: str) -> str:
        return (f"The lab's model engine at {self.engine.origin} {what}; the reply comes from the in-app "
                "model if there is one, else the guides' passages alone.")

    def _run(self) -> None:
        import httpx

        engine = self.engine
        try:
            self._exchange()
            self._queue.put(("done", None))
        except EngineFailure as exc:
            self._queue.put(("failed", exc))
        except httpx.ConnectTimeout:
            self._fail(f"did not accept a connection within {engine.connect_timeout_s:g} s")
        except httpx.ReadTimeout:
            self._fail(f"sent nothing for {engine.read_timeout_s:g} s (the read timeout)")
        except (httpx.HTTPError, OSError) as exc:
            self._fail(f"could not be reached or broke the connection ({exc.__class__.__name__})")

    def _fail(self, what: str) -> None:
        if not self._cancelled.is_set():
            self._queue.put(("failed", EngineFailure(self._sentence(what))))

    def _exchange(self) -> None:
        import httpx

        engine = self.engine
        headers = {"Accept": "text/event-stream"}
        if engine.api_key:
            headers["Authorization"] = f"Bearer {engine.api_key}"
        timeout = httpx.Timeout(engine.read_timeout_s, connect=engine.connect_timeout_s)
        with httpx.Client(timeout=timeout, trust_env=False, follow_redirects=False) as client:
            with client.stream("POST", engine.endpoint, json=self.body, headers=headers) as response:
                self._hold(response)
                if response.status_code != 200:
                    raise EngineFailure(self._sentence(_status_words(response.status_code)))
                kind = response.headers.get("content-type", "")
                if kind.startswith("application/json"):
                    self._put_whole(response)
                else:
                    self._put_stream(response.iter_lines())

    def _hold(self, response) -> None:
        """Keep the response's socket, so that :meth:`cancel` can shut it from another thread."""
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        with self._lock:
            self._sock = sock
        if self._cancelled.is_set():
            self.cancel()

    def _put_stream(self, lines: Iterable[str]) -> None:
        said = False
        for line in lines:
            if self._cancelled.is_set():
                return
            try:
                data = _sse_data(line)
            except ValueError:
                raise EngineFailure(self._sentence(f"answered something that is not a server-sent-events "
                                                   f"stream (a line starting {line[:20]!r})")) from None
            if data is None:
                continue
            if data == "[DONE]":
                return
            text = self._delta(data)
            said = True
            if text:
                self._queue.put(("piece", text))
        if not said:
            raise EngineFailure(self._sentence("closed the stream without a reply"))

    def _put_whole(self, response) -> None:
        """A plain JSON completion (an engine that does not stream): its message as one piece."""
        body = b""
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > MAX_JSON_BYTES:
                raise EngineFailure(self._sentence(f"answered more than {MAX_JSON_BYTES:,} bytes of JSON"))
        choice = self._choice(_json(body.decode("utf-8", "replace"), self._sentence))
        message = choice.get("message") if choice is not None else None
        text = message.get("content") if isinstance(message, dict) else None
        if not isinstance(text, str):
            raise EngineFailure(self._sentence("answered JSON without a chat message"))
        self._queue.put(("piece", text))

    def _delta(self, data: str) -> str:
        """The text of one streamed chunk ('' for one without any, e.g. the role or usage)."""
        choice = self._choice(_json(data, self._sentence))
        if choice is None:
            return ""
        delta = choice.get("delta")
        text = delta.get("content") if isinstance(delta, dict) else None
        if text is not None and not isinstance(text, str):
            raise EngineFailure(self._sentence("streamed a chunk whose content is not text"))
        return text or ""

    def _choice(self, chunk: object) -> dict | None:
        """The first choice of a completion chunk (None when it has no choices); records the model."""
        if not isinstance(chunk, dict):
            raise EngineFailure(self._sentence("answered JSON that is not a chat completion"))
        if "error" in chunk:
            raise EngineFailure(self._sentence("answered with an error (its own log says which)"))
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            self.model = chunk["model"][:200]
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            raise EngineFailure(self._sentence("answered JSON that is not a chat completion (no choices)"))
        if not choices:
            return None
        if not isinstance(choices[0], dict):
            raise EngineFailure(self._sentence("answered JSON that is not a chat completion"))
        return choices[0]


def _sse_data(line: str) -> str | None:
    """The ``data`` of one server-sent-events line; None for a blank line, a comment or another
    field. Raises ValueError for a line that is none of these (not an event stream)."""
    if not line or line.startswith(":"):
        return None
    name, _, value = line.partition(":")
    if name == "data":
        return value[1:] if value.startswith(" ") else value
    if name in ("event", "id", "retry"):
        return None
    raise ValueError(line[:20])


def _json(text: str, sentence: Callable[[str], str]) -> object:
    try:
        return json.loads(text)
    except ValueError:
        raise EngineFailure(sentence(f"answered something that is not JSON ({text[:20]!r}…)")) from None


def _status_words(status: int) -> str:
    if status in (401, 403):
        return f"refused the request (HTTP {status}): check api_key in the settings file"
    if status == 404:
        return "has no /v1/chat/completions (HTTP 404): check model_url, and engine_model for Ollama or vLLM"
    return f"answered HTTP {status} instead of a reply (the engine's own log says why)"

