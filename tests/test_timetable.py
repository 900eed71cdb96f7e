"""The gate's timetable rule (app/retrieval/gate_timetable.py): in a French or Spanish course, a
question asking when the class, an exam or a deadline is gets "not covered" unless a passage a
reply would quote holds a time or a date."""

from __future__ import annotations

import pytest

from app.i18n import language_rules
from app.retrieval.gate_timetable import asks_timetable, holds_time_or_date, timetable_unanswered
from tests.test_i18n_replies import FRENCH, SPANISH, _course

SYLLABUS_FR = {"organisation/README.md": """# Organisation du cours

Le cours a lieu chaque mardi de 14 h à 16 h en salle B12.

## Examen

L'examen final a lieu le vendredi 15 janvier à 9 h, en salle B12.
"""}
SYLLABUS_ES = {"organizacion/README.md": """# Organización del curso

La clase es cada martes de 16:00 a 18:00 en el aula 3.

## Examen

El examen final es el viernes 15 de enero a las 9:00, en el aula 3.
"""}


@pytest.mark.parametrize("language,question", [
    ("fr", "Quand a lieu l'examen final ?"),
    ("fr", "À quelle heure commence le cours demain ?"),
    ("fr", "À quelle heure le cours commence-t-il ?"),
    ("fr", "Y a-t-il cours vendredi ?"),
    ("fr", "L'examen final, c'est quand ?"),
    ("fr", "Pour quand faut-il rendre le devoir ?"),
    ("es", "¿A qué hora empieza la clase mañana?"),
    ("es", "¿Hay clase el viernes?"),
    ("es", "¿Cuándo es el examen final?"),
    ("es", "¿Qué día es el parcial?"),
    ("es", "¿Cuándo hay que entregar la tarea?"),
    ("fr", "C'est quand la date limite pour rendre le projet ?"),
    ("fr", "Les vacances commencent quand ?"),
    ("fr", "Quelle est la date du partiel ?"),
    ("es", "¿Mañana hay clase?"),
    ("es", "¿Cuál es la fecha límite para entregar el proyecto?"),
])
def test_questions_about_the_timetable(language, question):
    assert asks_timetable(question, language)


@pytest.mark.parametrize("language,question", [
    ("fr", "Quand utiliser les guillemets ?"),
    ("fr", "Au cours de la leçon, quand utilise-t-on ls ?"),
    ("fr", "Quand le cours aborde-t-il les boucles ?"),
    ("fr", "Quand une classe est-elle instanciée ?"),
    ("es", "¿Cuándo es útil una clase abstracta?"),
    ("es", "¿Cuándo se usa la clase Path?"),
    ("es", "¿Cuándo termina el bucle?"),
    ("es", "¿Hay una clase para fechas?"),
    ("es", "¿Cuál es la fecha de la última modificación?"),
    ("fr", "Quelle est la date du fichier ?"),
    ("fr", "Le script est lancé quand ?"),
    ("en", "When is the final exam?"),  # English: the similarity floor's to judge
])
def test_course_questions_that_say_when_are_not_timetable_questions(language, question):
    assert not asks_timetable(question, language)


@pytest.mark.parametrize("language,text,expected", [
    ("fr", "L'examen final a lieu le vendredi 15 janvier.", True),
    ("fr", "Le cours commence à 14h30.", True),
    ("es", "La clase empieza a las 16:00.", True),
    ("es", "La entrega es el 12/03.", True),
    ("fr", "Le fichier contient :\n\n```output\n2012-11-05,deer,5\n```\n", False),
    ("fr", "Entrez dans `north-pacific-gyre/2012-07-03` puis lancez le script.", False),
    ("fr", "Après avoir lu *Little Women* de Louisa May Alcott, vous n'êtes pas d'accord.", False),
    ("es", "Podemos pasar al principio de una línea escribiendo `Ctrl-A`.", False),
])
def test_a_time_or_a_date_in_a_passage(language, text, expected):
    assert holds_time_or_date(text, language) is expected


def test_only_the_passages_a_reply_would_quote_are_read():
    later = ["Le shell lit la commande.", "La commande ls liste les fichiers.", "Tapez `cd ..`.",
             "Si vous nommez les fichiers par mois, décembre vient avant juillet."]
    assert timetable_unanswered("Quand a lieu l'examen final ?", later, "fr")
    assert not timetable_unanswered("Quand a lieu l'examen final ?", later[3:], "fr")


@pytest.mark.parametrize("language,guides,syllabus,question,fact", [
    ("fr", FRENCH, SYLLABUS_FR, "À quelle heure commence le cours demain ?", "14 h"),
    ("es", SPANISH, SYLLABUS_ES, "¿Cuándo es el examen final?", "15 de enero"),
])
def test_a_timetable_question_is_answered_from_a_syllabus_and_not_covered_without_one(
        tmp_path, fake_embedder, language, guides, syllabus, question, fact):
    without = _course(tmp_path / "without", guides, language, fake_embedder).answer(question)
    assert without.state == "not-covered", without.text
    assert without.text.startswith(language_rules(language).text("not_covered"))
    with_syllabus = _course(tmp_path / "with", {**guides, **syllabus}, language, fake_embedder).answer(question)
    assert with_syllabus.state == "extractive" and fact in with_syllabus.text, with_syllabus.text
