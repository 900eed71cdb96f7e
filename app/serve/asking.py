"""One question in the browser, as server-sent events: the evidence first, then the line for the
model, then each verified sentence, then the whole ``ask --json`` document.

Events (``event: NAME`` then ``data: JSON`` on one line):

- ``evidence``: ``{"answer": <ask --json document of the extractive answer>, "html", "links"}``, as
  soon as retrieval is done (before any model work);
- ``queue``: ``{"ahead": n, "message"}``, each time the number of questions ahead of this one on
  the chat model changes;
- ``busy``: ``{"message"}``: the line for the model is full; the evidence stands as the answer;
- ``sentence``: ``{"text", "html"}``: one of the model's sentences that passed every check;
- ``done``: ``{"answer": <ask --json document>, "html", "links"}``, always last on success;
- ``error``: ``{"message"}``: one sentence; the stream ends.

``html`` is the answer's text rendered for the page (:func:`app.serve.pages.answer_fragment`) and
``links`` maps each passage number to the page that opens its guide at the passage.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import TYPE_CHECKING, AsyncIterator, Callable

from ..errors import LanternError
from ..records import Answer
from .limits import ModelQueue, QueueFull
from .pages import answer_fragment, guide_link

if TYPE_CHECKING:  # pragma: no cover
    from ..answer.answerer import Assistant

log = logging.getLogger("lantern.serve")

Emit = Callable[[str, dict], None]
BUSY_MESSAGE = ("The assistant's model is busy with other students' questions; the passages above are your answer. "
                "Ask again in a minute for a written answer.")


def sse(event: str, data: dict) -> bytes:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode("utf-8")


def answer_event(course_id: str, answer: Answer) -> dict:
    """The data of an ``evidence`` or ``done`` event for ``answer``."""
    return {"answer": answer.as_json(), "html": answer_fragment(course_id, answer.text, answer.passages),
            "links": {str(p.n): guide_link(course_id, p.hit.source, p.hit.anchor) for p in answer.passages}}


def queue_message(ahead: int) -> str:
    return (f"Your question is in line for the model: {ahead} question{'s' if ahead != 1 else ''} ahead of yours. "
            "The passages above are ready to read now.")


class AskRunner:
    """Runs questions on worker threads and streams their events.

    At most ``max_in_flight`` questions are taken at once (:attr:`full` says when; those taken
    beyond the threads wait for one, in order); ``queue`` holds the line for the chat model (one question at a
    time). At most ``retrieval_threads`` questions (default: one per core, at most 4) retrieve and
    quote their evidence at once."""

    def __init__(self, queue: ModelQueue | None = None, max_in_flight: int = 64, retrieval_threads: int | None = None) -> None:
        self.queue = queue or ModelQueue()
        self.max_in_flight = max_in_flight
        self.in_flight = 0
        threads = retrieval_threads or min(4, os.cpu_count() or 2)
        # Retrieval and evidence use the CPU: at most one question per core at a time (more only
        # slows every one of them and grows memory); a question waiting for the model holds no core.
        self._retrieval = threading.BoundedSemaphore(threads)
        self._executor = ThreadPoolExecutor(self.queue.max_waiting + 1 + threads, "lantern-ask")

    @property
    def full(self) -> bool:
        """True when ``max_in_flight`` questions are being answered: a new one is refused. (A question
        counts from the moment its stream starts to the end of its work.)"""
        return self.in_flight >= self.max_in_flight

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def stream(self, assistant: Assistant, course_id: str, question: str,
                     history: list[dict]) -> AsyncIterator[bytes]:
        """The events of one question (see the module docstring). Leaving the stream (the
        student closed the page) stops the model at its next token and gives up a place in line."""
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[tuple[str, dict]] = asyncio.Queue()
        stop = threading.Event()

        def emit(event: str, data: dict) -> None:
            try:
                loop.call_soon_threadsafe(events.put_nowait, (event, data))
            except RuntimeError:  # the server's loop has closed: nobody is listening any more
                stop.set()

        self.in_flight += 1  # no await until the callback that counts it out is set
        future = loop.run_in_executor(self._executor, self._work, assistant, course_id, question, history, emit, stop)
        future.add_done_callback(lambda _: self._finished())
        try:
            while True:
                event, data = await events.get()
                yield sse(event, data)
                if event in ("done", "error"):
                    return
        finally:
            stop.set()

    def _finished(self) -> None:
        self.in_flight -= 1

    def _work(self, assistant: Assistant, course_id: str, question: str, history: list[dict], emit: Emit,
              stop: threading.Event) -> None:
        """Answer on a worker thread, emitting the events; never raises."""
        if stop.is_set():  # the student left while the question waited for a thread
            return
        try:
            answer = self._answer(assistant, course_id, question, history, emit, stop)
            log.info("ask course=%s state=%s degraded=%s evidence_ms=%s total_ms=%s", course_id, answer.state,
                     ",".join(answer.degraded) or "-", _ms(answer.timings_ms.get("evidence")),
                     _ms(answer.timings_ms.get("total")))
            emit("done", answer_event(course_id, answer))
        except LanternError as exc:
            emit("error", {"message": str(exc)})
        except Exception:  # noqa: BLE001 - one question's bug must not end the server
            log.exception("ask course=%s failed", course_id)
            emit("error", {"message": "The server could not answer this question because of an error in Lantern; "
                                      "try another question, and tell the lab's admin (the server's log has details)."})

    def _answer(self, assistant: Assistant, course_id: str, question: str, history: list[dict], emit: Emit,
                stop: threading.Event) -> Answer:
        skip = threading.Event()  # no model for this question (the line is full, or the student left)
        shown: list[Answer] = []  # the evidence, once it is out

        def should_stop() -> bool:
            return stop.is_set() or skip.is_set()

        def on_sentence(text: str) -> None:
            passages = shown[0].passages if shown else ()
            emit("sentence", {"text": text, "html": answer_fragment(course_id, text, passages)})

        with ExitStack() as held:
            self._retrieval.acquire()
            released: list[bool] = []

            def release_core() -> None:
                if not released:
                    released.append(True)
                    self._retrieval.release()
            held.callback(release_core)

            def on_evidence(evidence: Answer) -> None:
                shown.append(evidence)
                release_core()  # the core is free for the next question's retrieval
                emit("evidence", answer_event(course_id, evidence))
                if assistant.llm is None:
                    return
                try:
                    turn = held.enter_context(self.queue.slot(
                        lambda ahead: emit("queue", {"ahead": ahead, "message": queue_message(ahead)}), stop.is_set))
                except QueueFull:
                    emit("busy", {"message": BUSY_MESSAGE})
                    turn = False
                if not turn:
                    skip.set()

            return assistant.answer(question, history, on_evidence=on_evidence, on_sentence=on_sentence,
                                    should_stop=should_stop)


def _ms(value: object) -> str:
    """A duration for the log: whole milliseconds, or '-' when it was not measured."""
    return f"{value:.0f}" if isinstance(value, (int, float)) else "-"
