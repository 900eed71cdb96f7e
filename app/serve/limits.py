"""What keeps ``lantern serve`` safe under load: request limits, a per-client rate limit and the
bounded line of students waiting for the chat model.

- :data:`MAX_BODY_BYTES`: the largest request body read (bytes); :func:`read_json_body` refuses
  more before parsing.
- :data:`MAX_QUESTION_CHARS`: the longest question or search query (characters), the answerer's own limit.
- :class:`RateLimiter`: a token bucket per client address (requests per minute, with a burst).
- :class:`ModelQueue`: one question at a time on the chat model; at most ``max_waiting`` students
  wait behind it and each is told how many questions are ahead of theirs.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from starlette.requests import Request

from ..answer.answerer import MAX_QUESTION_CHARS
from ..errors import LanternError

__all__ = ["MAX_BODY_BYTES", "MAX_QUESTION_CHARS", "MAX_HISTORY_TURNS", "RequestError", "read_json_body",
           "RateLimiter", "ModelQueue", "QueueFull"]

#: The largest request body (bytes): a question of 2,000 characters and six earlier turns of up to
#: 2,000 characters each, even in 4-byte UTF-8 and JSON escapes, fit well inside it.
MAX_BODY_BYTES = 64 * 1024
#: The most earlier turns a follow-up may send (the answerer keeps the last six).
MAX_HISTORY_TURNS = 12


class RequestError(LanternError):
    """A request the server refuses; ``status`` is the HTTP status code to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def read_json_body(request: Request, limit: int = MAX_BODY_BYTES) -> dict:
    """The request's JSON object. Raises :class:`RequestError`: 413 when the body is over ``limit``
    bytes (by its Content-Length, or while reading one sent in chunks: at most ``limit`` plus one
    chunk is held), 415 when it is not sent as ``application/json``, 400 when it is not UTF-8 JSON
    holding an object."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise RequestError(f"The request is {int(declared):,} bytes, over the limit of {limit:,}; "
                           "send a shorter question.", 413)
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise RequestError("Send the request as JSON (Content-Type: application/json).", 415)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise RequestError(f"The request is over the limit of {limit:,} bytes; send a shorter question.", 413)
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RequestError("The request is not valid UTF-8 JSON; send a JSON object such as "
                           '{"course": "ID", "question": "text"}.') from None
    if not isinstance(doc, dict):
        raise RequestError('The request must be a JSON object such as {"course": "ID", "question": "text"}.')
    return doc


def checked_text(doc: dict, key: str, what: str) -> str:
    """``doc[key]`` as a question or query of 1 to :data:`MAX_QUESTION_CHARS` characters; raises
    :class:`RequestError` (400 when missing or empty, 413 when too long)."""
    text = doc.get(key)
    if not isinstance(text, str) or not text.strip():
        raise RequestError(f"The {what} is empty; type a {what} about the course.")
    if len(text) > MAX_QUESTION_CHARS:
        raise RequestError(f"The {what} is {len(text):,} characters, over the limit of {MAX_QUESTION_CHARS:,}; "
                           "shorten it to the part you need answered.", 413)
    return text


def checked_history(doc: dict) -> list[dict]:
    """The earlier turns of a follow-up (``doc["history"]``, default none): at most
    :data:`MAX_HISTORY_TURNS` turns of ``{"role": "user"|"assistant", "content": text of at most
    MAX_QUESTION_CHARS characters}``; raises :class:`RequestError` naming the bad turn."""
    history = doc.get("history") or []
    if not isinstance(history, list) or len(history) > MAX_HISTORY_TURNS:
        raise RequestError(f"The history must be a list of at most {MAX_HISTORY_TURNS} earlier turns; "
                           "start a new conversation.")
    for i, turn in enumerate(history, 1):
        if not (isinstance(turn, dict) and turn.get("role") in ("user", "assistant")
                and isinstance(turn.get("content"), str) and len(turn["content"]) <= MAX_QUESTION_CHARS):
            raise RequestError(f"Turn {i} of the history is not {{\"role\": \"user\" or \"assistant\", "
                               f"\"content\": text of at most {MAX_QUESTION_CHARS:,} characters}}; "
                               "start a new conversation.")
    return [{"role": t["role"], "content": t["content"]} for t in history]


class RateLimiter:
    """A token bucket per client: ``per_minute`` requests a minute on average, up to ``burst`` at
    once. At most ``max_clients`` buckets are kept (the longest idle go first). ``per_minute <= 0``
    turns the limit off. Not thread-safe: called from the server's event loop only."""

    def __init__(self, per_minute: float = 30, burst: int = 15, max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, last time)

    def wait_seconds(self, client: str) -> float:
        """0 when ``client`` may make a request now (and counts it), else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = self.clock()
        tokens, last = self._buckets.pop(client, (self.burst, now))  # popped: reinserted as the newest
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if len(self._buckets) >= self.max_clients:
            del self._buckets[next(iter(self._buckets))]
        if tokens >= 1.0:
            self._buckets[client] = (tokens - 1.0, now)
            return 0.0
        self._buckets[client] = (tokens, now)
        return (1.0 - tokens) / self.rate


class QueueFull(LanternError):
    """Too many students are waiting for the chat model already."""


class ModelQueue:
    """``slots`` questions at a time on the chat model (1 for the in-app model; a lab's engine with
    parallel slots may take more), in arrival order; at most ``max_waiting`` wait.

    :meth:`slot` is used from worker threads: it waits for the model and tells the caller how many
    questions are ahead (``on_position(ahead)``, each time that number changes)."""

    def __init__(self, max_waiting: int = 8, slots: int = 1) -> None:
        self.max_waiting = max_waiting
        self.slots = max(1, slots)
        self._cond = threading.Condition()
        self._line: list[object] = []  # the first ``slots`` hold the model

    @property
    def length(self) -> int:
        """Questions on or waiting for the model."""
        with self._cond:
            return len(self._line)

    @contextmanager
    def slot(self, on_position: Callable[[int], None], should_stop: Callable[[], bool]) -> Iterator[bool]:
        """Hold the model for the ``with`` body. Yields True once this question's turn has come, False
        when ``should_stop()`` turned true while waiting (the student left). Raises :class:`QueueFull`
        when ``max_waiting`` questions are waiting already."""
        ticket = object()
        with self._cond:
            waiting = max(0, len(self._line) - self.slots)
            if len(self._line) >= self.slots and waiting >= self.max_waiting:
                raise QueueFull(f"{waiting} questions are waiting for the model already.")
            self._line.append(ticket)
        try:
            yield self._wait(ticket, on_position, should_stop)
        finally:
            with self._cond:
                self._line.remove(ticket)
                self._cond.notify_all()

    def _wait(self, ticket: object, on_position: Callable[[int], None], should_stop: Callable[[], bool]) -> bool:
        told = -1
        with self._cond:
            while True:
                ahead = self._line.index(ticket) - self.slots + 1  # questions that go before this one
                if ahead <= 0:
                    return True
                if should_stop():
                    return False
                if ahead != told:
                    told = ahead
                    on_position(ahead)
                self._cond.wait(timeout=0.25)
