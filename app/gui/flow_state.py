"""The window's view of its answer flow (:class:`~app.gui.answer_flow.AnswerFlow`): the flow's
state as read-only attributes of the window, and the model's memory of the conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .conversation import HISTORY_TURNS

if TYPE_CHECKING:  # pragma: no cover
    from .answer_flow import AnswerFlow


def _flow_state(name: str, doc: str) -> property:
    return property(lambda self: getattr(self.flow, name), doc=doc)


class FlowState:
    """Mixin of :class:`~app.gui.main_window.MainWindow`: the state of its ``flow``, by the names
    tests and the course switcher use, and ``history`` / :meth:`memory`."""

    flow: AnswerFlow

    busy = _flow_state("busy", "A question is running.")
    ready = _flow_state("ready", "The models are loaded.")
    stopped = _flow_state("stopped", "Stop ended the last answer.")
    answer = _flow_state("answer", "The last final answer (None while a question runs).")
    shown = _flow_state("shown", "The exchange on screen (None while a question runs).")
    degraded = _flow_state("degraded", "The assistant's degraded states.")
    conversation = _flow_state("conversation", "Every finished exchange of this conversation.")
    worker = _flow_state("worker", "The AssistantWorker.")
    thread_ = _flow_state("thread_", "The worker's thread.")

    @property
    def history(self) -> list[dict]:
        """The model's memory: user/assistant messages of the conversation's answered exchanges.
        Assigning user/assistant pairs makes them the conversation (tests)."""
        return self.conversation.history()

    @history.setter
    def history(self, messages: list[dict]) -> None:
        self.conversation.replace_history(messages)
        self.flow.update_conversation_label()

    def memory(self) -> list[dict]:
        """The history sent with the next question: the last :data:`HISTORY_TURNS` exchanges."""
        return self.conversation.memory(HISTORY_TURNS)
