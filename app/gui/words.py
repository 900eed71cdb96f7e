"""What the window says to students, in one place: answer states, degraded states, notes.

Plain strings marked with ``QT_TR_NOOP`` (it returns them unchanged), so they are easy to review, test and
translate: ``pyside6-lupdate`` collects them, and the window passes each through
:func:`app.gui.translation.tr` where it shows it (:mod:`app.gui.translation`).
"""

from __future__ import annotations

from .translation import QT_TR_NOOP, decimal, tr

#: The answer states and the degraded states in words a student understands. An extractive answer
#: is the guides' own words, never an apology; an answered one adds the model's checked sentences.
STATE_WORDS = {
    "answered": QT_TR_NOOP("Answer checked against the cited passages, with the guides' own words below it. "
                           "Click a number to open the cited section."),
    "extractive": QT_TR_NOOP("Quoted from the guides. Click a number to open the cited section."),
    "not-covered": QT_TR_NOOP("Not covered by the guides. The sources below are the closest sections; "
                              "click one to open it."),
    "declined-off-topic": QT_TR_NOOP("Declined: that request isn't about this course."),
    "declined-injection": QT_TR_NOOP("Declined: Lantern only answers questions about the course guides."),
}
#: While the model works, after the guides' words are on screen.
EVIDENCE_WORDS = QT_TR_NOOP("Quoted from the guides. Writing a short answer; only sentences the guides confirm "
                            "are added… (Esc stops; the quotes stay)")
SEARCH_ONLY_WORDS = QT_TR_NOOP("Search only (no language model): quoted from the guides. Click a number to open the "
                               "cited section.")
#: Short words for the status bar (the note above the answer explains them).
DEGRADED_WORDS = {
    "keyword-only": QT_TR_NOOP("Keyword search only"),
    "search-only": QT_TR_NOOP("Search only (no language model)"),
    "engine-unavailable": QT_TR_NOOP("Lab's model engine unavailable"),
}
#: The note above the answer, in words a student understands.
LOADING_NOTE = QT_TR_NOOP("Lantern is loading its language model; asking waits until it is ready. "
                          "You can already search the guides (Ctrl+F) or browse the contents (Ctrl+T).")
DEGRADED_NOTES = {
    "keyword-only": QT_TR_NOOP("Lantern matches the words of your question, not their meaning, because its "
                               "embedding model is missing or doesn't fit this course: use the words the guides use."),
    "search-only": QT_TR_NOOP("No language model is available, so Lantern shows the most relevant passages of the "
                              "guides instead of writing an answer."),
    "engine-unavailable": QT_TR_NOOP("The lab's model engine did not answer in time, so this reply comes from the "
                                     "model on this PC, or from the guides' passages alone."),
}
STOPPED_WORDS = QT_TR_NOOP("Stopped: this is what was ready when you pressed Stop.")
#: Stop was pressed and the question did not end in time (a search that never returns): its work is
#: abandoned and the models are loaded again, so the window can be used at once.
SET_ASIDE_WORDS = QT_TR_NOOP("Lantern's work on that question did not end when you pressed Stop, so Lantern left "
                             "it and is loading its models again; you can ask again in a moment.")
#: The open course's bundle file was replaced by another build (``lantern install``): the switcher
#: reloads it and says :data:`UPDATED_WORDS`; a window opened without one can only say this.
UPDATED_WORDS = QT_TR_NOOP("This course was updated while Lantern was open; Lantern now uses the new version "
                           "({version}). A new conversation starts, since earlier answers cite the previous version.")
UPDATE_RESTART_WORDS = QT_TR_NOOP("This course was updated while Lantern was open; close and reopen Lantern to use "
                                  "the new version.")
#: The list of earlier questions above the answer, and the state line of an answer reopened from it.
EARLIER_TITLE = QT_TR_NOOP("&Earlier in this conversation:")
EARLIER_PLACEHOLDER = QT_TR_NOOP("Choose a question to see its answer again")
EARLIER_LATEST = QT_TR_NOOP("(latest)")
EARLIER_WORDS = QT_TR_NOOP("Earlier answer, {n} of {total} in this conversation, shown as it was given.")
#: The answer view before the first question (wrapped to the view).
#: The empty question box: the course's own title, never another course's example question.
QUESTION_PLACEHOLDER = QT_TR_NOOP("Your question about {title}, in your own words")
ANSWER_PLACEHOLDER = QT_TR_NOOP("Ask a question about {title} below. The answer comes from the course guides, "
                                "with numbered citations you can open.")


def _seconds(seconds: float) -> str:
    """``0.03 s`` under a second (evidence is ready in milliseconds), ``4.1 s`` above."""
    if seconds < 0.005:
        return tr("under 0.01 s")
    return tr("{seconds} s").format(seconds=decimal(seconds, 2 if seconds < 0.995 else 1))


def evidence_status(seconds: float) -> str:
    """The status bar's words while the model works: when the guides' passages were ready."""
    return tr("Passages in {time}.").format(time=_seconds(seconds))


def finished_status(state: str, seconds: float, search_only: bool = False, stopped: bool = False,
                    evidence: float | None = None) -> str:
    """The status bar's words for a finished question: what took the time, and only what was
    timed ('' for a declined request, which is refused before any search). ``seconds`` is the
    whole question; ``evidence`` (seconds, when known) is when the guides' passages were on screen,
    named first so that a slow model never makes the passages look slow."""
    if state.startswith("declined"):
        return ""
    total = _seconds(seconds)
    passages = _seconds(evidence) if evidence is not None else ""
    if stopped:
        return tr("Passages in {time}; stopped after {total}.").format(time=passages, total=total) if passages \
            else tr("Stopped after {total}.").format(total=total)
    if state == "answered":
        return tr("Passages in {time}; checked answer in {total}.").format(time=passages, total=total) \
            if passages else tr("Checked answer in {total}.").format(total=total)
    if state == "extractive":
        if search_only or evidence is None:
            return tr("Found the passages in {time}.").format(time=passages or total)
        return tr("Passages in {time}; no checked answer to add ({total}).").format(time=passages, total=total)
    if state == "not-covered":
        return tr("Searched the guides in {total}: not covered.").format(total=total)
    return ""


def short_question(question: str, limit: int) -> str:
    """``question`` on one line, at most ``limit`` characters: its start and its end around "…"."""
    flat = " ".join(question.split())
    if len(flat) <= limit:
        return flat
    tail = limit // 3
    return f"{flat[:limit - tail - 1].rstrip()}…{flat[-tail:].lstrip()}"
