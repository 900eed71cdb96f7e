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

from app.answer.blocks import Unit, is_link_only, passage_units  # noqa: E402
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
#: ``--unit block``: the same shapes, told with a start for the question (the 0.5B writer copied the
#: chunk instructions' "what they did and what happened" as a template in a first trial of 4 questions).
BLOCK_SHAPES: dict[str, str] = {
    "how-to": "one question that starts with 'How do I' about doing what the text explains",
    "what-is": "one question that starts with 'What is' or 'What does' and is answered by the text",
    "which-one": "one question that starts with 'Which' and asks for the one thing (a pin, command, file, setting "
                 "or value) that the text names",
    "scenario": "one question in the first person that starts with 'I' and says what the student is trying to do, "
                "then asks what they should do",
    "error": "one question in the first person that starts with 'Why' or 'I get' and describes a problem or "
             "message the student sees, which the text explains",
}
HELD_OUT_MARKERS = ("heldout", "held-out", "security-101", "ml-for-beginners", "missing-semester")
MIN_CHUNK_CHARS = 250   # shorter chunks are mostly headings, link lists and lead-ins
MAX_PASSAGE_CHARS = 1200  # what the writer model reads of a chunk (~300 tokens)
MAX_NEGATIVES = 4
MIN_BLOCK_CHARS = 60     # --unit block: a target block shorter than this is a lead-in or a label
MAX_BLOCK_CHARS = 600    # what the writer model reads of a target block
SAME_CHUNK_NEGATIVES = 3  # --unit block: other blocks of the question's own chunk, not next to its block
OTHER_NEGATIVES = 4       # --unit block: blocks of other sections' top hits sharing most question words


def writer_prompt(passage: str, heading: str, shape: str) -> list[dict]:
    """Chat messages asking the writer model for one question of ``shape`` about ``passage``."""
    return [
        {"role": "system", "content": "You write exam-style questions that students ask about course material. "
                                      "Reply with the question only, one line, no answer, no quotes."},
        {"role": "user", "content": f"Section: {heading}\n\nPassage:\n{passage[:MAX_PASSAGE_CHARS]}\n\n"
                                    f"Write {SHAPES[shape]}. The question must be answerable from this passage alone, "
                                    "and must not mention 'the passage' or 'the section'."},
    ]


def block_prompt(block: str, heading: str, shape: str) -> list[dict]:
    """Chat messages asking the writer model for one question of ``shape`` that ``block`` answers."""
    return [
        {"role": "system", "content": "You write questions that students ask about course material. "
                                      "Reply with the question only, one line, no answer, no quotes."},
        {"role": "user", "content": f"Section: {heading}\n\nText:\n{block[:MAX_BLOCK_CHARS]}\n\n"
                                    f"Write {BLOCK_SHAPES[shape]}. This text must be the answer to the question, "
                                    "and the question must not mention 'the text' or 'the section'."},
    ]


def block_text(unit: Unit) -> str:
    """How the app's relevance scorer shows a block to the model (app/answer/scorers.py,
    ``best_blocks_scored``): ``heading: text``."""
    return f"{unit.heading}: {unit.match_text}"


def target_blocks(units: list[Unit]) -> list[Unit]:
    """The blocks a question may be written for: prose, a list item or a table row of at least
    MIN_BLOCK_CHARS characters, not code and not only links."""
    return [u for u in units if u.kind != "code" and not u.fence and len(u.match_text.strip()) >= MIN_BLOCK_CHARS
            and not is_link_only(u.match_text)]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]{3,}", text.lower())}


def block_negatives(question: str, target: Unit, units: list[Unit], hits, own: str) -> list[str]:
    """Hard negatives for a block question: up to SAME_CHUNK_NEGATIVES other blocks of the same chunk
    that are not next to the target (those may finish its answer), then up to OTHER_NEGATIVES blocks of
    other sections' hits, those sharing the most words with the question first."""
    same = [block_text(u) for u in units if abs(u.order - target.order) >= 2 and len(u.match_text.strip()) >= 30]
    words = _words(question)
    other: list[tuple[int, str]] = []
    for h in hits:
        if section(h.key) == own:
            continue
        for u in passage_units(h.text, h.heading):
            if len(u.match_text.strip()) >= 30:
                other.append((len(words & _words(u.match_text)), block_text(u)))
    other.sort(key=lambda x: -x[0])
    return same[:SAME_CHUNK_NEGATIVES] + [t for _, t in other[:OTHER_NEGATIVES]]


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


def write_question(writer, row, shape: str, target: Unit | None) -> str:
    """The writer model's question of ``shape`` for the chunk ``row`` (or its block ``target``); '' when
    the reply is no question."""
    prompt = (block_prompt(target.match_text, target.heading or row.heading, shape) if target is not None
              else writer_prompt(row.text, row.heading, shape))
    question = clean_question("".join(writer.stream(prompt, max_tokens=60)))
    if target is not None:
        # a first-person scenario or symptom may be a statement ("I want to ..."), as students write them
        question = (question[:question.find("?") + 1] if "?" in question
                    else question if shape in ("scenario", "error") else "")
    return question


def make_record(course: str, corpus_version: str, row, shape: str, target: Unit | None, units: list[Unit], args,
                writer, retriever: Retriever) -> dict:
    """One output record: the question, the rank of its chunk in Lantern's retrieval, whether it is
    kept, and its positive and hard negatives (chunks, or blocks when ``target`` is a block)."""
    question = write_question(writer, row, shape, target)
    record: dict = {"course": course, "corpus_version": corpus_version, "chunk_key": row.key,
                    "shape": shape, "question": question, "rank": None, "kept": False}
    if not question:
        return record
    hits = retriever.search(question, k=args.depth).hits
    keys = [h.key for h in hits]
    record["rank"] = keys.index(row.key) + 1 if row.key in keys else None
    record["kept"] = record["rank"] is not None and record["rank"] <= args.keep_rank
    own = section(row.key)
    if target is not None:
        record["positive"] = block_text(target)
        record["negatives"] = [{"chunk_key": "", "text": t} for t in block_negatives(question, target, units, hits, own)]
    else:
        record["positive"] = row.text
        record["negatives"] = [{"chunk_key": h.key, "text": h.text} for h in hits
                               if section(h.key) != own][:MAX_NEGATIVES]
    return record


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
            target: Unit | None = None
            units: list[Unit] = []
            if args.unit == "block":
                units = passage_units(row.text, row.heading)
                targets = target_blocks(units)
                target = targets[rng.randrange(len(targets))] if targets else None
                if target is None:
                    continue
            if row.key in done:
                continue
            record = make_record(name, bundle.corpus_version, row, shape, target, units if target else [], args,
                                 writer, retriever)
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
    parser.add_argument("--unit", choices=("chunk", "block"), default="chunk",
                        help="write questions for whole chunks (re-ranking) or for one block of a chunk "
                             "(choosing the answer block); block records go to OUT/blocks/")
    parser.add_argument("--keep-rank", type=int, default=3, help="keep a question when its chunk ranks this high or better")
    args = parser.parse_args(argv)
    if args.unit == "block":
        args.out = str(Path(args.out) / "blocks")
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
