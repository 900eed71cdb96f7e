"""Property-based fuzzing of the core's entry points for user text (issue 15).

Over generated question text and conversation history (and, for the answerer, the chat model's
reply, which is untrusted too), ``Retriever.search``, ``Assistant.answer`` (fake embedder; fake
chat model and search-only; keyword-only too) and ``BundleReader.search_guides`` return a result
and raise nothing except the documented :class:`QuestionError` for an empty or over-long question.
The hostile strings of the issue run as fixed cases. Seeds are fixed (``derandomize``), so a
failure reproduces; the whole module takes a few seconds on the tiny course of ``conftest``.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.answer.answerer import MAX_QUESTION_CHARS, Assistant
from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.errors import QuestionError
from app.records import Answer
from app.retrieval.retriever import Retrieval, Retriever
from app.usertext import clean_user_text

from .conftest import LED_GUIDE, OLED_GUIDE
from .fakes import FakeChatModel, FakeEmbedder

STATES = {"answered", "extractive", "not-covered", "declined-off-topic", "declined-injection"}

#: The hostile strings of issue 15 and their relatives: each must get an answer or one QuestionError.
HOSTILE = [
    "caf\udce9 display blank",  # a Latin-1 byte passed through surrogateescape
    "\ud800", "\udfff OLED address", "\ud83d\ude00 pair of surrogates",
    "blank\x00display", "\x00", "\x01\x02\x1b[31mred\x1b[0m\x7f\x08",
    "a" * 200_000, "display " * 25_000,  # 200 KB lines
    "display " * 240, "LED " * 499,  # a long run of one repeated word, under the length limit
    "🔥💡 why is my LED not blinking? 🤖", "👩‍👩‍👧‍👦" * 50,
    "ما هو عنوان I2C للشاشة؟", "\u202eyalpsid knalb\u202c", "שלום OLED",
    "?!?...;;;", "\"", "'", "*", "```", "()", "^", "-", "NEAR(", "AND OR NOT", 'display* OR "', "{col}: x",
    "42", "0x3C", "17:00", "v1.2.3", "3.3V", "C:\\Users\\student\\blink.ino", "/dev/ttyUSB0",
    "../../etc/passwd", "https://example.org/a?b=c",
    "\u200b\u200b", "\ufeffOLED", "e\u0301" * 400, "的" * 1999, "\u00a0\u2003", "\r\n\r\n", "\t", " ",
    "",
]

CJK_GUIDE = "# 作业提交\n\n## 迟交\n\n迟交的报告每天扣百分之十的分数，最多扣五天。\n"
WORDS = ["OLED", "display", "blank", "I2C", "address", "0x3C", "GPIO", "21", "LED", "blink", "digitalWrite",
         "wi-fi", "it", "that", "how", "many", "what", "which", "lesson", "4", "迟交", "报告", "?", "the"]


@pytest.fixture(scope="module")
def fuzz_bundle(tmp_path_factory):
    """The conftest course plus a CJK guide, built once for the module."""
    root = tmp_path_factory.mktemp("fuzz") / "course"
    (root / "lessons").mkdir(parents=True)
    (root / "lessons" / "oled.md").write_text(OLED_GUIDE, encoding="utf-8")
    (root / "lessons" / "blink.md").write_text(LED_GUIDE, encoding="utf-8")
    (root / "zh.md").write_text(CJK_GUIDE, encoding="utf-8")
    out = root.parent / "fuzz.sqlite"
    build_bundle(root, out, FakeEmbedder(), title="Fuzz course")
    reader = BundleReader(out)
    yield reader
    reader.close()


# Any code point, lone surrogates and control characters included.
any_char = st.characters(exclude_categories=())
text = st.one_of(
    st.text(any_char, max_size=60),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(any_char, min_size=1, max_size=4)), max_size=12)
    .map(" ".join),
    st.sampled_from(HOSTILE),
)
turn = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool", ""])},
    optional={"content": text},
)
history = st.one_of(st.none(), st.lists(turn, max_size=6))
FUZZ = settings(max_examples=500, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _answer_or_refusal(assistant: Assistant, question: str, turns) -> Answer | None:
    """The answer, or None when the answerer refused with its documented QuestionError."""
    try:
        answer = assistant.answer(question, turns)
    except QuestionError as exc:
        cleaned = clean_user_text(question).strip()  # what the answerer judges
        assert not cleaned or len(cleaned) > MAX_QUESTION_CHARS, (question[:80], exc)  # only empty or over-long
        assert str(exc).endswith(".") and "\n" not in str(exc)
        return None
    assert answer.state in STATES
    assert isinstance(answer.text, str) and answer.text
    assert all(c.n in {p.n for p in answer.passages} for c in answer.citations)
    answer.as_json()  # serialisable as `ask --json` prints it
    return answer


@FUZZ
@given(question=text, turns=history, keyword_only=st.booleans())
def test_search_returns_hits_for_any_question_and_history(fuzz_bundle, question, turns, keyword_only):
    retriever = Retriever(fuzz_bundle, None if keyword_only else FakeEmbedder())
    result = retriever.search(question, k=5, history=turns)
    assert isinstance(result, Retrieval) and len(result.hits) <= 5
    assert all(h.source in {"lessons/oled.md", "lessons/blink.md", "zh.md"} for h in result.hits)


@FUZZ
@given(question=text, turns=history, reply=text, search_only=st.booleans())
def test_answer_never_raises_more_than_a_question_error(fuzz_bundle, question, turns, reply, search_only):
    llm = None if search_only else FakeChatModel(reply or "x")
    _answer_or_refusal(Assistant(Retriever(fuzz_bundle, FakeEmbedder()), llm), question, turns)


@FUZZ
@given(query=text)
def test_guide_search_returns_a_list_for_any_text(fuzz_bundle, query):
    matches = fuzz_bundle.search_guides(query, limit=5)
    assert isinstance(matches, list) and len(matches) <= 5


@pytest.mark.parametrize("question", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_hostile_strings_get_a_result_or_one_sentence(fuzz_bundle, question):
    turns = [{"role": "user", "content": question}, {"role": "assistant", "content": question[:500]}]
    for embedder in (FakeEmbedder(), None):
        retriever = Retriever(fuzz_bundle, embedder)
        assert isinstance(retriever.search(question, history=turns), Retrieval)
        for llm in (FakeChatModel(f"{question[:300]} [1]."), None):
            _answer_or_refusal(Assistant(retriever, llm), question, turns)
            follow_up = _answer_or_refusal(Assistant(retriever, llm), "and what about it?", turns)
            assert follow_up is not None
    assert isinstance(fuzz_bundle.search_guides(question), list)
