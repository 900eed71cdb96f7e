"""Retrieval at scale: p50/p95 hybrid latency (query embedding included), start-up time
and peak RSS, on subsets of ../shared/corpora/large-docs of about N chunks.

For each size, whole pages (sorted by path, so the subset is deterministic) are copied into
a temporary course folder until their chunks reach N; the bundle is built once and kept in
--out-dir (never in the repository), then measured in a fresh process:

- start-up: open the bundle + lexical index ready + vectors in memory + the chunk-to-guide
  tables the first search reads (ms, and each part), with both models already loaded; the
  median (and the worst) of --startup-runs fresh processes, because a single start-up on this
  shared machine varies up to five-fold;
- latency: ``Retriever.search`` for --queries questions made from headings of the corpus
  (query embedding included; per stage p50 too), after one warm-up query;
- peak RSS of that process with the embedding model and the default chat model loaded (MB).

usage: python benchmarks/retrieval_scale.py [--sizes 1000 10000] [--queries 100] [--startup-runs 5]
                                            [--out-dir /tmp/lantern-scale] [--no-chat-model] [--refresh]
(--sizes 10000000 takes every page: the full ~108K chunks.)
Embedding runs at ~35 chunks/s on a 2-core machine: 10K chunks take ~5 minutes, the full
~100K about 50 minutes (run that once, outside CI).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LARGE = ROOT.parent / "shared" / "corpora" / "large-docs" / "msvc-cpp-docs"


def _subset(size: int, folder: Path) -> int:
    """Copy pages into ``folder`` until they hold about ``size`` chunks; returns the chunk count."""
    from app.ingest.chunker import ChunkerSettings, chunk_document
    from app.ingest.reader import read_course

    report = read_course(LARGE)
    settings, total = ChunkerSettings(), 0
    for doc in report.documents:
        if total >= size:
            break
        total += len(chunk_document(doc, settings).chunks)
        target = folder / doc.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LARGE / doc.path, target)
    return total


def _build(size: int, out_dir: Path, refresh: bool = False) -> Path:
    """The bundle of the ~``size``-chunk subset, built on first use. With ``refresh`` an existing
    bundle is rebuilt in place from its course folder, reusing every vector (minutes, not the
    hour of embedding): for a bundle written by an older Lantern (tokenizer, vector blocks)."""
    bundle = out_dir / f"large-docs-{size}.sqlite"
    course = out_dir / f"course-{size}"
    if bundle.is_file() and not (refresh and course.is_dir()):
        return bundle
    from app.bundle.builder import build_bundle
    from app.embedding import FastEmbedder

    if not bundle.is_file():
        shutil.rmtree(course, ignore_errors=True)
        chunks = _subset(size, course)
        print(f"building {bundle.name} from {chunks} chunks…", file=sys.stderr)
    else:
        print(f"refreshing {bundle.name} (vectors reused)…", file=sys.stderr)
    t0 = time.perf_counter()
    report = build_bundle(course, bundle, FastEmbedder(memory_arena=True), title=f"large-docs {size}")  # as lantern build
    print(f"  {report.chunks} chunks, {report.embedded} embedded, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return bundle


def _percentile(values: list[float], q: float) -> float:
    from app.evaluation.metrics import percentile

    return percentile(values, q)


def _peak_rss_mb() -> float:
    """Peak resident set size of this process in MB: VmHWM from /proc (Linux), which starts
    afresh at exec; ``ru_maxrss`` is carried over from the parent that forked us (here the
    3 GB building process), so it is only the fallback."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(bundle_path: Path, queries: int, chat_model: bool) -> dict:
    """Run in a fresh process: start-up, latency and peak RSS for one bundle (``queries=0``:
    start-up only)."""
    from app.bundle.reader import BundleReader
    from app.text.lexical import LexicalIndex
    from app.embedding import FastEmbedder
    from app.retrieval.retriever import Retriever

    embedder = FastEmbedder()
    if chat_model:
        from app.answer.llm import LlamaChatModel, default_model_path

        LlamaChatModel(default_model_path())
    t0 = time.perf_counter()
    bundle = BundleReader(bundle_path)
    t_open = time.perf_counter()
    LexicalIndex(bundle.lexical_files())
    t_lexical = time.perf_counter()
    bundle.vector_matrix
    t_vectors = time.perf_counter()
    bundle.chunk_sources, bundle.first_chunks  # what the first search would otherwise read
    startup = (time.perf_counter() - t0) * 1000
    parts = {"open": (t_open - t0) * 1000, "lexical": (t_lexical - t_open) * 1000,
             "vectors": (t_vectors - t_lexical) * 1000, "rows": (time.perf_counter() - t_vectors) * 1000}
    if not queries:
        return {"startup_ms": startup, "startup_parts_ms": parts}
    retriever = Retriever(bundle, embedder)
    rows = bundle._query("SELECT heading FROM chunks WHERE heading != '' ORDER BY id")
    rng = random.Random(7)
    texts = [f"How do I use {rng.choice(rows)[0].split(' › ')[-1]}?" for _ in range(queries)]
    retriever.search("warm-up query")
    totals, stages = [], {}
    for text in texts:
        t0 = time.perf_counter()
        result = retriever.search(text)
        totals.append((time.perf_counter() - t0) * 1000)
        for stage, ms in result.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    rss_mb = _peak_rss_mb()
    return {"chunks": bundle.chunk_count(), "startup_ms": startup, "startup_parts_ms": parts, "p50_ms": _percentile(totals, 50),
            "p95_ms": _percentile(totals, 95), "stages_p50_ms": {s: statistics.median(v) for s, v in stages.items()},
            "peak_rss_mb": rss_mb, "queries": len(texts)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--startup-runs", type=int, default=5, help="fresh processes timing start-up (median reported)")
    parser.add_argument("--out-dir", type=Path, default=Path("/tmp/lantern-scale"))
    parser.add_argument("--no-chat-model", action="store_true")
    parser.add_argument("--refresh", action="store_true",
                        help="rebuild existing bundles from their course folders, reusing their vectors")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.queries, not args.no_chat_model)))
        return 0
    args.out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for size in args.sizes:
        bundle = _build(size, args.out_dir, args.refresh)
        cmd = [sys.executable, __file__, "--measure", str(bundle), "--queries", str(args.queries)]
        if args.no_chat_model:
            cmd.append("--no-chat-model")
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=dict(os.environ)).stdout
        result = json.loads(out.strip().splitlines()[-1])
        startups = [result]
        for _ in range(max(0, args.startup_runs - 1)):
            only = [*cmd[:cmd.index("--queries")], "--queries", "0", *cmd[cmd.index("--queries") + 2:]]
            out = subprocess.run(only, check=True, capture_output=True, text=True, env=dict(os.environ)).stdout
            startups.append(json.loads(out.strip().splitlines()[-1]))
        result["startup_max_ms"] = max(r["startup_ms"] for r in startups)
        result["startup_ms"] = statistics.median(r["startup_ms"] for r in startups)
        result["startup_parts_ms"] = {k: statistics.median(r["startup_parts_ms"][k] for r in startups)
                                      for k in result["startup_parts_ms"]}
        result["startup_runs"] = len(startups)
        results.append(result)
    stages = sorted({s for r in results for s in r["stages_p50_ms"]})
    print("| chunks | start-up median ms (open + lexical + vectors + rows; medians) | start-up worst ms | "
          "hybrid p50 ms | hybrid p95 ms | "
          + " | ".join(f"{s} p50" for s in stages) + " | peak RSS MB |")
    print("|---" * (6 + len(stages)) + "|")
    for r in results:
        parts = " + ".join(f"{r['startup_parts_ms'][k]:.0f}" for k in ("open", "lexical", "vectors", "rows"))
        print(f"| {r['chunks']} | {r['startup_ms']:.0f} ({parts}) | {r['startup_max_ms']:.0f} "
              f"(of {r['startup_runs']}) | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} | "
              + " | ".join(f"{r['stages_p50_ms'].get(s, float('nan')):.2f}" for s in stages)
              + f" | {r['peak_rss_mb']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
