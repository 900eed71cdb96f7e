"""The evidence gate's floor is calibrated on each course at build time (issue 14)."""

import numpy as np
import pytest

from app.bundle.calibration import (FLOOR_MAX, FLOOR_MIN, MAX_HEADINGS, OFF_TOPIC_PROBES, calibrate,
                                    pseudo_questions)
from app.bundle.reader import BundleReader
from app.bundle.schema import connect
from app.retrieval.retriever import MIN_SIMILARITY, Retriever

from .fakes import FakeEmbedder

CHUNKS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)


def _embedder(probe_cosines: list[float], heading_cosine: float):
    """An embed() whose i-th probe has cosine ``probe_cosines[i]`` to the first chunk (and less to
    the second), and whose headings have ``heading_cosine``."""
    def vector(c: float) -> list[float]:
        return [c, 0.0, float(np.sqrt(1 - c * c))]

    def embed(texts):
        cosines = [probe_cosines[OFF_TOPIC_PROBES.index(t)] if t in OFF_TOPIC_PROBES else heading_cosine
                   for t in texts]
        return np.array([vector(c) for c in cosines], dtype=np.float32)
    return embed


@pytest.mark.parametrize("probes, heading, floor", [
    ([0.10] * 20 + [0.22] * 20, 0.9, 0.16),  # the probes' median, when inside the bounds
    ([0.05] * 40, 0.9, FLOOR_MIN),  # a tiny course: off-topic questions match nothing
    ([0.45] * 40, 0.9, FLOOR_MAX),  # a broad course: never stricter than FLOOR_MAX
    ([0.28] * 40, 0.12, FLOOR_MIN),  # capped by the headings' own best cosine, not below FLOOR_MIN
    ([0.26] * 40, 0.22, 0.22),  # capped by the headings' 5th percentile
])
def test_the_floor_is_the_probes_median_within_bounds_and_below_the_headings(probes, heading, floor):
    result = calibrate(_embedder(probes, heading), CHUNKS, ["Wiring the sensor", "Reading the data"])
    assert result.min_similarity == pytest.approx(floor, abs=1e-3)
    assert result.probes == len(OFF_TOPIC_PROBES) and result.headings == 2
    assert result.probe_median == pytest.approx(float(np.median(probes)), abs=1e-3)


def test_pseudo_questions_are_distinct_headings_of_two_words_or_more_spread_over_the_course():
    assert pseudo_questions(["Intro", "Wiring  the sensor", "Wiring the sensor", "Reading data"]) == [
        "Wiring the sensor", "Reading data"]
    many = pseudo_questions([f"Section number {i}" for i in range(1000)])
    assert len(many) == MAX_HEADINGS and many[0] == "Section number 0" and "Section number 999" not in many[:1]
    assert many[-1].startswith("Section number 99")  # the end of the course is sampled too


def test_the_build_records_the_floor_and_the_retriever_gates_at_it(bundle_path, tmp_path):
    reader = BundleReader(bundle_path)
    try:
        recorded = float(reader.meta["gate_min_similarity"])
        assert FLOOR_MIN <= recorded <= FLOOR_MAX
        assert Retriever(reader, FakeEmbedder()).min_similarity == recorded
    finally:
        reader.close()
    question = "How do I wire the OLED display?"

    def gated_with(value: str | None) -> tuple[bool, float]:
        conn = connect(str(bundle_path), read_only=False)
        try:
            conn.execute("DELETE FROM meta WHERE key = 'gate_min_similarity'")
            if value is not None:
                conn.execute("INSERT INTO meta VALUES ('gate_min_similarity', ?)", (value,))
        finally:
            conn.close()
        reader = BundleReader(bundle_path)
        try:
            retriever = Retriever(reader, FakeEmbedder())
            result = retriever.search(question)
            return result.has_evidence, retriever.min_similarity
        finally:
            reader.close()

    assert gated_with("0.0") == (True, 0.0)
    assert gated_with("0.999") == (False, 0.999)  # the same question, the bundle's stricter floor
    assert gated_with(None)[1] == MIN_SIMILARITY  # a bundle built before calibration
    assert gated_with("not a number")[1] == MIN_SIMILARITY
