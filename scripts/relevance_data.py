"""Training data for Lantern's relevance model (issue 24): synthetic student questions for real
course chunks, kept only when Lantern's own retrieval finds their chunk, with hard negatives.

The recipe is doc2query as in InPars (Bonifacio et al., 2022) and Promptagator (Dai et al., 2022):
a small instruct model writes a question for a passage; a consistency filter (Doc2Query--,
Gospodinov et al., 2023; Promptagator's round-trip filter) keeps a question only when the passage
it was written for ranks in the top ``--keep-rank`` of Lantern's hybrid retrieval for it; hard
negatives are the chunks that retrieval ranks highest for the question from *other sections* of
the same course (so they share words and topic but are not the passage the question came from).

The question writer is the pinned chat model (Qwen2.5-Coder-0.5B-Instruct, models/manifest.json),
run at temperature 0 so a rerun gives the same questions. Each chunk is given one question shape,
drawn with the seed from :data:`SHAPES` (how-to, what-is, which-one, scenario, error message):
the shapes students ask in, per the labelled sets in tests/data.

Never run it on a held-out course (tests/data/heldout-*, Security-101, ML-For-Beginners, The Missing
Semester): the script refuses a folder whose name says it is one.

Output: one JSON object a line in ``OUT/<course>.jsonl`` (appended as it goes, so an interrupted
run resumes where it stopped): ``course``, ``corpus_version``, ``chunk_key``, ``shape``,
``question``, ``rank`` (1-based rank of the source chunk for the question, or null: filtered out),
``kept``, ``positive`` (the chunk's indexed text), ``negatives`` (list of {chunk_key, text}).

usage: .venv/bin/python scripts/relevance_data.py --course iot=../shared/corpora/iot-for-beginners \
           --out training/relevance/data --per-course 400 [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.bundle.builder import build_bundle  # noqa: E402
from app.bundle.reader import BundleReader  # noqa: E402
from app.embedding import FastEmbedder  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402

#: Question shapes and the instruction that asks for each. A shape's text is what the writer model
#: is told; the examples are our own, written for no particular course.
SHAPES: dict[str, str] = {
    "how-to": "a 'How do I ...?' question a student asks when they want to do what the passage explains",
    "what-is": "a 'What is ...?' or 'What does ... mean?' question whose answer is in the passage",
    "which-one": "a 'Which ...?' question about one specific choice the passage names (for example which pin, "
                 "command, file or setting to use)",
    "scenario": "a question describing the student's own situation in one sentence (what they did and what happened), "
                "then asking what to do; do not copy the passage's words",
    "error": "a question quoting a short error message or symptom the student sees, asking why it happens or how to fix it",
}
HELD_OUT_MARKERS = ("heldout", "held-out", "security-101", "ml-for-beginners", "missing-semester")
MIN_CHUNK_CHARS = 250   # shorter chunks are mostly headings, link lists and lead-ins
MAX_PASSAGE_CHARS = 1200  # what the writer model reads of a chunk (~300 tokens)
MAX_NEGATIVES = 4


def writer_prompt(passage: str, heading: str, shape: str) -> list[dict]:
    """Chat messages asking the writer model for one question of ``shape`` about ``passage``."""
    return [
        {"role": "system", "content": "You write exam-style questions that students ask about course material. "
                                      "Reply with the question only, one line, no answer, no quotes."},
        {"role": "user", "content": f"Section: {heading}\n\nPassage:\n{passage[:MAX_PASSAGE_CHARS]}\n\n"
                                    f"Write {SHAPES[shape]}. The question must be answerable from this passage alone, "
                                    "and must not mention 'the passage' or 'the section'."},
    ]


def clean_question(text: str) -> str:
    """The first line of the model's reply, without quotes and list markers; '' when it is no question."""
    line = next((x.strip() for x in text.strip().splitlines() if x.strip()), "")
    line = re.sub(r"^(question\s*:|q\s*:|\d+[.)]|[-*])\s*", "", line, flags=re.I).strip().strip('"“”\'')
    if len(line) < 12 or len(line) > 400 or "passage" in line.lower():
        return ""
    return line


def ensure_bundle(name: str, folder: Path, cache: Path, embedder: FastEmbedder) -> Path:
    """The course's bundle in ``cache`` (built once; a rebuild reuses unchanged vectors)."""
    out = cache / f"{name}.sqlite"
    if not out.exists():
        print(f"building {name} from {folder}", file=sys.stderr)
        build_bundle(folder, out, embedder, title=name, course_id=name)
    return out


def candidate_chunks(bundle: BundleReader, rng: random.Random, n: int) -> list[int]:
    """Up to ``n`` chunk ids with at least MIN_CHUNK_CHARS characters, in a seeded order."""
    ids = list(range(1, bundle.chunk_count() + 1))
    rng.shuffle(ids)
    picked: list[int] = []
    for begin in range(0, len(ids), 200):
        rows = bundle.chunks(ids[begin:begin + 200])
        for cid in ids[begin:begin + 200]:
            row = rows.get(cid)
            if row is not None and len(row.text.strip()) >= MIN_CHUNK_CHARS and row.text.count("](") < 8:
                picked.append(cid)
        if len(picked) >= n:
            break
    return picked[:n]


def section(key: str) -> str:
    """``source#anchor`` of a chunk key (the section, without the ordinal)."""
    return key.rsplit(":", 1)[0]


def run_course(name: str, folder: Path, args, embedder: FastEmbedder, writer) -> None:
    if any(m in str(folder).lower() or m in name.lower() for m in HELD_OUT_MARKERS):
        raise SystemExit(f"{folder} looks like a held-out course; training data never comes from one.")
    bundle_path = ensure_bundle(name, folder, Path(args.cache), embedder)
    bundle = BundleReader(bundle_path)
    retriever = Retriever(bundle, embedder)
    out_path = Path(args.out) / f"{name}.jsonl"
    done: set[str] = set()
    if out_path.exists():
        done = {json.loads(line)["chunk_key"] for line in out_path.read_text(encoding="utf-8").splitlines() if line}
    rng = random.Random(f"{args.seed}:{name}")
    chunk_ids = candidate_chunks(bundle, rng, args.per_course)
    shapes = list(SHAPES)
    rows = bundle.chunks(chunk_ids)
    started, written = time.time(), 0
    with out_path.open("a", encoding="utf-8") as out:
        for i, cid in enumerate(chunk_ids):
            row = rows[cid]
            shape = shapes[rng.randrange(len(shapes))]
            if row.key in done:
                continue
            reply = "".join(writer.stream(writer_prompt(row.text, row.heading, shape), max_tokens=60))
            question = clean_question(reply)
            record: dict = {"course": name, "corpus_version": bundle.corpus_version, "chunk_key": row.key,
                            "shape": shape, "question": question, "rank": None, "kept": False}
            if question:
                hits = retriever.search(question, k=args.depth).hits
                keys = [h.key for h in hits]
                record["rank"] = keys.index(row.key) + 1 if row.key in keys else None
                record["kept"] = record["rank"] is not None and record["rank"] <= args.keep_rank
                own = section(row.key)
                record["positive"] = row.text
                record["negatives"] = [{"chunk_key": h.key, "text": h.text} for h in hits
                                       if section(h.key) != own][:MAX_NEGATIVES]
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            written += 1
            if written % 10 == 0:
                rate = (time.time() - started) / written
                print(f"{name}: {i + 1}/{len(chunk_ids)} ({rate:.1f} s a question)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", action="append", required=True, metavar="NAME=DIR")
    parser.add_argument("--out", default=str(ROOT / "training" / "relevance" / "data"))
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "lantern" / "relevance-bundles"))
    parser.add_argument("--per-course", type=int, default=400)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2, help="CPU threads of the writer model")
    parser.add_argument("--depth", type=int, default=10, help="hits searched per question (top-k)")
    parser.add_argument("--keep-rank", type=int, default=3, help="keep a question when its chunk ranks this high or better")
    args = parser.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    Path(args.cache).mkdir(parents=True, exist_ok=True)
    from app.answer.llm import LlamaChatModel
    from app.config import default_chat_model

    embedder = FastEmbedder(threads=1)
    writer = LlamaChatModel(default_chat_model(), n_ctx=2048, threads=args.threads)
    for spec in args.course:
        name, _, folder = spec.partition("=")
        run_course(name, Path(folder), args, embedder, writer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
