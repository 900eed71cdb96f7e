"""The model's reply, streamed and checked sentence by sentence (DESIGN.md, "Evidence first").

:func:`stream_checked` feeds the model's pieces to a :class:`~app.answer.verify.SentenceStream`;
each finished sentence goes to :meth:`ReplyCheck.judge`, which keeps it only when
:func:`~app.answer.verify.check_sentence` passes it and it is no repeat, renumbers its citation
markers from the prompt's numbers to the numbers the student sees, and hands it on at once.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Callable

from ..errors import ModelError
from ..records import Passage
from ..text.grammar import CITATION_MARKER, citation_numbers
from .citations import is_citation
from .llm import ChatModel
from .verify import MIN_SUPPORT, SentenceStream, check_sentence

log = logging.getLogger("app.answer.answerer")  # the answerer's log, as before the split


@dataclass
class ReplyCheck:
    """The verdicts on one reply. ``passages`` are the passages the model read, numbered 1..m as in
    its prompt; ``blocks`` the quoted evidence's blocks (a sentence that only repeats one fails);
    ``question`` the text the sentence must stay on (the previous user turn, a newline, the
    question); ``shown_n`` maps a prompt number to the number the student sees; ``clock()`` gives
    milliseconds since the question arrived, for ``timings["first_verified"]`` (and
    ``"first_token"``, set by :func:`stream_checked`); ``on_sentence(text)`` receives each kept
    sentence. Filled in: ``verified`` (kept sentences, renumbered, in order), ``cited`` (shown
    numbers the kept sentences cite, first citation first, each once) and ``checks`` (counts:
    ``sentences`` judged, ``shown`` kept, ``repeat`` and each failing check's reason)."""

    passages: list[Passage]
    blocks: list[str]
    question: str
    shown_n: dict[int, int]
    clock: Callable[[], float]
    timings: dict
    on_sentence: Callable[[str], None] | None = None
    stemmer: str = "english"  # the course's (app/text/tokenize.py): the checks cut words with it
    verified: list[str] = field(default_factory=list)
    cited: list[int] = field(default_factory=list)
    checks: dict = field(default_factory=lambda: {"sentences": 0, "shown": 0})

    def judge(self, sentence: str) -> None:
        """Check one sentence (:func:`~app.answer.verify.check_sentence` at :data:`MIN_SUPPORT`):
        a failing one is counted under its reason, a repeat under ``repeat``; a passing one is
        renumbered, kept and handed to ``on_sentence``."""
        checks = self.checks
        checks["sentences"] += 1
        verdict = check_sentence(sentence, self.passages, self.blocks, MIN_SUPPORT, question=self.question,
                                 stemmer=self.stemmer)
        if not verdict.ok:
            checks[verdict.reason] = checks.get(verdict.reason, 0) + 1
            return
        text = renumber(verdict.text, self.shown_n)
        if text in self.verified:
            checks["repeat"] = checks.get("repeat", 0) + 1
            return
        self.verified.append(text)
        self.cited.extend(self.shown_n[n] for n in verdict.cited if self.shown_n[n] not in self.cited)
        checks["shown"] += 1
        self.timings.setdefault("first_verified", self.clock())
        if self.on_sentence is not None:
            self.on_sentence(text)


def stream_checked(llm: ChatModel, messages: list[dict], answer_tokens: int,
                   should_stop: Callable[[], bool] | None, check: ReplyCheck) -> None:
    """Generate at most ``answer_tokens`` tokens for ``messages`` and judge each finished sentence
    with ``check``; ``timings["first_token"]`` is set at the first piece. A :class:`ModelError`
    (say, the context overflowed) ends generation and is logged, not raised: the evidence stands.
    The unfinished last sentence is judged too, unless ``should_stop()`` is true by then."""
    stream = SentenceStream()
    try:
        for piece in llm.stream(messages, answer_tokens, should_stop):
            check.timings.setdefault("first_token", check.clock())
            for sentence in stream.feed(piece):
                check.judge(sentence)
    except ModelError as exc:  # e.g. the context overflowed: the evidence stands
        log.warning("generation failed: %s", exc)
    if should_stop is None or not should_stop():
        for sentence in stream.close():
            check.judge(sentence)


def renumber(text: str, numbers: dict[int, int]) -> str:
    """``text`` with each citation marker's prompt numbers replaced by the shown numbers (brackets
    in code, such as ``items[1]``, are left alone)."""
    def swap(match: re.Match) -> str:
        if not is_citation(text, match):
            return match.group(0)
        return "[" + ", ".join(str(numbers.get(n, n)) for n in citation_numbers(match)) + "]"
    return CITATION_MARKER.sub(swap, text)
