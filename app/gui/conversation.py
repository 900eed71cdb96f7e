"""The finished exchanges of the window's current conversation (no Qt, no disk).

The window keeps each finished question with its :class:`~app.records.Answer` (text, state,
passages, citations) so the student can reopen an earlier answer exactly as it was shown.
They live only in this object: lab PCs are shared, so nothing here is ever saved; "New
conversation" and closing the window forget them. The model's memory (``MainWindow.history``,
the last few answered exchanges) is derived from them: :meth:`Conversation.history`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..answer.prompt import HISTORY_CHARS
from ..answer.replies import note_in
from ..records import Answer

#: Finished exchanges kept per conversation; older ones are dropped first.
EXCHANGES_KEPT = 50
#: Exchanges sent to the model as memory with a follow-up question.
HISTORY_TURNS = 3
#: The answer states the model remembers (a declined or not-covered exchange is not sent).
REMEMBERED_STATES = ("answered", "extractive")


def memory_text(answer: Answer) -> str:
    """What the window remembers of an answer for follow-up questions: the model's checked
    sentences of an ``answered`` reply (not the quotes below them), or the quoted blocks of an
    ``extractive`` one without the "From the guides:" line; whole blocks up to
    :data:`~app.answer.prompt.HISTORY_CHARS` characters (the first block cut if it alone is longer)."""
    text = answer.text
    note = note_in(text)  # in the course's language
    if note and answer.state == "answered":
        text = text.partition(f"\n\n{note}")[0]
    elif note and text.startswith(note):
        text = text[len(note):]
    blocks = [b.strip() for b in text.split("\n\n") if b.strip()]
    kept = blocks[:1]
    for block in blocks[1:]:
        if len("\n\n".join(kept + [block])) > HISTORY_CHARS:
            break
        kept.append(block)
    return "\n\n".join(kept)[:HISTORY_CHARS]


@dataclass(frozen=True, eq=False)  # identity, not equality: the same question may be asked twice
class Exchange:
    """One finished question and the answer shown for it (``stopped``: Stop ended it)."""

    question: str
    answer: Answer
    stopped: bool = False


class Conversation:
    """The finished exchanges of one conversation, oldest first, at most ``limit`` of them."""

    def __init__(self, limit: int = EXCHANGES_KEPT) -> None:
        self.limit = max(1, limit)
        self.exchanges: list[Exchange] = []

    def add(self, exchange: Exchange) -> None:
        """Append ``exchange``, dropping the oldest ones beyond the limit."""
        self.exchanges.append(exchange)
        del self.exchanges[:-self.limit]

    def clear(self) -> None:
        self.exchanges.clear()

    def copy(self) -> Conversation:
        """A conversation holding the same exchanges (the same :class:`Exchange` objects), which
        later changes to this one do not affect."""
        other = Conversation(self.limit)
        other.exchanges = list(self.exchanges)
        return other

    def history(self) -> list[dict]:
        """The model's memory: a user and an assistant message (:func:`memory_text`) for each
        answered or extractive exchange, oldest first."""
        messages: list[dict] = []
        for exchange in self.exchanges:
            if exchange.answer is not None and exchange.answer.state in REMEMBERED_STATES:
                messages += [{"role": "user", "content": exchange.question},
                             {"role": "assistant", "content": memory_text(exchange.answer)}]
        return messages

    def memory(self, turns: int = HISTORY_TURNS) -> list[dict]:
        """The history sent with the next question: that of the last ``turns`` remembered exchanges."""
        return self.history()[-2 * turns:] if turns > 0 else []

    def remembered_turns(self, turns: int = HISTORY_TURNS) -> int:
        """How many earlier exchanges (at most ``turns``) a follow-up question can refer to."""
        return min(len(self.history()) // 2, turns)

    def replace_history(self, messages: list[dict]) -> None:
        """Make this conversation the user/assistant ``messages`` pairs (each an answered exchange
        whose answer is the assistant's words), so that :meth:`history` returns them."""
        self.clear()
        for user, assistant in zip(messages[::2], messages[1::2]):
            self.add(Exchange(user["content"], Answer(state="answered", text=assistant["content"], passages=(),
                                                      citations=(), corpus_version="", model="")))

    def index(self, exchange: Exchange) -> int:
        """Position of this very exchange (by identity); -1 when it was dropped or cleared."""
        return next((i for i, e in enumerate(self.exchanges) if e is exchange), -1)

    @property
    def latest(self) -> Exchange | None:
        return self.exchanges[-1] if self.exchanges else None

    def __len__(self) -> int:
        return len(self.exchanges)

    def __getitem__(self, i: int) -> Exchange:
        return self.exchanges[i]

    def __iter__(self):
        return iter(self.exchanges)
