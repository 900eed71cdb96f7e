"""Evidence kept against time to first token, per context budget (issue 4).

For each budget: over the questions that expect an answer, Hit@sent (an expected source
among the passages sent to the model) and evidence recall (one of the question's
``must_contain_any`` phrases inside the sent text, case-insensitive); then the median
time to first token (ms) and prompt size (tokens) with the real default model on the
first ``--ttft-questions`` of them. One run prints all budgets side by side.

usage: python benchmarks/context_budget.py BUNDLE QUESTIONS.jsonl [--ttft-questions 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from app.answer.answerer import Assistant
from app.answer.budget import ContextBudget
from app.answer.llm import LlamaChatModel, default_model_path
from app.answer.prompt import build_messages
from app.bundle.reader import BundleReader
from app.embedding import FastEmbedder
from app.retrieval.retriever import Retriever

BUDGETS = [
    ContextBudget(max_passages=6, source_tokens=1200, passage_chars=1400),
    ContextBudget(max_passages=6, source_tokens=800, passage_chars=1000),
    ContextBudget(max_passages=4, source_tokens=600, passage_chars=800),
    ContextBudget(max_passages=4, source_tokens=400, passage_chars=600),
    ContextBudget(max_passages=3, source_tokens=300, passage_chars=500),
    ContextBudget(max_passages=2, source_tokens=200, passage_chars=400),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--ttft-questions", type=int, default=8)
    parser.add_argument("--budgets", nargs="*", metavar="P:T:C",
                        help="budgets as passages:source_tokens:passage_chars (default: the list in this file)")
    args = parser.parse_args()
    budgets = [ContextBudget(*(int(x) for x in b.split(":"))) for b in args.budgets] if args.budgets else BUDGETS
    llm = LlamaChatModel(default_model_path())
    retriever = Retriever(BundleReader(args.bundle), FastEmbedder())
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [q for q in rows if q["expect"] == "answer"]
    retrievals = [retriever.search(q["question"], k=10, history=q.get("history")) for q in rows]
    print(f"{len(rows)} questions expecting an answer; TTFT on the first {args.ttft_questions}")
    print(f"{'passages':>8} {'tokens':>6} {'chars':>5} | {'Hit@sent':>8} {'evidence':>8} | "
          f"{'prompt tok':>10} {'TTFT ms':>8}")
    for budget in budgets:
        assistant = Assistant(retriever, llm, budget)
        hit_sent = evidence = 0
        prompt_sizes, firsts = [], []
        for i, (q, r) in enumerate(zip(rows, retrievals)):
            passages = assistant.select_passages(r.hits, r.query)
            sent = " ".join(p.hit.text for p in passages).lower()
            hit_sent += any(p.hit.source in q["expected_sources"] for p in passages)
            evidence += any(phrase.lower() in sent for phrase in q.get("must_contain_any") or [])
            if i < args.ttft_questions:
                messages = build_messages(q["question"], passages, {}, q.get("history"))
                prompt_sizes.append(llm.prompt_tokens(messages))
                t0 = time.perf_counter()
                for _ in llm.stream(messages, 1):
                    break
                firsts.append((time.perf_counter() - t0) * 1000)
        n = len(rows)
        print(f"{budget.max_passages:>8} {budget.source_tokens:>6} {budget.passage_chars:>5} | "
              f"{hit_sent / n:>8.3f} {evidence / n:>8.3f} | {statistics.median(prompt_sizes):>10.0f} "
              f"{statistics.median(firsts):>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
