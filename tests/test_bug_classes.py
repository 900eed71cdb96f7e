"""Public bug classes of comparable course assistants, each rebuilt as a tiny course (issue 15).

Each course is built in ``tmp_path`` with the fake embedder and answered search-only (no chat model):
what the student sees is the extractive answer, the guides' own words. Each test fails if Lantern
shows the bug again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.answer.answerer import Assistant
from app.answer.extractive import PARTIAL_LIST_NOTE
from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.ingest.chunker import ChunkerSettings, chunk_document
from app.ingest.reader import read_course
from app.retrieval.retriever import Retriever

from .fakes import FakeEmbedder


def _course(tmp_path: Path, guides: dict[str, bytes | str]) -> Path:
    """A course folder of ``guides`` (path -> text or raw bytes) built into a bundle; returns the bundle."""
    root = tmp_path / "course"
    for path, body in guides.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            target.write_bytes(body)
        else:
            target.write_text(body, encoding="utf-8")
    out = tmp_path / "course.sqlite"
    build_bundle(root, out, FakeEmbedder(), title="Bug classes")
    return out


def _ask(bundle: Path, question: str):
    reader = BundleReader(bundle)
    try:
        return Assistant(Retriever(reader, FakeEmbedder()), None).answer(question)
    finally:
        reader.close()


# (a) The same sub-heading under two parents -------------------------------------------------------

POLICIES = """# Course policies

## Late submission

Hand in every lab report through the course portal before Friday 17:00.

### Penalty

A late lab report loses 10% of its mark for each day it is late, up to five days.

## Quiz

Quizzes open on Monday and close on Wednesday evening.

### Penalty

A missed quiz scores zero unless you bring a medical certificate within a week.
"""


def test_the_same_sub_heading_under_two_parents_quotes_the_one_asked_about(tmp_path):
    bundle = _course(tmp_path, {"policies.md": POLICIES})
    late = _ask(bundle, "What is the penalty for a late submission?")
    assert late.state == "extractive"
    assert "10% of its mark for each day" in late.text and "medical certificate" not in late.text
    assert late.citations[0].hit.heading == "Course policies › Late submission › Penalty"
    quiz = _ask(bundle, "What is the penalty for a missed quiz?")
    assert quiz.state == "extractive"
    assert "medical certificate" in quiz.text and "10% of its mark" not in quiz.text
    assert quiz.citations[0].hit.heading == "Course policies › Quiz › Penalty"
    assert quiz.citations[0].hit.anchor == "penalty-1"  # the second "Penalty" has its own anchor


# (b) A long table split over several chunks -------------------------------------------------------

PARTS = ["resistor", "capacitor", "diode", "transistor", "relay", "buzzer", "potentiometer", "thermistor",
         "photoresistor", "servo", "stepper", "keypad", "joystick", "encoder", "speaker", "microphone"]


def _parts_table() -> str:
    rows = "".join(f"| Drawer {i} | {i * 10} pieces | shelf {chr(65 + i % 4)} of cabinet {i} |\n"
                   for i in range(1, 41))
    rows += "| Drawer 41 | 3 pieces | the soldering station kept by the lab technician |\n"
    rows += "".join(f"| Drawer {i} | {i * 10} pieces | shelf {chr(65 + i % 4)} of cabinet {i} |\n"
                    for i in range(42, 60))
    return ("# Parts inventory\n\nWhere each drawer of the parts room is kept.\n\n"
            "| Drawer | Stock | Location |\n| --- | --- | --- |\n" + rows)


def test_a_row_of_a_table_split_over_chunks_is_quoted_with_its_header(tmp_path):
    guide = _parts_table()
    bundle = _course(tmp_path, {"inventory.md": guide})
    doc = next(d for d in read_course(tmp_path / "course").documents if d.path == "inventory.md")
    chunks = chunk_document(doc, ChunkerSettings()).chunks
    holder = next(c for c in chunks if "| Drawer 41 |" in c.text)
    assert len(chunks) >= 3 and not holder.text.lstrip().startswith("| Drawer | Stock")  # the case under test
    answer = _ask(bundle, "Where is the soldering station kept?")
    assert answer.state == "extractive"
    assert "| Drawer | Stock | Location |" in answer.text
    assert "| Drawer 41 | 3 pieces | the soldering station kept by the lab technician |" in answer.text
    assert "| Drawer 40 |" not in answer.text and "| Drawer 42 |" not in answer.text  # that row, not the table


# (c) A guide saved in Windows-1252 ----------------------------------------------------------------
# Decoding and the warning naming the encoding are tested in tests/test_bundle.py
# (test_a_guide_in_a_legacy_encoding_is_decoded_and_the_encoding_is_named); here: the reply.

SENSOR_CP1252 = ("# Lesson 2 – Temperature sensor\n\n"
                 "The sensor’s range is –40 °C to 85 °C; don’t leave it in direct sunlight.\n")


def test_a_windows_1252_guide_is_quoted_without_replacement_characters(tmp_path):
    bundle = _course(tmp_path, {"sensor.md": SENSOR_CP1252.encode("cp1252")})
    answer = _ask(bundle, "What is the range of the temperature sensor?")
    assert answer.state == "extractive"
    assert "The sensor’s range is –40 °C to 85 °C" in answer.text and "\ufffd" not in answer.text


# (d) A CJK question -------------------------------------------------------------------------------

SUBMIT_ZH = """# 作业提交

## 截止时间

每周的实验报告必须在周五下午五点之前通过课程网站提交。

## 迟交

迟交的报告每天扣百分之十的分数，最多扣五天。

## 格式

报告请使用PDF格式，并在文件名中写上学号。
"""


def test_the_cjk_passage_that_ranks_first_is_the_one_quoted(tmp_path):
    bundle = _course(tmp_path, {"zh/submit.md": SUBMIT_ZH})
    reader = BundleReader(bundle)
    try:
        question = "迟交的报告扣多少分？"
        top = Retriever(reader, FakeEmbedder()).search(question).hits[0]
        answer = Assistant(Retriever(reader, FakeEmbedder()), None).answer(question)
    finally:
        reader.close()
    assert top.anchor == "迟交"
    assert answer.state == "extractive" and answer.citations[0].hit.key == top.key
    body = answer.text.split("\n\n", 1)[1]  # after "From the guides:"
    assert body.startswith("迟交的报告每天扣百分之十的分数，最多扣五天。 [1]")  # quoted first, as ranked


# (e) "How many" over a numbered list that spans chunks --------------------------------------------

def _safety_rules(count: int) -> str:
    rules = [f"{i}. Rule {i}: " + "keep the bench tidy, label every cable and check the supply voltage before "
             "you connect anything to the board; ask the technician when unsure." for i in range(1, count + 1)]
    return "# Lab safety\n\n## Safety rules\n\nThe lab has these safety rules:\n\n" + "\n".join(rules) + "\n"


@pytest.mark.parametrize("count, whole", [(15, True), (40, False)])
def test_how_many_over_a_list_spanning_chunks_shows_the_items_or_says_it_saw_part(tmp_path, count, whole):
    bundle = _course(tmp_path, {"safety.md": _safety_rules(count)})
    doc = next(d for d in read_course(tmp_path / "course").documents if d.path == "safety.md")
    chunks = chunk_document(doc, ChunkerSettings()).chunks
    assert len(chunks) >= (2 if count == 15 else 4)  # the list spans chunks (more than are quoted, for 40)
    answer = _ask(bundle, "How many safety rules are there in the lab?")
    assert answer.state == "extractive"
    shown = [i for i in range(1, count + 1) if f"Rule {i}:" in answer.text]
    caveat = PARTIAL_LIST_NOTE in answer.text
    if whole:  # 15 rules: every item is on screen, so no caveat is needed
        assert shown == list(range(1, count + 1)) and not caveat, answer.text
    else:  # 40 rules span more chunks than an answer quotes: several items shown, and the list goes on
        assert 2 < len(shown) < count and caveat, answer.text
