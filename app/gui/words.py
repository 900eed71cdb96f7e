"""What the window says to students, in one place: answer states, degraded states, notes.

Plain strings (no Qt), so they are easy to review, test and translate.
"""

from __future__ import annotations

#: The answer states and the degraded states in words a student understands.
STATE_WORDS = {
    "answered": "Answered from the guides. Click a number to open the cited section.",
    "extractive": "The model's answer couldn't be checked against the guides, so here are the most relevant passages.",
    "not-covered": "Not covered by the guides. The sources below are the closest sections; click one to open it.",
    "declined-off-topic": "Declined: that request isn't about this course.",
    "declined-injection": "Declined: Lantern only answers questions about the course guides.",
}
SEARCH_ONLY_WORDS = "Search only: no language model, so here are the most relevant passages."
#: Short words for the status bar (the note above the answer explains them).
DEGRADED_WORDS = {
    "keyword-only": "Keyword search only",
    "search-only": "Search only (no language model)",
}
#: The note above the answer, in words a student understands.
LOADING_NOTE = ("Lantern is loading its language model; asking waits until it is ready. "
                "You can already search the guides (Ctrl+F) or browse the contents (Ctrl+T).")
DEGRADED_NOTES = {
    "keyword-only": "Lantern matches the words of your question, not their meaning, because its embedding "
                    "model is missing or doesn't fit this course: use the words the guides use.",
    "search-only": "No language model is available, so Lantern shows the most relevant passages of the "
                   "guides instead of writing an answer.",
}
STOPPED_WORDS = "Stopped: this is what was ready when you pressed Stop."
#: The list of earlier questions above the answer, and the state line of an answer reopened from it.
EARLIER_TITLE = "&Earlier in this conversation:"
EARLIER_PLACEHOLDER = "Choose a question to see its answer again"
EARLIER_LATEST = "(latest)"
EARLIER_WORDS = "Earlier answer, {n} of {total} in this conversation, shown as it was given."
#: The answer view before the first question (wrapped to the view).
ANSWER_PLACEHOLDER = ("Ask a question about {title} below. The answer comes from the course guides, "
                      "with numbered citations you can open.")


def _seconds(seconds: float) -> str:
    return "under 0.1 s" if seconds < 0.05 else f"{seconds:.1f} s"


def finished_status(state: str, seconds: float, search_only: bool = False, stopped: bool = False) -> str:
    """The status bar's words for a finished question: what took the time, and only what was
    timed ('' for a declined request, which is refused before any search)."""
    if state.startswith("declined"):
        return ""
    if stopped:
        return f"Stopped after {_seconds(seconds)}."
    if state == "answered":
        return f"Answered in {_seconds(seconds)}."
    if state == "extractive":
        if search_only:
            return f"Found the passages in {_seconds(seconds)}."
        return f"Replied in {_seconds(seconds)} with passages from the guides."
    if state == "not-covered":
        return f"Searched the guides in {_seconds(seconds)}: not covered."
    return ""


def short_question(question: str, limit: int) -> str:
    """``question`` on one line, at most ``limit`` characters: its start and its end around "…"."""
    flat = " ".join(question.split())
    if len(flat) <= limit:
        return flat
    tail = limit // 3
    return f"{flat[:limit - tail - 1].rstrip()}…{flat[-tail:].lstrip()}"
