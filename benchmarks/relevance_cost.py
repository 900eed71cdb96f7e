"""What the relevance model costs where a student waits: time to evidence with and without it (issue 24).

For each answerable question of a set: Lantern's answerer without a chat model (the evidence a student
sees first: retrieval, quote choice, citations), once with the relevance model's block scorer and once
without, the two runs alternating question by question in one process so machine noise falls on both.
Reports the median and p95 of each, their ratio, the model file's size in bytes and the process's peak
RSS (both answerers loaded). A benchmark, not a test: nothing is asserted.

usage: python benchmarks/relevance_cost.py BUNDLE QUESTIONS.jsonl MODEL_DIR [--rounds 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from pathlib import Path

from app.answer.answerer import Assistant
from app.bundle.reader import BundleReader
from app.embedding import FastEmbedder
from app.retrieval.relevance import load_relevance_model
from app.retrieval.retriever import Retriever


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))] if values else float("nan")


def _evidence_ms(assistant: Assistant, question: str) -> float:
    started = time.perf_counter()
    assistant.answer(question)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("model", type=Path, help="a relevance-model folder (model.onnx, tokenizer.json, config.json)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads of the relevance model")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r["question"] for r in rows if r.get("expect") == "answer"]
    model, problem = load_relevance_model(args.model, threads=args.threads)
    if model is None:
        raise SystemExit(problem)
    bundle, embedder = BundleReader(args.bundle), FastEmbedder()
    without = Assistant(Retriever(bundle, embedder), None)
    with_model = Assistant(Retriever(bundle, embedder, relevance=model), None)
    times: dict[str, list[float]] = {"without": [], "with": []}
    for assistant in (without, with_model):
        assistant.answer("warm-up: what is this course about?")
    for _ in range(args.rounds):
        for question in questions:
            times["without"].append(_evidence_ms(without, question))
            times["with"].append(_evidence_ms(with_model, question))
    size = (args.model / "model.onnx").stat().st_size
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(questions)} answerable questions x {args.rounds} rounds, alternating; evidence in ms "
          f"(no chat model); model {size:,} bytes, {args.threads} thread(s); peak RSS {rss_mib:.0f} MiB")
    base = statistics.median(times["without"])
    for name, values in times.items():
        print(f"{name:8} median {statistics.median(values):7.1f}  p95 {_pct(values, 95):7.1f}  "
              f"ratio {statistics.median(values) / base:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
