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
