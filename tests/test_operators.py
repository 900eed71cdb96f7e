"""Operators written with symbols only (``$@``, ``>>``, ``2>&1``): no word of them reaches BM25 or FTS5,
so the exact leg finds the chunks holding them as written (app/retrieval/identifiers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.retrieval.exact import exact_candidates
from app.retrieval.identifiers import extract_operators, holds_operator, symbols_asked
from app.retrieval.retriever import Retriever
from tests.fakes import FakeEmbedder


@pytest.mark.parametrize("question, operators", [
    ("Que veut dire $@ dans un script shell ?", ["$@"]),
    ("Que fait l'opérateur >> par rapport à > ?", [">>"]),
    ("What does `2>&1` do at the end of a command?", ["2>&1"]),
    ("Is it === or ==?", ["===", "=="]),
    ("¿Qué hace !$ en el historial?", ["!$"]),
    ("What do <<<<<<< HEAD and ======= mean after a merge?", ["<<<<<<<", "======="]),  # the whole run
    ("Is ================ a heading?", []),  # a longer run is a rule, not an operator
    ("Why?! What is the X pin... -- and C++ or C#?", []),  # punctuation, and symbols stuck to a word
    ("¿Qué hace #?", ["`#`"]),  # a single symbol asked about is looked for in inline code
    ("Que fait > ?", ["`>`"]),
    ("What does `|` do?", ["`|`"]),
    ("Quelle est la différence entre le joker * et le joker ? dans le shell ?", ["`*`"]),
    ("Que fait l'opérateur >> par rapport à > ?", [">>"]),
])
def test_operators_are_the_symbol_only_tokens(question, operators):
    assert extract_operators(question) == operators


@pytest.mark.parametrize("question", [
    "I put 7 * 3 on one line and 2 + 1 on the next in one cell and it only showed 3, why?",  # arithmetic
    "Merci !", "C'est quoi ? Je ne comprends pas.",  # French sets "!" and "?" apart
])
def test_a_symbol_in_a_longer_question_is_not_what_it_asks_about(question):
    assert symbols_asked(question) == []


def test_the_chunk_explaining_a_symbol_leads_a_question_about_it(tmp_path):
    root = tmp_path / "shell"
    root.mkdir()
    for n in range(6):  # guides whose words are the question's and whose code has comments
        (root / f"hace-{n}.md").write_text(
            f"# ¿Qué hace el comando {n}?\n\n¿Qué hace `sort -n` con el archivo {n}? Ordena números.\n\n"
            f"```bash\n# ordena el archivo {n}\nsort -n datos-{n}.txt\n```\n", encoding="utf-8")
    (root / "script.md").write_text(
        "# Scripts\n\nUn comentario empieza con un carácter `#` y sigue hasta el final de la línea; "
        "la computadora lo ignora.\n", encoding="utf-8")
    out = tmp_path / "shell.sqlite"
    build_bundle(root, out, FakeEmbedder())
    reader = BundleReader(out)
    try:
        retriever = Retriever(reader, FakeEmbedder())
        found = retriever.search("¿Qué hace #?", k=5)
        assert found.hits[0].source == "script.md" and found.has_evidence
        assert retriever.search("¿Qué hace sort?", k=5).hits[0].source != "script.md"
    finally:
        reader.close()


@pytest.fixture()
def shell_course(tmp_path: Path) -> Path:
    root = tmp_path / "shell"
    root.mkdir()
    for n in range(6):  # guides that share the question's words but not its operator
        (root / f"scripts-{n}.md").write_text(
            f"# Shell scripts {n}\n\nA shell script holds commands. Arguments of a script are words after its "
            f"name; a script reads its arguments and works on files number {n}.\n", encoding="utf-8")
    (root / "special.md").write_text(
        "# Special variables\n\nInside a script, `$@` stands for all the command-line arguments at once, "
        "so `wc -l \"$@\"` counts lines in every file given.\n", encoding="utf-8")
    return root


def test_the_chunk_holding_the_operator_is_found(shell_course, tmp_path):
    out = tmp_path / "shell.sqlite"
    build_bundle(shell_course, out, FakeEmbedder())
    reader = BundleReader(out)
    try:
        assert reader.chunks_containing("$@", 10) and reader.chunks_containing("$#", 10) == []
        retriever = Retriever(reader, FakeEmbedder())
        question = "What does $@ mean in a shell script?"
        special = reader.chunks_containing("$@", 10)
        assert exact_candidates(reader, question, retriever.settings.exact_candidates) == (special, [])
        found = retriever.search(question, k=7)
        assert found.exact_matches == len(special)
        assert [h.source for h in found.hits if h.exact_match] == ["special.md"]
        assert not any(h.exact_match for h in retriever.search(question, k=7, legs=("lexical", "semantic")).hits)
    finally:
        reader.close()


def test_quote_markers_and_longer_symbol_runs_do_not_hold_an_operator(shell_course, tmp_path):
    # A Carpentries lesson writes a solution inside a challenge as ">> ## Solution"; Python's prompt is ">>>".
    (shell_course / "nested.md").write_text(
        "# Types\n\n> ## Which type?\n>\n>> ## Solution\n>> An integer.\n\n```python\n>>> 2 >>= 1\n```\n",
        encoding="utf-8")
    (shell_course / "append.md").write_text("# Redirects\n\n`echo hi >> log.txt` adds to the end of the file.\n",
                                            encoding="utf-8")
    out = tmp_path / "shell.sqlite"
    build_bundle(shell_course, out, FakeEmbedder())
    reader = BundleReader(out)
    try:
        assert len(reader.chunks_containing(">>", 10)) == 2  # as written, both guides hold ">>"
        exact, _symbols = exact_candidates(reader, "What does >> do?", 10)
        assert [reader.chunks([cid])[cid].source for cid in exact] == ["append.md"]
    finally:
        reader.close()
    assert holds_operator("x = 2\n  >> not a quote", ">>") is False
    assert holds_operator('wc -l "$@"', "$@") and not holds_operator("a >>= b", ">>")
