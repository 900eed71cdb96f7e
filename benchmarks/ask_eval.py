"""Answer every question of a question file with the real models and report, per class:
how many questions that expect an answer cite an expected source, the answer states, and
latency (time to first token and total, ms; medians and p95).

Answer-level checks (issue 4): citation validity (every citation is one of the passages
sent, and points into an expected source when the question lists any), behaviour accuracy
against ``expect`` (answer: answered or extractive citing an expected source; not-covered
and decline: not answered), the share of extractive fallbacks, and the share of answers
with a supported cited sentence (state ``answered``).

usage: python benchmarks/ask_eval.py BUNDLE QUESTIONS.jsonl [--limit N]
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
from pathlib import Path

from app.answer.answerer import Assistant
from app.answer.llm import LlamaChatModel, default_model_path
from app.bundle.reader import BundleReader
from app.embedding import FastEmbedder
from app.retrieval.retriever import Retriever


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    assistant = Assistant(Retriever(BundleReader(args.bundle), FastEmbedder()), LlamaChatModel(default_model_path()))
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.limit:
        rows = rows[:args.limit]
    per_class: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    first, total = [], []
    behaviour = collections.Counter()
    citations_total = citations_valid = 0
    for q in rows:
        answer = assistant.answer(q["question"], q.get("history"))
        counter = per_class[q["class"]]
        counter[answer.state] += 1
        if q["expect"] == "answer":
            counter["expect-answer"] += 1
            counter["cites-expected"] += any(c.hit.source in q["expected_sources"] for c in answer.citations)
        sent = {p.hit.key for p in answer.passages}
        for c in answer.citations:
            citations_total += 1
            citations_valid += c.hit.key in sent and (not q["expected_sources"] or q["expect"] != "answer"
                                                      or c.hit.source in q["expected_sources"])
        answered = answer.state in ("answered", "extractive")
        if q["expect"] == "answer":
            ok = answered and any(c.hit.source in q["expected_sources"] for c in answer.citations)
        else:
            ok = not answered
        behaviour[(q["expect"], ok)] += 1
        behaviour[answer.state] += 1
        if "first_token" in answer.timings_ms:
            first.append(answer.timings_ms["first_token"])
            total.append(answer.timings_ms["total"])
        print(f"{q['id']:12} {q['class']:15} {answer.state:20} "
              f"{answer.timings_ms.get('first_token', 0):7.0f} {answer.timings_ms['total']:7.0f}", file=sys.stderr)
    cites = sum(c["cites-expected"] for c in per_class.values())
    expect = sum(c["expect-answer"] for c in per_class.values())
    print(f"cite an expected source: {cites} of {expect} questions that expect an answer")
    for name, counter in sorted(per_class.items()):
        print(f"  {name:15} {dict(counter)}")
    for expect in ("answer", "not-covered", "decline"):
        good, bad = behaviour[(expect, True)], behaviour[(expect, False)]
        if good + bad:
            print(f"behaviour {expect:12} {good}/{good + bad} = {good / (good + bad):.2f}")
    n = len(rows)
    print(f"citation validity {citations_valid}/{citations_total}; answered (supported, cited) "
          f"{behaviour['answered']}/{n}; extractive {behaviour['extractive']}/{n}")
    if first:
        print(f"time to first token ms: median {statistics.median(first):.0f}, p95 {pct(first, 0.95):.0f}; "
              f"total ms: median {statistics.median(total):.0f}, p95 {pct(total, 0.95):.0f} (n={len(first)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
