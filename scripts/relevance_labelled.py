"""Block lists from real labelled questions, for training or checking Lantern's relevance model (issue 24).

For each answerable question of an evaluation set (tests/data/*.eval.jsonl: ``question``, ``expect``,
``must_contain_any``), Lantern's hybrid retrieval over the course's bundle gives the top ``--depth`` hits; their
blocks (app/answer/blocks.py ``passage_units``, written ``heading: text`` as the app's scorer shows them) are
split into those holding an expected phrase (the evaluation's own ``contains_phrase``) and the rest. A question
with at least one of each becomes one record in the format of scripts/relevance_data.py (``course``,
``question``, ``kept: true``, ``positive``: the first block holding the phrase, ``negatives``: up to
``--negatives`` other blocks), so scripts/train_relevance.py reads it unchanged.

Only development sets: never a held-out set (the script refuses a file whose name says it is one). A model
trained on a set's lists must be measured leave-one-course-out (``--validate real-NAME``).

usage: .venv/bin/python scripts/relevance_labelled.py --set NAME=BUNDLE.sqlite:SET.eval.jsonl ... --out DIR
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.answer.blocks import passage_units  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.embedding import FastEmbedder  # noqa: E402
from app.evaluation.answers import contains_phrase  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

#: Sets that stay held out (the Data Science, Turing Way and Web Development files keep their old
#: "heldout-" names but became development sets when they were tuned on: tests/data/*.md say so).
HELD_OUT = ("git-novice", "instructor-training", "rust-by-example", "security-101", "ml-for-beginners",
            "missing-semester")
MIN_BLOCK_CHARS = 20  # shorter blocks are labels and lead-ins


def block_lists(retriever: Retriever, rows: list[dict], course: str, depth: int, negatives: int) -> list[dict]:
    """One record per answerable question whose top ``depth`` hits hold a block with an expected phrase and
    a block without one."""
    out = []
    for q in rows:
        if q.get("expect") != "answer" or not q.get("must_contain_any"):
            continue
        holding, other = [], []
        for hit in retriever.search(q["question"], k=depth).hits:
            for unit in passage_units(hit.text, hit.heading):
                if len(unit.match_text.strip()) >= MIN_BLOCK_CHARS:
                    text = f"{unit.heading}: {unit.match_text}"
                    (holding if contains_phrase(unit.match_text, q["must_contain_any"]) else other).append(text)
        if holding and other:
            out.append({"course": course, "question": q["question"], "kept": True, "positive": holding[0],
                        "negatives": [{"text": t} for t in other[:negatives]], "source": q.get("id", "")})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", required=True, metavar="NAME=BUNDLE:SET")
    parser.add_argument("--out", required=True)
    parser.add_argument("--depth", type=int, default=5, help="hits whose blocks are listed (top-k)")
    parser.add_argument("--negatives", type=int, default=12)
    args = parser.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    embedder = FastEmbedder(threads=1)
    for spec in args.set:
        name, _, rest = spec.partition("=")
        bundle, _, questions = rest.partition(":")
        if any(m in questions.lower() for m in HELD_OUT):
            raise SystemExit(f"{questions} is a held-out set; training data never comes from one.")
        rows = [json.loads(line) for line in Path(questions).read_text(encoding="utf-8").splitlines() if line.strip()]
        records = block_lists(Retriever(BundleReader(Path(bundle)), embedder), rows, f"real-{name}", args.depth,
                              args.negatives)
        with (Path(args.out) / f"real-{name}.jsonl").open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        print(f"{name}: {len(records)} lists", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
