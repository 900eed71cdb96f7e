"""The course's language chooses the stemmer and stop words of the lexical index and of quote
selection (issue 27): French and Spanish courses built with the fake embedder, where a question's
inflected word meets its stem in a guide only with that language's stemmer; unknown tags; bundles
indexed before the stemmer was recorded."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from app.answer.answerer import Assistant
from app.answer.extractive import choose_quotes
from app.answer.settings import AnswerSettings
from app.bundle.builder import build_bundle
from app.bundle.reader import BundleError, BundleReader
from app.bundle.schema import CONTENT_DIGEST_KEY, connect, content_digest
from app.records import Hit, Passage
from app.retrieval.retriever import Retriever
from app.text.lexical import LexicalIndex, build_index, bundle_stemmer
from app.text.tokenize import DEFAULT_STEMMER, document_tokens, query_words, stemmer_for, word_variants

#: Per language: two guides, the one holding the verb in its infinitive, and a question that
#: writes the verb inflected ("eliminamos" / "eliminar", "supprimez" / "supprimer").
COURSES = {
    "es": {
        "guides": {
            "lecciones/01-borrar.md": "# Archivos\n\nPara eliminar un archivo se usa el comando `rm` con su nombre.\n\n"
                                      "Los nombres de archivo pueden llevar espacios si se ponen entre comillas.\n",
            "lecciones/02-ver.md": "# Ver contenido\n\n`cat` muestra el texto entero en la terminal.\n\n"
                                   "`less` lo muestra página a página.\n",
        },
        "question": "¿Con qué comando eliminamos un archivo?", "inflected": "eliminamos",
        "source": "lecciones/01-borrar.md", "quoted": "Para eliminar un archivo",
        "passage": "Cada archivo tiene un nombre.\n\nPara eliminar un archivo se usa `rm`.\n",
    },
    "fr": {
        "guides": {
            "lecons/01-supprimer.md": "# Fichiers\n\nPour supprimer un fichier, on utilise la commande `rm` suivie "
                                      "de son nom.\n\nLes noms de fichier peuvent contenir des espaces entre guillemets.\n",
            "lecons/02-lire.md": "# Lire\n\n`cat` affiche le texte entier dans le terminal.\n\n"
                                 "`less` l'affiche page par page.\n",
        },
        "question": "Avec quelle commande supprimez-vous un fichier ?", "inflected": "supprimez",
        "source": "lecons/01-supprimer.md", "quoted": "Pour supprimer un fichier",
        "passage": "Chaque fichier a un nom.\n\nPour supprimer un fichier, on utilise `rm`.\n",
    },
}


def _build(tmp_path: Path, guides: dict[str, str], language: str, embedder) -> Path:
    root = tmp_path / f"course-{language or 'none'}"
    for path, text in guides.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    out = tmp_path / f"{language or 'none'}.sqlite"
    build_bundle(root, out, embedder, language=language)
    return out


def _rewrite_lexical(path: Path, **changes) -> None:
    """Change keys of the bundle's ``meta['lexical']`` (None removes one), keeping the content digest valid."""
    conn = connect(str(path), read_only=False)
    lexical = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'lexical'").fetchone()[0])
    for key, value in changes.items():
        lexical.pop(key, None) if value is None else lexical.__setitem__(key, value)
    with conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'lexical'", (json.dumps(lexical, sort_keys=True),))
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (content_digest(conn), CONTENT_DIGEST_KEY))
    conn.close()


def test_the_stemmer_follows_the_language_table_and_an_unknown_tag_is_english():
    assert [stemmer_for(t) for t in ("fr", "es-MX", "DE", "pt_BR", "en-GB")] == \
        ["french", "spanish", "german", "portuguese", "english"]
    for tag in ("qya", "", None, "x-klingon!", "zh", "  "):
        assert stemmer_for(tag) == DEFAULT_STEMMER
    assert word_variants("eliminamos", "klingon") == word_variants("eliminamos")  # an unknown name: English


def test_english_tokens_are_those_of_the_english_stemmer_and_stop_words():
    text = "The Wi-Fi routers are running; GroveLightSensor reads light."
    assert document_tokens(text) == document_tokens(text, "english")
    assert document_tokens(text) == ["wi-fi", "wifi", "wi", "fi", "router", "run", "grovelightsensor", "grove",
                                     "light", "sensor", "read", "light"]


def test_each_language_drops_its_own_stop_words():
    assert query_words("les fichiers du répertoire", "french") == [("fichi",), ("répertoir",)]
    assert ("les",) in query_words("les fichiers du répertoire")  # English keeps the French articles


def test_only_english_splits_a_word_with_accents_as_camel_case():
    """``comodín`` is one word in Spanish, not ``comod`` + ``n`` (whose commonness drowned it); English
    keeps the split, so an English bundle keeps its tokens."""
    assert word_variants("comodín", "spanish") == ("comodin",)
    assert word_variants("comodín") == ("comodín", "comod", "n")
    assert word_variants("useState", "spanish") == ("usestat", "use", "stat")  # ASCII: still split


@pytest.mark.parametrize("language", ["es", "fr"])
def test_an_inflected_question_word_meets_its_stem_in_the_courses_language(tmp_path, fake_embedder, language):
    case = COURSES[language]
    path = _build(tmp_path, case["guides"], language, fake_embedder)
    reader = BundleReader(path)
    assert json.loads(reader.meta["lexical"])["stemmer"] == stemmer_for(language)
    retriever = Retriever(reader, fake_embedder)
    assert retriever.stemmer == stemmer_for(language)
    # The inflected word alone finds the guide with the infinitive; with the English stemmer, nothing.
    scores = retriever.lexical_index.scores(case["inflected"])
    assert scores.max() > 0 and reader.chunks([int(scores.argmax()) + 1])[int(scores.argmax()) + 1].source == case["source"]
    english = LexicalIndex(build_index([case["guides"][case["source"]]], "english"))
    assert english.scores(case["inflected"]).max() == 0
    hits = retriever.search(case["question"], legs=("lexical",)).hits
    assert hits and hits[0].source == case["source"]
    keyword_only = Retriever(BundleReader(path), None)  # the fake embedder's hashed words would rank the guides
    answer = Assistant(keyword_only, None).answer(case["question"])
    assert answer.state == "extractive" and case["quoted"] in answer.text


def test_an_unknown_language_tag_builds_and_answers_with_the_english_stemmer(tmp_path, fake_embedder):
    guides = {"guide.md": "# Sensors\n\nThe light sensors are read every second by the board.\n"}
    path = _build(tmp_path, guides, "qya", fake_embedder)
    retriever = Retriever(BundleReader(path), fake_embedder)
    assert (retriever.language, retriever.stemmer) == ("qya", "english")
    hits = retriever.search("how often is the light sensor read?", legs=("lexical",)).hits
    assert hits and hits[0].source == "guide.md"
    assert Assistant(retriever, None).answer("how often is the light sensor read?").text


def test_a_version_2_bundle_is_searched_with_the_english_stemmer_it_was_built_with(tmp_path, fake_embedder):
    path = _build(tmp_path, COURSES["fr"]["guides"], "en", fake_embedder)
    _rewrite_lexical(path, tokenizer_version=2, stemmer=None)
    retriever = Retriever(BundleReader(path), fake_embedder)
    assert retriever.stemmer == "english"
    assert retriever.search("commande rm", legs=("lexical",)).hits[0].source == "lecons/01-supprimer.md"


def test_a_stemmer_this_app_lacks_is_searched_in_english_with_one_log_line(tmp_path, fake_embedder, caplog):
    path = _build(tmp_path, COURSES["fr"]["guides"], "fr", fake_embedder)
    _rewrite_lexical(path, stemmer="klingon")
    with caplog.at_level(logging.WARNING, logger="app.text.lexical"):
        retriever = Retriever(BundleReader(path), fake_embedder)
        assert retriever.stemmer == "english"
    assert len([r for r in caplog.records if "klingon" in r.getMessage()]) == 1
    assert retriever.search("commande rm", legs=("lexical",)).hits
    assert bundle_stemmer({"lexical": "{not json"}) == bundle_stemmer({}) == "english"


def test_a_tokenizer_version_older_than_this_app_reads_is_refused(tmp_path, fake_embedder):
    path = _build(tmp_path, COURSES["es"]["guides"], "es", fake_embedder)
    _rewrite_lexical(path, tokenizer_version=1)
    with pytest.raises(BundleError, match="tokenizer version 1; this app searches with versions 2 to 3"):
        BundleReader(path)


@pytest.mark.parametrize("language", ["es", "fr"])
def test_quote_selection_cuts_the_blocks_with_the_courses_stemmer(language):
    """Both sentences hold the question's noun; only the course's stemmer sees the verb in the second."""
    case = COURSES[language]
    text = case["passage"]
    passage = Passage(1, Hit.make(chunk_id=1, key="g.md#a:1", source="g.md", heading="Lesson", anchor="a",
                                  span=(0, len(text)), text=text, score=1.0))
    chosen = {stemmer: choose_quotes(case["question"], [passage], per_passage=1,
                                     settings=AnswerSettings(language=language, stemmer=stemmer))[0].markdown
              for stemmer in ("english", stemmer_for(language))}
    assert case["quoted"] in chosen[stemmer_for(language)]
    assert case["quoted"] not in chosen["english"]


@pytest.mark.parametrize("language, asked, known", [
    ("fr", "Comment changer le propriétaire d'un fichier avec chown ?", "Comment supprimer un fichier avec rm ?"),
    ("es", "¿Cómo cambio el propietario de un archivo con chown?", "¿Cómo elimino un archivo con rm?"),
])
def test_a_lower_case_tool_after_with_that_the_course_never_uses_is_not_covered(tmp_path, fake_embedder,
                                                                               language, asked, known):
    """« avec chown » / «con chown»: the tool is a name the guides never mention (French and Spanish
    tables only); « avec rm », which the guides use, is answered."""
    path = _build(tmp_path, COURSES[language]["guides"], language, fake_embedder)
    retriever = Retriever(BundleReader(path), fake_embedder)
    missing = retriever.search(asked).unknown_names
    assert "chown" in missing
    assert Assistant(retriever, None).answer(asked).state == "not-covered"
    assert "rm" not in retriever.search(known).unknown_names
