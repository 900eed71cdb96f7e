"""Follow-up questions: whether a question refers back to the previous turn, and what is
retrieved for it (issue 11: an unrelated new question is judged on its own words)."""

from __future__ import annotations

import re

from .settings import MAX_QUERY_CHARS

#: Words and openings by which a question refers back to the previous turn ("which socket does *it*
#: plug into?", "can I have more than one of *those*?", "*and* what if…", "what about…").
_REFERS_BACK = re.compile(
    r"\b(it|its|it's|itself|that|this|those|these|they|them|their|theirs|there|he|she|his|her|same|"
    r"also|instead|else|one|ones|former|latter|above|previous|earlier)\b|^\s*(and|but|so|ok|okay|then|"
    r"what about|how about)\b", re.IGNORECASE)


def refers_back(question: str) -> bool:
    """Whether ``question`` refers back to the previous turn (a pronoun such as *it*, *those*,
    *their*, or an opening such as "And…", "What about…"). Only such a question is a follow-up:
    a new, self-contained question is retrieved and gated on its own words, so an unrelated
    question after an answered one ("Where is the cafeteria?") is not answered from the previous
    turn's lesson (issue 11)."""
    return bool(_REFERS_BACK.search(question[:MAX_QUERY_CHARS]))


def previous_user_turn(history: list[dict] | None, question: str | None = None) -> str:
    """The last user message of ``history`` cut to MAX_QUERY_CHARS characters; '' when there is
    none, or when ``question`` is given and does not :func:`refers_back` to it."""
    if question is not None and not refers_back(question):
        return ""
    previous = [m["content"] for m in (history or []) if m.get("role") == "user" and m.get("content")]
    return previous[-1][:MAX_QUERY_CHARS] if previous else ""


def retrieval_query(question: str, history: list[dict] | None) -> str:
    """The text retrieved for: the question, preceded by the previous user turn when the question
    refers back to it. Each part is cut to MAX_QUERY_CHARS characters (the answerer refuses longer
    questions; the retriever stays fast on any input)."""
    question = question[:MAX_QUERY_CHARS]
    previous = previous_user_turn(history, question)
    return f"{previous}\n{question}" if previous else question
