"""The evidence gate's similarity floor, calibrated on the course itself at build time.

A fixed cosine floor does not transfer between courses: how similar an unrelated question looks
to *some* chunk grows with the course's size and breadth (the median best cosine of the
off-topic probes below is 0.14 on the 99-chunk demo course and 0.22 on the 1,881-chunk IoT
course, MiniLM-L6). The builder therefore measures, with the bundle's own vectors:

- the **negative side**: the best cosine, over all chunks, of each of :data:`OFF_TOPIC_PROBES`
  (questions no course guide of ours answers: cooking, sport, history, gardening…);
- the **positive side**: the best cosine of the course's own section headings (two words or
  more) used as questions, the lowest a real question about a section can expect.

The floor is the probes' median, kept within ``[FLOOR_MIN, FLOOR_MAX]`` and no higher than the
headings' 5th percentile: a question whose best passage is less similar than a typical
off-topic question's is not covered. Measured in docs/retrieval.md ("A floor per bundle").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Bounds of the calibrated floor (cosine). 0.15: below it MiniLM's best match is noise on every
#: course measured; 0.30: the lowest answerable IoT question scores 0.298.
FLOOR_MIN = 0.15
FLOOR_MAX = 0.30
#: Quantile of the probes' best cosine taken as the floor (0.5: the median), and of the headings'
#: best cosine that caps it (0.05).
PROBE_QUANTILE = 0.5
HEADING_QUANTILE = 0.05
#: Most headings embedded at build time (evenly spread over the course), and fewest words.
MAX_HEADINGS = 300
MIN_HEADING_WORDS = 2
#: Rows of the chunk matrix compared at once (bounds memory on large courses).
BLOCK_ROWS = 4096

#: Questions unrelated to any course guide, written for this purpose (not from any question set).
OFF_TOPIC_PROBES = (
    "What is the best way to bake sourdough bread at home?",
    "Who won the football world cup in 2018?",
    "How do I get a cheaper mortgage rate?",
    "What are the symptoms of the common cold?",
    "Which planets in the solar system have rings?",
    "How long should I boil an egg for a soft yolk?",
    "What is the capital city of Australia?",
    "Can you recommend a good fantasy novel?",
    "How do I train my puppy to stop biting?",
    "What causes the seasons on Earth?",
    "How much water should an adult drink each day?",
    "Who painted the ceiling of the Sistine Chapel?",
    "What is the difference between a violin and a viola?",
    "How do I remove a red wine stain from a carpet?",
    "What are good exercises for lower back pain?",
    "When did the Roman Empire fall?",
    "How do I plant tomatoes in a small garden?",
    "What is the plot of Romeo and Juliet?",
    "Which countries border Switzerland?",
    "How do I tie a bow tie?",
    "What should I pack for a week of camping?",
    "How do volcanoes form?",
    "What is a good diet for losing weight?",
    "How do I write a cover letter for a job?",
    "What time zone is Tokyo in?",
    "Why is the sky blue?",
    "How do I make a paper airplane that flies far?",
    "What are the rules of chess castling?",
    "How do I care for a cactus indoors?",
    "Who was the first person to walk on the moon?",
    "How can I improve my singing voice?",
    "What is the healthiest breakfast cereal?",
    "How do I fold a fitted sheet?",
    "What is the tallest mountain in Africa?",
    "How do I knit a scarf?",
    "Which wine goes well with fish?",
    "How do I change a flat bicycle tyre?",
    "What are the main causes of inflation?",
    "How often should I wash my hair?",
    "What is the meaning of life?",
)


@dataclass(frozen=True)
class GateCalibration:
    """The calibrated floor and the statistics it came from (cosine similarities, higher = closer).

    ``min_similarity``: the floor the gate uses for this bundle; ``probe_median``: the median best
    cosine of the off-topic probes; ``heading_p5``: the 5th percentile of the headings' best
    cosine (None when the course has no heading of two words or more); ``probes`` and
    ``headings``: how many of each were measured.
    """

    min_similarity: float
    probe_median: float
    heading_p5: float | None
    probes: int
    headings: int

    def as_meta(self) -> dict[str, str]:
        """The bundle ``meta`` rows (``gate_*`` keys, values as text)."""
        meta = {"gate_min_similarity": f"{self.min_similarity:.4f}", "gate_probe_median": f"{self.probe_median:.4f}",
                "gate_probes": str(self.probes), "gate_headings": str(self.headings)}
        if self.heading_p5 is not None:
            meta["gate_heading_p5"] = f"{self.heading_p5:.4f}"
        return meta


def pseudo_questions(headings: list[str]) -> list[str]:
    """Distinct section headings of at least MIN_HEADING_WORDS words, at most MAX_HEADINGS of them,
    evenly spread over the course (deterministic)."""
    seen: dict[str, None] = {}
    for heading in headings:
        text = " ".join(heading.split())
        if len(text.split()) >= MIN_HEADING_WORDS:
            seen.setdefault(text, None)
    unique = list(seen)
    if len(unique) <= MAX_HEADINGS:
        return unique
    step = len(unique) / MAX_HEADINGS
    return [unique[int(i * step)] for i in range(MAX_HEADINGS)]


def best_similarities(queries: np.ndarray, chunks: np.ndarray) -> np.ndarray:
    """``(q,) float32``: each query's highest cosine over the chunk rows.

    ``queries`` ``(q, dim)`` and ``chunks`` ``(n, dim)`` are float32 unit vectors (n ≥ 1); the
    chunks are compared BLOCK_ROWS at a time.
    """
    best = np.full(queries.shape[0], -1.0, dtype=np.float32)
    for begin in range(0, chunks.shape[0], BLOCK_ROWS):
        np.maximum(best, (queries @ chunks[begin:begin + BLOCK_ROWS].T).max(axis=1), out=best)
    return best


def calibrate(embed, chunks: np.ndarray, headings: list[str]) -> GateCalibration:
    """The gate's floor for a course (see the module docstring).

    ``embed(texts)`` returns ``(len(texts), dim)`` float vectors (the bundle's embedder);
    ``chunks`` is the bundle's ``(n, dim) float32`` unit chunk vectors, n ≥ 1; ``headings`` the
    chunks' section headings (leaf text). Raises what ``embed`` raises.
    """
    questions = pseudo_questions(headings)
    vectors = np.asarray(embed(list(OFF_TOPIC_PROBES) + questions), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    best = best_similarities(vectors, chunks)
    probes, own = best[:len(OFF_TOPIC_PROBES)], best[len(OFF_TOPIC_PROBES):]
    probe_median = float(np.quantile(probes, PROBE_QUANTILE))
    heading_p5 = float(np.quantile(own, HEADING_QUANTILE)) if own.size else None
    ceiling = FLOOR_MAX if heading_p5 is None else min(FLOOR_MAX, heading_p5)
    floor = min(max(probe_median, FLOOR_MIN), max(ceiling, FLOOR_MIN))
    return GateCalibration(round(floor, 4), probe_median, heading_p5, len(probes), len(questions))
