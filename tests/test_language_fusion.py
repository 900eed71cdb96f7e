"""Fusion weights for a course not in English (issue 27): the lexical leg leads when the course's
words are cut with their own language's stemmer, because the English embedding model rates any
French or Spanish text as alike; English courses keep their weights (app/retrieval/settings.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.retrieval.retriever import Retriever
from app.retrieval.settings import OTHER_LANGUAGE_WEIGHTS, WEIGHTS, RetrievalSettings

from .fakes import FakeEmbedder

QUESTION = "Comment supprimer un répertoire et tout son contenu ?"
GUIDES = {
    "01-supprimer.md": "# Effacer\n\nLa commande rm -r va supprimer un répertoire et tout son contenu, sans confirmation.\n",
    "02-corbeille.md": "# La corbeille\n\nLe shell n'a pas de corbeille : un fichier effacé est perdu pour de bon.\n",
}


class AlikeEmbedder(FakeEmbedder):
    """Rates the question nearest to the guide on the bin (``corbeille``) whatever its words, as the
    English model does with text in another language; every other text is far from both."""

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, 0 if (QUESTION in text or "corbeille" in text) else 1] = 1.0
        return out


def _retriever(tmp_path: Path, language: str) -> Retriever:
    root = tmp_path / f"course-{language}"
    root.mkdir()
    for name, text in GUIDES.items():
        (root / name).write_text(text, encoding="utf-8")
    out = tmp_path / f"{language}.sqlite"
    embedder = AlikeEmbedder()
    build_bundle(root, out, embedder, language=language)
    return Retriever(BundleReader(out), embedder)


@pytest.mark.parametrize("language", ["fr", "fr-CA"])
def test_a_french_course_ranks_the_keyword_match_first_over_a_misleading_dense_leg(tmp_path, language):
    retriever = _retriever(tmp_path, language)
    assert retriever.stemmer == "french"
    assert retriever.search(QUESTION, k=2).hits[0].source == "01-supprimer.md"


@pytest.mark.parametrize("language", ["en", ""])
def test_an_english_or_unknown_language_course_keeps_the_dense_leg_in_the_lead(tmp_path, language):
    retriever = _retriever(tmp_path, language)
    assert retriever.stemmer == "english"
    assert retriever.search(QUESTION, k=2).hits[0].source == "02-corbeille.md"


def test_leg_weights_follow_the_courses_stemmer():
    tuning = RetrievalSettings()
    assert tuning.leg_weights("english") == (WEIGHTS["semantic"], WEIGHTS["lexical"])
    for stemmer in ("french", "spanish", "german"):
        assert tuning.leg_weights(stemmer) == (OTHER_LANGUAGE_WEIGHTS["semantic"], OTHER_LANGUAGE_WEIGHTS["lexical"])
    assert OTHER_LANGUAGE_WEIGHTS["lexical"] > OTHER_LANGUAGE_WEIGHTS["semantic"]
