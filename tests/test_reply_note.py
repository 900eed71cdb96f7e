"""The "From the guides:" line in the course's language: the window's memory, the export and the
answer view split a reply at it in French and Spanish as in English (app/answer/replies.py ``note_in``)."""

from __future__ import annotations

import pytest

from app.answer.replies import EXTRACTIVE_NOTE, note_in, reply_text
from app.export.document import split_answer
from app.gui.conversation import memory_text
from app.gui.render import answer_html
from app.records import Answer


def _answer(state: str, text: str) -> Answer:
    return Answer(state=state, text=text, passages=(), citations=(), corpus_version="v1", model="m")


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_a_reply_is_split_at_the_note_of_its_course_language(language):
    note = reply_text("from_guides", language)
    text = f"La soudure doit briller [1].\n\n{note}\n\n*Soudure*: Une bonne soudure est brillante. [1]"
    assert note_in(text) == note
    verified, quotes, reply = split_answer(_answer("answered", text))
    assert verified == "La soudure doit briller [1]." and quotes.startswith("*Soudure*") and reply == ""
    assert memory_text(_answer("answered", text)) == "La soudure doit briller [1]."
    quoted = f"{note}\n\n*Soudure*: Une bonne soudure est brillante. [1]"
    assert memory_text(_answer("extractive", quoted)) == "*Soudure*: Une bonne soudure est brillante. [1]"
    assert f"<strong>{note}</strong>" in answer_html(quoted, {1}, note_in(quoted))


def test_a_note_inside_a_sentence_is_not_the_note_line():
    text = f"The guide says {EXTRACTIVE_NOTE} in passing."
    assert note_in(text) == ""
    assert split_answer(_answer("answered", text)) == (text, "", "")
