"""Answer-level checks: run questions through the whole answerer and grade its behaviour.

For each question the answer's ``state`` is compared with the question's ``expect``:
- ``answer``: correct when the state is ``answered`` or ``extractive`` and a citation
  points into one of ``expected_sources``;
- ``not-covered`` and ``decline``: correct when the question is *not answered* (state
  ``not-covered`` or ``declined-*``). The two are counted separately.
Citation validity: every citation is one of the passages sent (same chunk key) and, for
questions expecting an answer, points into an expected source. Expected phrases: for
questions expecting an answer that list ``must_contain_any``, how often the answer text, and
the passages sent, contain one of those phrases (:func:`contains_phrase`); the passages are
the ceiling for what an extractive answer can quote. Also reported: the share
of answers in each state, the share of extractive fallbacks, and time to first token and
total time (ms, p50/p95) where the model ran.
"""

from __future__ import annotations

import collections
import re
from typing import Callable, Iterable

from ..answer.answerer import Assistant
from ..errors import LanternError
from ..text.grammar import CITATION_MARKER, MARKDOWN_LINK
from .metrics import percentile
from .questions import EvalQuestion

ANSWERED = ("answered", "extractive")
#: The stages of ``Answer.timings_ms`` reported as p50/p95 (ms from the question's arrival).
STAGES = ("retrieval", "evidence", "first_token", "first_verified", "total")


def _plain(text: str) -> str:
    """Lower-cased text with Markdown links reduced to their words, citation marks, backticks,
    ``*`` and ``_`` removed, and runs of whitespace made one space."""
    text = CITATION_MARKER.sub(" ", MARKDOWN_LINK.sub(r"\1", text))
    return " ".join(re.sub(r"[`*_]", "", text).lower().split())


def contains_phrase(text: str, phrases) -> bool | None:
    """Whether ``text`` contains one of ``phrases`` (compared as :func:`_plain` text, so
    ``**free tier**`` contains "free tier"); None when there are no phrases."""
    phrases = [p for p in (_plain(p) for p in phrases) if p]
    if not phrases:
        return None
    plain = _plain(text)
    return any(p in plain for p in phrases)


def grade(question: EvalQuestion, answer) -> dict:
    """One question's outcome as a JSON-ready dict (``correct`` is the behaviour check)."""
    sent = {p.hit.key for p in answer.passages}
    cited_sources = [c.hit.source for c in answer.citations]
    resolved = [c.hit.key in sent for c in answer.citations]
    valid = [r and (question.expect != "answer" or c.hit.source in question.expected_sources)
             for r, c in zip(resolved, answer.citations)]
    answered = answer.state in ANSWERED
    phrases = question.must_contain_any if question.expect == "answer" else ()
    in_answer = contains_phrase(answer.text, phrases) if answered else (False if phrases else None)
    in_passages = contains_phrase("\n".join(p.hit.text for p in answer.passages), phrases)
    if question.expect == "answer":
        correct = answered and any(s in question.expected_sources for s in cited_sources)
    else:
        correct = not answered
    return {"id": question.id, "class": question.question_class, "expect": question.expect,
            "state": answer.state, "correct": correct, "citations": len(valid), "resolved_citations": sum(resolved),
            "valid_citations": sum(valid), "phrase_in_answer": in_answer, "phrase_in_passages": in_passages,
            "cited_sources": cited_sources, "first_token_ms": answer.timings_ms.get("first_token"),
            "total_ms": answer.timings_ms.get("total"),
            "timings_ms": {k: answer.timings_ms[k] for k in STAGES if k in answer.timings_ms},
            "checks": dict(answer.checks), "answer": answer.text}


def run_answers(assistant: Assistant, questions: Iterable[EvalQuestion],
                progress: Callable[[int, int], None] | None = None) -> dict:
    """Answer every question and summarise; a question the answerer refuses as bad input
    (a :class:`LanternError`) counts as state ``error``."""
    questions = list(questions)
    rows = []
    for i, q in enumerate(questions, 1):
        try:
            answer = assistant.answer(q.question, list(q.history))
            rows.append(grade(q, answer))
        except LanternError as exc:
            rows.append({"id": q.id, "class": q.question_class, "expect": q.expect, "state": "error",
                         "correct": q.expect != "answer", "citations": 0, "resolved_citations": 0, "valid_citations": 0,
                         "phrase_in_answer": False if q.expect == "answer" and q.must_contain_any else None,
                         "phrase_in_passages": False if q.expect == "answer" and q.must_contain_any else None,
                         "cited_sources": [], "first_token_ms": None, "total_ms": None, "error": str(exc)})
        if progress:
            progress(i, len(questions))
    behaviour = {}
    for expect in ("answer", "not-covered", "decline"):
        subset = [r for r in rows if r["expect"] == expect]
        if subset:
            behaviour[expect] = {"n": len(subset), "correct": sum(r["correct"] for r in subset),
                                 "rate": sum(r["correct"] for r in subset) / len(subset)}
    states = collections.Counter(r["state"] for r in rows)
    firsts = [r["first_token_ms"] for r in rows if r["first_token_ms"] is not None]
    totals = [r["total_ms"] for r in rows if r["first_token_ms"] is not None]
    n_cit = sum(r["citations"] for r in rows)
    phrased = [r for r in rows if r["phrase_in_answer"] is not None]
    return {
        "model": assistant.model_name, "degraded": list(assistant.degraded), "n": len(rows),
        "behaviour": behaviour,
        "citation_validity": {"citations": n_cit, "resolved": sum(r["resolved_citations"] for r in rows),
                              "valid": sum(r["valid_citations"] for r in rows),
                              "rate": (sum(r["valid_citations"] for r in rows) / n_cit) if n_cit else None},
        "expected_phrase": {"n": len(phrased), "in_answer": sum(bool(r["phrase_in_answer"]) for r in phrased),
                            "in_passages": sum(bool(r["phrase_in_passages"]) for r in phrased)},
        "states": dict(states),
        "answered_supported_rate": states.get("answered", 0) / len(rows) if rows else None,
        "extractive_rate": states.get("extractive", 0) / len(rows) if rows else None,
        "latency_ms": {"first_token": {"p50": _pct(firsts, 50), "p95": _pct(firsts, 95)},
                       "total": {"p50": _pct(totals, 50), "p95": _pct(totals, 95)}, "n": len(firsts)},
        "stages_ms": {stage: {"p50": _pct(v, 50), "p95": _pct(v, 95), "n": len(v)}
                      for stage in STAGES
                      for v in [[r["timings_ms"][stage] for r in rows if stage in r.get("timings_ms", {})]] if v},
        "model_sentences": dict(sum((collections.Counter(r.get("checks", {})) for r in rows), collections.Counter())),
        "questions": rows,
    }


def _pct(values: list[float], q: float) -> float | None:
    return percentile(values, q) if values else None


def format_answers(doc: dict) -> str:
    """Plain-text summary of :func:`run_answers`."""
    lines = [f"Answer-level checks: {doc['n']} questions, model {doc['model'] or '(none)'}"
             + (f" [{', '.join(doc['degraded'])}]" if doc["degraded"] else "")]
    for expect, row in doc["behaviour"].items():
        verb = "answered citing an expected source" if expect == "answer" else "not answered"
        lines.append(f"  expect {expect:12} {row['correct']:3}/{row['n']:<3} {row['rate']:.2f}  ({verb})")
    cv = doc["citation_validity"]
    rate = f"{cv['rate']:.2f}" if cv["rate"] is not None else "-"
    lines.append(f"  citation validity     {cv['valid']}/{cv['citations']} {rate} "
                 f"(resolve to a sent passage: {cv['resolved']}/{cv['citations']})")
    ep = doc.get("expected_phrase") or {"n": 0}
    if ep["n"]:
        lines.append(f"  expected phrase       in the answer {ep['in_answer']}/{ep['n']}, in the passages sent "
                     f"{ep['in_passages']}/{ep['n']} (questions expecting an answer that list must_contain_any)")
    lines.append(f"  states                {doc['states']}")
    stages = doc.get("stages_ms") or {}
    if stages:
        lines.append("  time from the question (ms)  " + "; ".join(
            f"{k} p50 {v['p50']:.0f} p95 {v['p95']:.0f} (n={v['n']})" for k, v in stages.items()))
    if doc.get("model_sentences"):
        lines.append(f"  model sentences       {doc['model_sentences']} (read, shown, and dropped by each check)")
    lat = doc["latency_ms"]
    if lat["n"]:
        lines.append(f"  time to first token   p50 {lat['first_token']['p50']:.0f} ms, p95 {lat['first_token']['p95']:.0f} ms; "
                     f"total p50 {lat['total']['p50']:.0f} ms, p95 {lat['total']['p95']:.0f} ms (n={lat['n']})")
    return "\n".join(lines)
