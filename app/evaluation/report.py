"""Aggregate question results into the ``lantern eval`` report (a JSON-ready dict) and
format it as a table. The JSON shape is documented in docs/eval.md."""

from __future__ import annotations

import math
from collections import defaultdict

from ..retrieval.gate import has_strong_evidence
from . import metrics
from .runner import RANK_DEPTH, QuestionResult

HIT_KS = (1, 3, 6)
STAGES = ("embed", "semantic", "lexical", "exact", "folders", "fusion", "total")
#: Thresholds the gate sweep reports precision/recall for (cosine similarity).
SWEEP = tuple(round(0.15 + 0.025 * i, 3) for i in range(19))


def _ranking_row(items: list[tuple[list[bool], list[float], int, bool | None]]) -> dict:
    """Mean metrics over questions; each item is (relevant, gains, n_relevant, sent_hit or None)."""
    n = len(items)
    row: dict = {"n": n}
    if not n:
        return row
    for k in HIT_KS:
        row[f"hit@{k}"] = sum(metrics.hit_at_k(r, k) for r, _, _, _ in items) / n
    row[f"mrr@{RANK_DEPTH}"] = sum(metrics.reciprocal_rank(r, RANK_DEPTH) for r, _, _, _ in items) / n
    row[f"ndcg@{RANK_DEPTH}"] = sum(metrics.ndcg_at_k(g, RANK_DEPTH, m) for _, g, m, _ in items) / n
    sent = [s for _, _, _, s in items if s is not None]
    if sent:
        row["hit@sent"] = sum(sent) / len(sent)
    return row


def _relevance(result: QuestionResult, mode: str, level: str) -> tuple[list[bool], list[float], int, bool | None]:
    q, run = result.question, result.runs[mode]
    if level == "source":
        relevant = metrics.source_relevance(run.sources, q.expected_sources)
        gains = metrics.novel_source_gains(run.sources, q.expected_sources)
        n_relevant = len(set(q.expected_sources))
        sent = any(s in q.expected_sources for s, _ in result.sent)
    else:
        section = q.expected_section
        assert section is not None, "the section level grades only questions with an expected section"
        relevant = metrics.section_relevance(run.sources, run.headings, q.expected_sources, section)
        gains = [1.0 if r else 0.0 for r in relevant]
        gains = [g if not any(relevant[:i]) else 0.0 for i, g in enumerate(gains)]  # the section counts once
        n_relevant = 1
        sent = any(metrics.section_relevance([s], [h], q.expected_sources, section)[0]
                   for s, h in result.sent)
    return relevant, gains, n_relevant, (sent if mode == "hybrid" else None)


def _ranking(results: list[QuestionResult], mode: str) -> dict:
    answer = [r for r in results if r.question.expect == "answer"]
    out: dict = {}
    for level in ("source", "section"):
        chosen = [r for r in answer if level == "source" or r.question.expected_section]
        by_class: dict[str, list] = defaultdict(list)
        for r in chosen:
            by_class[r.question.question_class].append(_relevance(r, mode, level))
        out[level] = {"overall": _ranking_row([_relevance(r, mode, level) for r in chosen]),
                      "by_class": {c: _ranking_row(v) for c, v in sorted(by_class.items())}}
    return out


def _gate(results: list[QuestionResult], threshold: float | None) -> dict:
    runs = [(r, r.runs["hybrid"]) for r in results]
    by_expect: dict = {}
    for expect in ("answer", "not-covered", "decline"):
        chosen = [run for r, run in runs if r.question.expect == expect]
        by_expect[expect] = {"n": len(chosen), "declined": sum(not run.has_evidence for run in chosen)}
    by_class: dict = defaultdict(lambda: {"n": 0, "declined": 0})
    for r, run in runs:
        by_class[r.question.question_class]["n"] += 1
        by_class[r.question.question_class]["declined"] += not run.has_evidence
    scored = [(r, run) for r, run in runs if r.question.expect in ("answer", "not-covered")]
    truth = [r.question.expect == "not-covered" for r, _ in scored]
    precision, recall = metrics.precision_recall([not run.has_evidence for _, run in scored], truth)
    sweep = []
    if scored and threshold is not None and all(run.best_similarity is not None for _, run in scored):
        def gate(run, t: float) -> bool:
            # Rules that do not use the similarity threshold (a named guide with no text, lexical
            # evidence for a CJK question) show as a decision that differs from the threshold's.
            at_threshold = has_strong_evidence(run.best_similarity, run.exact_matches, len(run.unknown_names),
                                               threshold)
            if run.has_evidence != at_threshold:
                return run.has_evidence
            return has_strong_evidence(run.best_similarity, run.exact_matches, len(run.unknown_names), t)

        for t in SWEEP:
            predicted = [not gate(run, t) for _, run in scored]
            p, rc = metrics.precision_recall(predicted, truth)
            wrongly = sum(pr and not a for pr, a in zip(predicted, truth))
            sweep.append({"threshold": t, "precision": p, "recall": rc, "answerable_declined": wrongly})
    return {"threshold": threshold, "by_expect": by_expect, "by_class": dict(sorted(by_class.items())),
            "precision": precision, "recall": recall, "sweep": sweep}


def _latency(results: list[QuestionResult]) -> dict:
    out = {}
    for stage in STAGES:
        values = [r.runs["hybrid"].timings_ms[stage] for r in results if stage in r.runs["hybrid"].timings_ms]
        if values:
            out[stage] = {"p50": metrics.percentile(values, 50), "p95": metrics.percentile(values, 95), "n": len(values)}
    return out


def _per_question(result: QuestionResult) -> dict:
    q = result.question
    row = {"id": q.id, "class": q.question_class, "expect": q.expect, "guard": result.guard,
           "has_evidence": result.runs["hybrid"].has_evidence,
           "best_similarity": result.runs["hybrid"].best_similarity,
           "unknown_names": list(result.runs["hybrid"].unknown_names)}
    if q.expect == "answer":
        row["rank"] = {m: metrics.first_relevant_rank(_relevance(result, m, "source")[0]) for m in result.runs}
        if q.expected_section:
            row["section_rank"] = {m: metrics.first_relevant_rank(_relevance(result, m, "section")[0])
                                   for m in result.runs}
        row["sent"] = any(s in q.expected_sources for s, _ in result.sent)
    return row


def build_report(results: list[QuestionResult], *, bundle: str, questions: str, corpus_version: str,
                 fusion: str, degraded: tuple[str, ...], threshold: float | None) -> dict:
    """The ``lantern eval --json`` document (docs/eval.md). Rates are fractions in [0, 1]."""
    counts: dict = defaultdict(int)
    for r in results:
        counts[r.question.expect] += 1
    modes = list(results[0].runs) if results else []
    return _finite({
        "bundle": bundle, "questions": questions, "corpus_version": corpus_version, "fusion": fusion,
        "degraded": list(degraded), "rank_depth": RANK_DEPTH,
        "counts": {"total": len(results), **{e: counts[e] for e in ("answer", "not-covered", "decline")}},
        "ranking": {mode: _ranking(results, mode) for mode in modes},
        "gate": _gate(results, threshold),
        "latency_ms": _latency(results),
        "per_question": [_per_question(r) for r in results],
    })


def _finite(value):
    """The document with NaN (an undefined rate, e.g. precision with nothing declined) as None,
    so it serializes to strict JSON ``null``."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "  -  "
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def format_report(doc: dict) -> str:
    """The report as plain-text tables (what ``lantern eval`` prints without ``--json``)."""
    c = doc["counts"]
    lines = [f"Retrieval evaluation of {doc['questions']} on {doc['bundle']} (fusion {doc['fusion']}"
             + (f", {', '.join(doc['degraded'])}" if doc["degraded"] else "") + ")",
             f"{c['total']} questions: {c['answer']} expect an answer, {c['not-covered']} not-covered, "
             f"{c['decline']} decline"]
    cols = [f"hit@{k}" for k in HIT_KS] + [f"mrr@{doc['rank_depth']}", f"ndcg@{doc['rank_depth']}", "hit@sent"]
    for level, title in (("source", "expected source"), ("section", "expected section")):
        lines += ["", f"Ranking by {title} (questions expecting an answer)",
                  f"{'mode':9}{'class':17}{'n':>4}  " + "  ".join(f"{h:>8}" for h in cols)]
        for mode, data in doc["ranking"].items():
            rows = [("all", data[level]["overall"])] + list(data[level]["by_class"].items())
            for name, row in rows:
                if not row.get("n"):
                    continue
                lines.append(f"{mode:9}{name:17}{row['n']:>4}  " + "  ".join(f"{_fmt(row.get(h)):>8}" for h in cols))
    gate = doc["gate"]
    lines += ["", f"Evidence gate (threshold {_fmt(gate['threshold'])}): declined / questions"]
    for expect, row in gate["by_expect"].items():
        if row["n"]:
            lines.append(f"  expect {expect:12} {row['declined']:>3} / {row['n']}")
    lines.append(f"  precision {_fmt(gate['precision'])}, recall {_fmt(gate['recall'])} "
                 "(positive = declined; truth = expect not-covered; over answer + not-covered questions)")
    lines += ["", "Latency per stage, hybrid (ms)", f"  {'stage':10}{'p50':>8}{'p95':>8}"]
    for stage, row in doc["latency_ms"].items():
        lines.append(f"  {stage:10}{row['p50']:8.2f}{row['p95']:8.2f}")
    misses = [p["id"] for p in doc["per_question"] if p["expect"] == "answer" and not (p["rank"].get("hybrid") or 99) <= 6]
    if misses:
        lines += ["", f"Expected source not in the hybrid top 6: {', '.join(misses)}"]
    return "\n".join(lines)
