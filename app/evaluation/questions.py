"""Read and validate a question file (the format of ../shared/README.md).

One JSON object per line (blank lines are skipped): ``id``, ``question``, ``class``,
``expect`` (``answer``, ``not-covered`` or ``decline``), ``expected_sources`` (course-root
relative POSIX paths), ``expected_section`` (heading text or null), ``must_contain_any``,
optional ``history`` (earlier turns, for follow-ups) and ``notes``. Any class name is
accepted, so the harness runs on question files other than the shared ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import LanternError

EXPECTS = ("answer", "not-covered", "decline")
ROLES = ("user", "assistant")


class QuestionFileError(LanternError):
    """A question file is missing or has a line that does not follow the format."""


@dataclass(frozen=True)
class EvalQuestion:
    """One labelled question. ``history`` holds ``{"role", "content"}`` turns, oldest first."""

    id: str
    question: str
    question_class: str
    expect: str
    expected_sources: tuple[str, ...]
    expected_section: str | None
    must_contain_any: tuple[str, ...]
    history: tuple[dict, ...] = ()
    notes: str = ""


def load_questions(path: Path) -> list[EvalQuestion]:
    """Every question of ``path`` in file order.

    Raises :class:`QuestionFileError` naming the file and line for an unreadable file,
    invalid JSON, a missing or mistyped field, an unknown ``expect``, an ``answer``
    question without expected sources, a repeated ``id``, or a file with no questions.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"The question file {path} cannot be read ({exc.__class__.__name__}: {exc}); "
                                "give a UTF-8 JSON Lines file.") from exc
    questions: list[EvalQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise QuestionFileError(f"{where} is not valid JSON ({exc}); write one JSON object per line.") from exc
        question = parse_question(row, where)
        if question.id in seen:
            raise QuestionFileError(f"{where} repeats the id {question.id!r}; give every question its own id.")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise QuestionFileError(f"The question file {path} holds no questions; write one JSON object per line.")
    return questions


def parse_question(row: object, where: str = "question") -> EvalQuestion:  # noqa: C901
    """Validate one decoded line; ``where`` names it in errors. Raises :class:`QuestionFileError`."""
    if not isinstance(row, dict):
        raise QuestionFileError(f"{where} is a JSON {type(row).__name__}, not an object with id, question, class, expect.")

    def text(name: str) -> str:
        value = row.get(name)
        if not isinstance(value, str) or not value.strip():
            raise QuestionFileError(f"{where}: `{name}` must be a non-empty string (got {value!r}).")
        return value

    def optional_text(name: str) -> str | None:
        value = row.get(name)
        if value is not None and not isinstance(value, str):
            raise QuestionFileError(f"{where}: `{name}` must be a non-empty string (got {value!r}).")
        return value

    def strings(name: str) -> tuple[str, ...]:
        value = row.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise QuestionFileError(f"{where}: `{name}` must be a list of non-empty strings (got {value!r}).")
        return tuple(value)

    qid, question, question_class, expect = text("id"), text("question"), text("class"), text("expect")
    if expect not in EXPECTS:
        raise QuestionFileError(f"{where}: `expect` is {expect!r}; use one of {', '.join(EXPECTS)}.")
    sources = strings("expected_sources")
    if any("\\" in s or s.startswith("/") for s in sources):
        raise QuestionFileError(f"{where}: `expected_sources` must be paths relative to the corpus root "
                                f"with / separators (got {list(sources)}).")
    if expect == "answer" and not sources:
        raise QuestionFileError(f"{where}: a question that expects an answer needs at least one expected source.")
    section = optional_text("expected_section")
    history = row.get("history") or []
    if not isinstance(history, list) or not all(
            isinstance(t, dict) and t.get("role") in ROLES and isinstance(t.get("content"), str) for t in history):
        raise QuestionFileError(f"{where}: `history` must be a list of {{\"role\": \"user\"|\"assistant\", "
                                "\"content\": \"...\"} turns.")
    notes = row.get("notes") or ""
    return EvalQuestion(id=qid, question=question, question_class=question_class, expect=expect,
                        expected_sources=sources, expected_section=section or None,
                        must_contain_any=strings("must_contain_any"),
                        history=tuple({"role": t["role"], "content": t["content"]} for t in history),
                        notes=notes if isinstance(notes, str) else str(notes))
