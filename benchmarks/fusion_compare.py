"""Compare fusion methods (and their parameters, as RetrievalSettings overrides) with the evaluation harness.

Loads the embedder once, runs every question file's hybrid ranking per fusion setting,
and prints Hit@1 / Hit@6 / MRR@10 / nDCG@10 / Hit@sent by expected source, MRR@10 by expected
section, and MRR@10 and Hit@6 per class. Settings other than the fusion method apply to every
row (source crowding, for one, is on unless a row turns it off).
Markdown tables, ready for docs/retrieval.md.

The weights are those the app would use for each bundle's language: ``weighted`` fusion reads
``semantic_weight``/``lexical_weight`` for a course cut with the English stemmer and the
``other_language_*`` pair for a course cut with its own language's (French, Spanish…: issue 27;
``RetrievalSettings.leg_weights`` of the bundle's stemmer, app/retrieval/settings.py). So the
default row and the ablations use the bundle's pair (``weighted 0.7/0.3`` for English, ``weighted
0.4/0.6`` for French or Spanish) and name it, and each swept row sets both pairs, so every row
measures the weights its name says. The stemmer and the app's weights are printed above each table.

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
from app.text.lexical import bundle_stemmer
from app.text.tokenize import DEFAULT_STEMMER

#: The ``weighted`` semantic/lexical pairs every table compares (the bundle's own pair is added).
SWEEP = ((0.7, 0.3), (0.5, 0.5), (0.3, 0.7))


def _w(sem: float, lex: float) -> dict:
    """Both pairs of weights: the retriever reads one of them, by the course's stemmer."""
    return {"semantic_weight": sem, "lexical_weight": lex,
            "other_language_semantic_weight": sem, "other_language_lexical_weight": lex}


def settings_for(stemmer: str) -> list[tuple[str, str, dict]]:
    """The rows for a bundle cut with ``stemmer`` (``english``, ``french``…): ``(name, fusion,
    RetrievalSettings overrides)``; the default and the ablations use the app's weights there."""
    sem, lex = RetrievalSettings().leg_weights(stemmer)
    default = f"weighted {sem:g}/{lex:g}"
    pairs = sorted({*SWEEP, (sem, lex)}, reverse=True)
    return [("rrf k=60", "rrf", {})] + [(f"weighted {s:g}/{x:g}", "weighted", _w(s, x)) for s, x in pairs] + [
        ("additive c=10", "additive", {"additive_c": 10.0}),
        ("additive c=20", "additive", {"additive_c": 20.0}),
        ("additive c=40", "additive", {"additive_c": 40.0}),
        # Ablations of the app's default for this language: adaptive lexical weight, source crowding.
        (f"{default}, adaptive off", "weighted", {"adaptive_coverage": 0.0}),
        (f"{default}, crowding off", "weighted", {"per_source": 0}),
        (f"{default}, both off", "weighted", {"adaptive_coverage": 0.0, "per_source": 0}),
        (f"{default}, 1 chunk per guide", "weighted", {"per_source": 1}),
        (f"{default}, 3 chunks per guide", "weighted", {"per_source": 3}),
    ]


#: The rows of an English course.
SETTINGS = settings_for(DEFAULT_STEMMER)


def main(argv: list[str], embedder=None) -> int:
    """Print the tables; 2 (and the usage) for a wrong number of arguments. ``embedder``: the
    embedding model (default: the app's; tests pass a fake)."""
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    embedder = embedder or FastEmbedder()
    for bundle_path, questions_path in zip(argv[::2], argv[1::2]):
        bundle = BundleReader(Path(bundle_path))
        questions = load_questions(Path(questions_path))
        stemmer = bundle_stemmer(bundle.meta)
        sem, lex = RetrievalSettings().leg_weights(stemmer)
        print(f"\n### {Path(questions_path).name}\n")
        print(f"Words cut with the {stemmer} stemmer; the app's weighted fusion there: {sem:g} semantic, "
              f"{lex:g} lexical.\n")
        rows, classes = [], None
        for name, fusion, overrides in settings_for(stemmer):
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
