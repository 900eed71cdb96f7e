"""Soak run: many questions in one process, search-only, memory and time per block of questions (issue 15).

``--questions`` questions (default 1,000) are answered one after another by one ``Assistant`` without
a chat model (search-only: retrieval with the real embedding model, then the extractive answer), as
one long conversation: each question carries the last six turns before it, as the window sends them.
The questions are those of ``--questions-file`` (an eval JSONL file, with their own history where they
have one) taken in turn, and every fourth one a follow-up ("which … does it use?") of the one before;
without a file they are made from the bundle's headings. Reports the process's RSS (MB) at the start
(bundle and embedding model loaded, no question asked yet), after every ``--every`` questions and at
the end, with the median time per question (ms) of each block side by side, and the drift after
warm-up: (end - RSS after the first block) / RSS after the first block. A benchmark, not a test:
nothing is asserted. ``--chat`` loads the default chat model as well (the window's set-up: evidence,
then the model's checked sentences), about 6 s a question on two cores, so 200 questions take 20
minutes; the states column then counts ``answered`` replies too.

usage: python benchmarks/soak.py BUNDLE [--questions 1000] [--every 100] [--questions-file Q.jsonl] [--threads N]
                                 [--chat] [--json]
e.g.   PYTHONPATH=. .venv/bin/python benchmarks/soak.py /work/bundles/iot.sqlite \\
           --questions-file ../shared/corpora/iot-for-beginners.eval.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from fuzz import peak_rss_mb, rss_mb  # noqa: E402

from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

FOLLOW_UPS = ["Which pins does it use?", "And what about the wiring for that?", "How do I test it?",
              "What can go wrong with it?"]


def base_questions(bundle: BundleReader, questions_file: Path | None) -> list[tuple[str, list[dict]]]:
    """``(question, its own history)`` pairs: the file's questions, else one per heading of the bundle."""
    if questions_file is not None:
        rows = [json.loads(line) for line in questions_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [(r["question"], r.get("history") or []) for r in rows]
    out = []
    for source in bundle.sources():
        for heading in bundle.headings(source.path):
            out.append((f"What does the guide say about {heading.text}?", []))
    return out or [("What is this course about?", [])]


def run(bundle_path: Path, questions: int, every: int, questions_file: Path | None = None, embedder=None,
        threads: int | None = None, chat: bool = False) -> dict:
    """The soak run (see the module docstring); ``embedder`` defaults to the real one (fastembed);
    ``chat`` loads the default chat model too (the settings' threads)."""
    if embedder is None:
        from app.embedding import FastEmbedder

        embedder = FastEmbedder(threads=threads)
    bundle = BundleReader(bundle_path)
    if chat:
        from app.assistant import LOAD, build_assistant

        assistant = build_assistant(bundle, embedder=embedder, chat_model=LOAD)
    else:
        assistant = Assistant(Retriever(bundle, embedder), None)
    pool = base_questions(bundle, questions_file)
    marks = [{"after": 0, "rss_mb": rss_mb(), "ms_p50": None, "states": {}}]
    conversation: list[dict] = []
    block_ms: list[float] = []
    states: dict[str, int] = {}
    t_run = time.perf_counter()
    for i in range(questions):
        if i % 4 == 3:
            question, own = FOLLOW_UPS[(i // 4) % len(FOLLOW_UPS)], []
        else:
            question, own = pool[(i - i // 4) % len(pool)]
        history = (own or conversation)[-6:]
        t0 = time.perf_counter()
        answer = assistant.answer(question, history)
        block_ms.append((time.perf_counter() - t0) * 1000)
        states[answer.state] = states.get(answer.state, 0) + 1
        conversation += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text[:1000]}]
        conversation = conversation[-6:]
        if (i + 1) % every == 0 or i + 1 == questions:
            marks.append({"after": i + 1, "rss_mb": rss_mb(), "ms_p50": statistics.median(block_ms), "states": states})
            block_ms, states = [], {}
    elapsed = time.perf_counter() - t_run
    bundle.close()
    warm = marks[1]["rss_mb"] if len(marks) > 2 else marks[0]["rss_mb"]
    return {"bundle": str(bundle_path), "questions": questions, "chat": chat, "seconds": elapsed, "marks": marks,
            "rss_mb_start": marks[0]["rss_mb"], "rss_mb_end": marks[-1]["rss_mb"], "rss_mb_peak": peak_rss_mb(),
            "drift_after_warmup": (marks[-1]["rss_mb"] - warm) / warm}


def main(argv: list[str] | None = None, embedder=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", type=Path, help="course bundle (.sqlite) built with the real embedding model")
    parser.add_argument("--questions", type=int, default=1000, help="questions to answer (default 1,000)")
    parser.add_argument("--every", type=int, default=100, help="questions between RSS readings (default 100)")
    parser.add_argument("--questions-file", type=Path, help="eval JSONL file whose questions are asked in turn")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for the embedding model (default: onnxruntime's, as in the app)")
    parser.add_argument("--chat", action="store_true", help="load the default chat model too (about 6 s a question)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args(argv)
    r = run(args.bundle, args.questions, max(1, args.every), args.questions_file, embedder, args.threads, args.chat)
    if args.json:
        print(json.dumps(r, ensure_ascii=False))
        return 0
    mode = "with the chat model" if r["chat"] else "search-only"
    print(f"{r['questions']} questions {mode} on {r['bundle']} in {r['seconds']:.0f} s")
    print(f"{'after':>6} | {'RSS MB':>7} | {'ms/question p50':>15} | states")
    for m in r["marks"]:
        ms = f"{m['ms_p50']:.0f}" if m["ms_p50"] is not None else "-"
        states = ", ".join(f"{k} {n}" for k, n in sorted(m["states"].items()))
        print(f"{m['after']:>6} | {m['rss_mb']:>7.0f} | {ms:>15} | {states}")
    print(f"RSS MB: start {r['rss_mb_start']:.0f}, end {r['rss_mb_end']:.0f}, peak {r['rss_mb_peak']:.0f}; "
          f"drift after warm-up (end vs after the first {args.every}): {100 * r['drift_after_warmup']:+.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
