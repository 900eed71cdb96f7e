"""Fuzz run of the core with the real embedding model: outcomes per entry point, exceptions, memory (issue 15).

N questions (default 10,000), generated from a fixed seed, go through ``Retriever.search`` (hybrid,
with a generated history for about a third of them), ``Assistant.answer`` search-only (no chat
model: the extractive answer) and ``BundleReader.search_guides``, all in one process. Questions are
drawn from six kinds: hostile strings (lone surrogates, NUL, control characters, 200 KB lines, one
word repeated, emoji, right-to-left text, punctuation only, a number, time, version or path alone),
random code points from every plane, words of the bundle's headings, those words with hostile
characters spliced in, long lines (2,000 to 200,000 characters), and questions referring back to a
generated history. Reports the count of each outcome per entry point (answer states, the documented
``QuestionError`` for an empty or over-long question, guide-search hits or none), every unexpected
exception by type with the first examples, the median and p95 time per question (ms), and the
process's RSS (MB) after loading and a warm-up, at the end, and at its peak. A benchmark, not a test:
nothing is asserted; the exit code is 1 when an unexpected exception occurred.

usage: python benchmarks/fuzz.py BUNDLE [--questions 10000] [--seed 15] [--threads N] [--json]
e.g.   PYTHONPATH=. .venv/bin/python benchmarks/fuzz.py /work/bundles/iot.sqlite --questions 2000
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import resource
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.answer.answerer import Assistant  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.errors import QuestionError  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

HOSTILE = [
    "caf\udce9", "caf\udcc3\udca9 display", "\ud800", "\udfff sensor", "\ud83d\ude00", "a\x00b", "\x00" * 10,
    "\x01\x02\x03\x1b[2J\x7f", "\r\n\r\n\t", "a" * 200_000, "sensor " * 30_000, "sensor " * 280, "the " * 499,
    "🔥💡🤖", "👩‍👩‍👧‍👦" * 40, "ما هو المستشعر؟", "\u202etxet\u202c", "מה זה חיישן?", "?!?...;;;", "\"", "'", "*",
    "```", "()", "^", "-", "NEAR(a b)", "AND OR NOT", 'sensor* OR "', "{col}: x", "42", "0x3C", "17:00",
    "v1.2.3", "3.3V", "C:\\Users\\student\\lab.ino", "/dev/ttyUSB0", "../../etc/passwd", "https://example.org/?a=b",
    "\u200b", "\ufeff", "e\u0301" * 500, "的" * 2000, "\u00a0", " ", "",
]
SPLICE = ["\x00", "\udce9", "\ud800", "\x1b", "\u202e", "\u200b", "🔥", "\"", "*", "(", ")", ":", "^", "-", "'",
          "\\", "`", "[1]", "<source>", "NEAR", "OR", "\t", "\n"]
KINDS = ("hostile", "random", "words", "spliced", "long", "follow-up")


def rss_mb() -> float:
    """Resident set size of this process now (MB), from /proc; the peak where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mb()


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def vocabulary(bundle: BundleReader) -> list[str]:
    """Words of the bundle's guide titles and headings (the words students ask with)."""
    words: set[str] = set()
    for source in bundle.sources():
        words.update(source.title.split())
        for heading in bundle.headings(source.path):
            words.update(heading.text.split())
    return sorted(w for w in words if w) or ["sensor"]


def _random_text(rng: random.Random, size: int) -> str:
    out = []
    for _ in range(size):
        plane = rng.random()
        if plane < 0.4:
            out.append(chr(rng.randrange(0x20, 0x7F)))
        elif plane < 0.5:
            out.append(chr(rng.randrange(0, 0x20)))
        elif plane < 0.6:
            out.append(chr(rng.randrange(0xD800, 0xE000)))  # lone surrogates
        elif plane < 0.9:
            out.append(chr(rng.randrange(0x80, 0x10000)))
        else:
            out.append(chr(rng.randrange(0x10000, 0x110000)))
    return "".join(out)


def make_question(rng: random.Random, words: list[str], earlier: list[str]) -> tuple[str, str, list[dict] | None]:
    """``(kind, question, history)``: one generated question of a random kind (see the docstring)."""
    kind = rng.choice(KINDS)
    history = None
    if kind == "hostile":
        question = rng.choice(HOSTILE)
    elif kind == "random":
        question = _random_text(rng, rng.randrange(1, 80))
    elif kind == "words":
        question = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 16)))
        question = rng.choice(["", "How do I ", "What is ", "Why does ", "Which "]) + question + rng.choice(["", "?", "!"])
    elif kind == "spliced":
        parts = [rng.choice(words) for _ in range(rng.randrange(1, 12))]
        for _ in range(rng.randrange(1, 6)):
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(SPLICE))
        question = rng.choice(["", " "]).join(parts)
    elif kind == "long":
        unit = rng.choice(words + ["x", "\u0301", "的", "🔥"])
        question = (unit + rng.choice(["", " "])) * max(1, rng.randrange(2_000, 200_000) // (len(unit) + 1))
    else:
        question = rng.choice(["And what about it?", "Which pins does it use?", "what about that one",
                               "How do I fix it?", "and those?"])
    if kind == "follow-up" or rng.random() < 0.3:
        turns = []
        for _ in range(rng.randrange(1, 7)):
            content = rng.choice(earlier) if earlier and rng.random() < 0.7 else _random_text(rng, rng.randrange(0, 40))
            turns.append({"role": rng.choice(["user", "assistant", "user", "system", "tool"]), "content": content[:5000]})
        history = turns
    return kind, question, history


def run(bundle_path: Path, questions: int, seed: int, embedder=None,
        threads: int | None = None) -> dict:
    """The fuzz run (see the module docstring); ``embedder`` defaults to the real one (fastembed)."""
    if embedder is None:
        from app.embedding import FastEmbedder

        embedder = FastEmbedder(threads=threads)
    bundle = BundleReader(bundle_path)
    retriever = Retriever(bundle, embedder)
    assistant = Assistant(retriever, None)
    rng = random.Random(seed)
    words = vocabulary(bundle)
    assistant.answer("What is a sensor?")  # warm-up: the lexical index, vectors, the model's first call
    rss_start = rss_mb()
    outcomes = {"search": collections.Counter(), "answer": collections.Counter(), "guides": collections.Counter()}
    kinds: collections.Counter = collections.Counter()
    unexpected: list[dict] = []
    times: list[float] = []
    earlier: list[str] = []
    t_run = time.perf_counter()
    for i in range(questions):
        kind, question, history = make_question(rng, words, earlier)
        kinds[kind] += 1
        t0 = time.perf_counter()
        for stage, call in (("search", lambda: retriever.search(question, k=10, history=history)),
                            ("answer", lambda: assistant.answer(question, history)),
                            ("guides", lambda: bundle.search_guides(question))):
            try:
                result = call()
            except QuestionError:
                outcomes[stage]["QuestionError"] += 1
                continue
            except Exception as exc:  # what the benchmark is looking for
                outcomes[stage][f"unexpected {type(exc).__name__}"] += 1
                if len(unexpected) < 20:
                    unexpected.append({"stage": stage, "kind": kind, "question": repr(question[:120]),
                                       "error": f"{type(exc).__name__}: {exc}"[:300],
                                       "where": traceback.format_exc().strip().splitlines()[-3].strip()})
                continue
            if stage == "search":
                outcomes[stage]["evidence" if result.has_evidence else "no evidence"] += 1
            elif stage == "answer":
                outcomes[stage][result.state] += 1
            else:
                outcomes[stage]["matches" if result else "none"] += 1
        times.append((time.perf_counter() - t0) * 1000)
        if (i + 1) % 500 == 0:
            print(f"{i + 1} questions, {time.perf_counter() - t_run:.0f} s, RSS {rss_mb():.0f} MB", file=sys.stderr, flush=True)
        if kind in ("words", "spliced") and len(question) < 300:
            earlier.append(question)
    elapsed = time.perf_counter() - t_run
    bundle.close()
    times.sort()
    return {"bundle": str(bundle_path), "questions": questions, "seed": seed, "kinds": dict(kinds),
            "outcomes": {k: dict(v) for k, v in outcomes.items()},
            "unexpected": sum(n for c in outcomes.values() for k, n in c.items() if k.startswith("unexpected")),
            "examples": unexpected, "ms_per_question_p50": statistics.median(times) if times else 0.0,
            "ms_per_question_p95": times[int(0.95 * (len(times) - 1))] if times else 0.0, "seconds": elapsed,
            "rss_mb_start": rss_start, "rss_mb_end": rss_mb(), "rss_mb_peak": peak_rss_mb()}


def main(argv: list[str] | None = None, embedder=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", type=Path, help="course bundle (.sqlite) built with the real embedding model")
    parser.add_argument("--questions", type=int, default=10_000, help="questions to generate (default 10,000)")
    parser.add_argument("--seed", type=int, default=15, help="random seed; the same seed gives the same questions")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for the embedding model (default: onnxruntime's, as in the app)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args(argv)
    r = run(args.bundle, args.questions, args.seed, embedder, args.threads)
    if args.json:
        print(json.dumps(r, ensure_ascii=False))
        return 1 if r["unexpected"] else 0
    print(f"{r['questions']} questions (seed {r['seed']}) on {r['bundle']} in {r['seconds']:.0f} s; "
          f"kinds: {', '.join(f'{k} {n}' for k, n in sorted(r['kinds'].items()))}")
    print(f"{'entry point':12} | outcomes")
    for stage, counts in r["outcomes"].items():
        print(f"{stage:12} | " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1])))
    print(f"unexpected exceptions: {r['unexpected']}")
    for e in r["examples"]:
        print(f"  {e['stage']} ({e['kind']}): {e['error']} at {e['where']} for {e['question']}")
    print(f"ms per question (search + answer + guide search): p50 {r['ms_per_question_p50']:.0f}, "
          f"p95 {r['ms_per_question_p95']:.0f}")
    print(f"RSS MB: start {r['rss_mb_start']:.0f} (after loading and one warm-up question), end {r['rss_mb_end']:.0f}, "
          f"peak {r['rss_mb_peak']:.0f}; end/start {r['rss_mb_end'] / r['rss_mb_start']:.3f}")
    return 1 if r["unexpected"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
