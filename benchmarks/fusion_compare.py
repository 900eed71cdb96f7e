"""Compare fusion methods (and their parameters) with the evaluation harness.

Loads the embedder once, runs every question file's hybrid ranking per fusion setting,
and prints per-class Hit@1 / Hit@6 / MRR@10 (by expected source) plus gate decisions.
Markdown tables, ready for docs/retrieval.md.

usage: python benchmarks/fusion_compare.py BUNDLE QUESTIONS.jsonl [BUNDLE QUESTIONS.jsonl ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.bundle.reader import BundleReader
from app.embedding import FastEmbedder
from app.evaluation.questions import load_questions
from app.evaluation.report import build_report
from app.evaluation.runner import run_questions
from app.retrieval import retriever as r

SETTINGS = [
    ("rrf k=60", "rrf", {}),
    ("weighted 0.7/0.3", "weighted", {"WEIGHTS": {"semantic": 0.7, "lexical": 0.3, "exact": 0.2}}),
    ("weighted 0.5/0.5", "weighted", {"WEIGHTS": {"semantic": 0.5, "lexical": 0.5, "exact": 0.2}}),
    ("weighted 0.3/0.7", "weighted", {"WEIGHTS": {"semantic": 0.3, "lexical": 0.7, "exact": 0.2}}),
    ("additive c=10", "additive", {"ADDITIVE_C": 10.0}),
    ("additive c=20", "additive", {"ADDITIVE_C": 20.0}),
    ("additive c=40", "additive", {"ADDITIVE_C": 40.0}),
]


def main(argv: list[str]) -> int:
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    embedder = FastEmbedder()
    for bundle_path, questions_path in zip(argv[::2], argv[1::2]):
        bundle = BundleReader(Path(bundle_path))
        questions = load_questions(Path(questions_path))
        print(f"\n### {Path(questions_path).name}\n")
        rows, classes = [], None
        for name, fusion, overrides in SETTINGS:
            saved = {key: getattr(r, key) for key in overrides}
            for key, value in overrides.items():
                setattr(r, key, value)
            try:
                retriever = r.Retriever(bundle, embedder, fusion=fusion)
                doc = build_report(run_questions(retriever, questions, modes=("hybrid",)), bundle=bundle_path,
                                   questions=questions_path, corpus_version=bundle.corpus_version,
                                   fusion=fusion, degraded=(), threshold=r.MIN_SIMILARITY)
            finally:
                for key, value in saved.items():
                    setattr(r, key, value)
            source = doc["ranking"]["hybrid"]["source"]
            classes = classes or list(source["by_class"])
            rows.append((name, source))
        print("| fusion | all: Hit@1 | Hit@6 | MRR@10 | nDCG@10 | " + " | ".join(f"{c} MRR" for c in classes) + " |")
        print("|---" * (5 + len(classes)) + "|")
        for name, source in rows:
            o = source["overall"]
            print(f"| {name} | {o['hit@1']:.3f} | {o['hit@6']:.3f} | {o['mrr@10']:.3f} | {o['ndcg@10']:.3f} | "
                  + " | ".join(f"{source['by_class'][c]['mrr@10']:.3f}" for c in classes) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
