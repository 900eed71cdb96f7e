"""Time to evidence, to the first verified sentence and to the end of an answer (issue 11).

For the first ``--questions`` IoT questions that expect an answer, each chat model and each thread
count, quiet and with one competing busy process: Lantern's answerer (``timings_ms``: evidence,
first_token, first_verified, total; ms from the question's arrival) and, side by side in the same
run, the same prompts through bare llama-cpp-python (time to first token, tokens per second), so
the cost of Lantern's own work is visible. Reports medians and p95 per row, and the ratio of
Lantern's first token to bare llama.cpp's. A benchmark, not a test: nothing is asserted.

usage: python benchmarks/answer_latency.py BUNDLE QUESTIONS.jsonl [--questions 8]
           [--models SmolLM2-135M-Instruct.Q4_1.gguf qwen2.5-coder-0.5b] [--threads 0 1] [--busy]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import time
from pathlib import Path

from app.answer.answerer import Assistant
from app.answer.llm import LlamaChatModel, default_threads
from app.bundle.reader import BundleReader
from app.config import default_chat_model
from app.embedding import FastEmbedder
from app.retrieval.retriever import Retriever


def _spin(stop) -> None:  # a competing program using one core
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def _bare(llm: LlamaChatModel, messages: list[dict], max_tokens: int) -> tuple[float, float]:
    """``(time to first token ms, tokens per second)`` of bare llama-cpp-python on ``messages``
    (its own chat handler, no Lantern code; the KV cache is reset first, like a new prompt)."""
    raw = llm._llm
    raw.reset()
    t0 = time.perf_counter()
    first, n = None, 0
    for part in raw.create_chat_completion(messages=messages, stream=True, temperature=0.0, top_k=1,
                                           max_tokens=max_tokens, seed=1234):
        if part["choices"][0]["delta"].get("content"):
            n += 1
            if first is None:
                first = time.perf_counter()
    end = time.perf_counter()
    if first is None:
        return float("nan"), 0.0
    return (first - t0) * 1000, (n - 1) / (end - first) if n > 1 and end > first else 0.0


def run(bundle: Path, questions: list[dict], model: str, threads: int, busy: bool) -> dict:
    llm = LlamaChatModel(model, threads=threads)  # a GGUF path or a manifest model id
    assistant = Assistant(Retriever(BundleReader(bundle), FastEmbedder()), llm)
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True) if busy else None
    if spinner:
        spinner.start()
    rows = {"evidence": [], "first_token": [], "first_verified": [], "total": [], "bare_ttft": [], "bare_tps": []}
    answered = 0
    try:
        assistant.answer("warm-up: what is a sensor?")
        for q in questions:
            answer = assistant.answer(q["question"], q.get("history"))
            answered += answer.state == "answered"
            for k in ("evidence", "first_token", "first_verified", "total"):
                if k in answer.timings_ms:
                    rows[k].append(answer.timings_ms[k])
            retrieval = assistant.retriever.search(q["question"], k=10, history=q.get("history"))
            if retrieval.has_evidence and retrieval.hits:
                passages = assistant.select_passages(retrieval.hits, retrieval.query)
                messages, _ = assistant._fit_messages(q["question"], passages, [])
                ttft, tps = _bare(llm, messages, assistant.budget.answer_tokens)
                rows["bare_ttft"].append(ttft)
                rows["bare_tps"].append(tps)
    finally:
        if spinner:
            stop.set()
            spinner.join(5)
    return {"model": llm.name, "threads": threads or default_threads(), "busy": busy, "answered": answered,
            "n": len(questions), **{k: (statistics.median(v) if v else float("nan"), _pct(v, 95))
                                    for k, v in rows.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--questions", dest="count", type=int, default=8)
    parser.add_argument("--models", nargs="*", default=None, help="GGUF files or model ids (default: the default)")
    parser.add_argument("--threads", nargs="*", type=int, default=[os.cpu_count() or 2, max(1, (os.cpu_count() or 2) - 1)],
                        help="thread counts to compare (default: all cores, and all but one)")
    parser.add_argument("--busy", action="store_true", help="also run each row with one competing busy process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    qs = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    qs = [q for q in qs if q["expect"] == "answer"][:args.count]
    models = args.models or [str(default_chat_model())]
    results = [run(args.bundle, qs, m, t, busy) for m in models for t in args.threads
               for busy in ([False, True] if args.busy else [False])]
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"{len(qs)} questions; medians (p95) in ms from the question's arrival; bare = llama-cpp-python alone")
    print(f"{'model':42} {'thr':>3} {'load':>5} | {'evidence':>12} {'1st token':>14} {'1st verified':>14} "
          f"{'total':>14} | {'bare TTFT':>14} {'tok/s':>6} {'ratio':>5} | answered")
    for r in results:
        def cell(k):
            return f"{r[k][0]:.0f} ({r[k][1]:.0f})"
        ratio = r["first_token"][0] / r["bare_ttft"][0] if r["bare_ttft"][0] == r["bare_ttft"][0] else float("nan")
        print(f"{r['model'][:42]:42} {r['threads']:>3} {'busy' if r['busy'] else 'quiet':>5} | {cell('evidence'):>12} "
              f"{cell('first_token'):>14} {cell('first_verified'):>14} {cell('total'):>14} | "
              f"{cell('bare_ttft'):>14} {r['bare_tps'][0]:>6.1f} {ratio:>5.2f} | {r['answered']}/{r['n']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
