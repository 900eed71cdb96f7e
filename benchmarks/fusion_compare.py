"""Compare fusion methods (and their parameters, as RetrievalSettings overrides) with the evaluation harness.

Loads the embedder once, runs every question file's hybrid ranking per fusion setting,
and prints Hit@1 / Hit@6 / MRR@10 / nDCG@10 / Hit@sent by expected source, MRR@10 by expected
section, and MRR@10 and Hit@6 per class. Settings other than the fusion method apply to every
row (source crowding, for one, is on unless a row turns it off).
Markdown tables, ready for docs/retrieval.md.

usage: python benchmarks/fusion_compare.py BUNDLE QUESTIONS.jsonl [BUNDLE QUESTIONS.jsonl ...]
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from app.bundle.reader import BundleReader
from app.embedding import FastEmbedder
from app.evaluation.questions import load_questions
from app.evaluation.report import build_report
from app.evaluation.runner import run_questions
from app.retrieval.retriever import RetrievalSettings, Retriever


def _w(sem: float, lex: float) -> dict:
    return {"semantic_weight": sem, "lexical_weight": lex}


SETTINGS = [
    ("rrf k=60", "rrf", {}),
    ("weighted 0.7/0.3", "weighted", _w(0.7, 0.3)),
    ("weighted 0.5/0.5", "weighted", _w(0.5, 0.5)),
    ("weighted 0.3/0.7", "weighted", _w(0.3, 0.7)),
    ("additive c=10", "additive", {"additive_c": 10.0}),
    ("additive c=20", "additive", {"additive_c": 20.0}),
    ("additive c=40", "additive", {"additive_c": 40.0}),
    # Ablations of the default (weighted 0.7/0.3): adaptive lexical weight, source crowding.
    ("weighted 0.7/0.3, adaptive off", "weighted", {"adaptive_coverage": 0.0}),
    ("weighted 0.7/0.3, crowding off", "weighted", {"per_source": 0}),
    ("weighted 0.7/0.3, both off", "weighted", {"adaptive_coverage": 0.0, "per_source": 0}),
    ("weighted 0.7/0.3, 1 chunk per guide", "weighted", {"per_source": 1}),
    ("weighted 0.7/0.3, 3 chunks per guide", "weighted", {"per_source": 3}),
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
            retriever = Retriever(bundle, embedder, fusion=fusion, settings=replace(RetrievalSettings(), **overrides))
            doc = build_report(run_questions(retriever, questions, modes=("hybrid",)), bundle=bundle_path,
                               questions=questions_path, corpus_version=bundle.corpus_version,
                               fusion=fusion, degraded=(), threshold=retriever.settings.min_similarity)
            source = doc["ranking"]["hybrid"]["source"]
            classes = classes or list(source["by_class"])
            rows.append((name, source, doc["ranking"]["hybrid"]["section"]["overall"]))
        print("| fusion | all: Hit@1 | Hit@6 | MRR@10 | nDCG@10 | Hit@sent | section MRR@10 | "
              + " | ".join(f"{c} MRR / Hit@6" for c in classes) + " |")
        print("|---" * (7 + len(classes)) + "|")
        for name, source, section in rows:
            o = source["overall"]
            print(f"| {name} | {o['hit@1']:.3f} | {o['hit@6']:.3f} | {o['mrr@10']:.3f} | {o['ndcg@10']:.3f} | "
                  f"{o['hit@sent']:.3f} | {section.get('mrr@10', float('nan')):.3f} | "
                  + " | ".join(f"{source['by_class'][c]['mrr@10']:.3f} / {source['by_class'][c]['hit@6']:.2f}"
                               for c in classes) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
