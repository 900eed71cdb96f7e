"""The finished exchanges of the window's current conversation (no Qt, no disk).

The window keeps each finished question with its :class:`~app.records.Answer` (text, state,
passages, citations) so the student can reopen an earlier answer exactly as it was shown.
They live only in this object: lab PCs are shared, so nothing here is ever saved; "New
conversation" and closing the window forget them. This is separate from the model's memory
(``MainWindow.history``), which holds only the last few answered exchanges.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..records import Answer

#: Finished exchanges kept per conversation; older ones are dropped first.
EXCHANGES_KEPT = 50


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
