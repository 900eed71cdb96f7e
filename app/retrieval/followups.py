"""Follow-up questions: whether a question refers back to the previous turn, and what is
retrieved for it (issue 11: an unrelated new question is judged on its own words).

Only a question that :func:`~app.question.refers_back` (a pronoun such as *it*, *those*, *their*,
or an opening such as "And…", "What about…") is a follow-up: a new, self-contained question is
retrieved and gated on its own words, so an unrelated question after an answered one ("Where is
the cafeteria?") is not answered from the previous turn's lesson (issue 11)."""

from __future__ import annotations

from ..question import last_user_turn, refers_back
from .settings import MAX_QUERY_CHARS

__all__ = ["previous_user_turn", "refers_back", "retrieval_query"]

def previous_user_turn(history: list[dict] | None, question: str | None = None, language: str = "") -> str:
    """The last user message of ``history`` cut to MAX_QUERY_CHARS characters; '' when there is
    none, or when ``question`` is given and does not :func:`refers_back` to it (by the rules of
    the course's ``language`` tag and English's)."""
    if question is not None and not refers_back(question, language):
        return ""
    return last_user_turn(history)


def retrieval_query(question: str, history: list[dict] | None, language: str = "") -> str:
    """The text retrieved for: the question, preceded by the previous user turn when the question
    refers back to it. Each part is cut to MAX_QUERY_CHARS characters (the answerer refuses longer
    questions; the retriever stays fast on any input). ``language``: the course's tag."""
    question = question[:MAX_QUERY_CHARS]
    previous = previous_user_turn(history, question, language)
    return f"{previous}\n{question}" if previous else question
