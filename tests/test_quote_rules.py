"""Quote selection, one test per scorer and rule (app/answer/scorers.py, app/answer/rules.py;
docs/answers.md, "Quote selection: the pipeline")."""

from dataclasses import replace

import pytest

from app.answer.blocks import Unit, passage_units
from app.answer.extractive import asks_count, choose_quotes, make_query
from app.answer.quotes import Quote
from app.answer.rules import (
    BLOCK_RULES,
    PASSAGE_RULES,
    QUOTE_RULES,
    RuleContext,
    after_example,
    choose_blocks,
    counting,
    duplicate,
    echo,
    follows_on,
    guide_question,
    heading,
    near_best,
    partial_list,
    points_back,
    relevant,
    repeats,
    second_block,
)
from app.answer.scorers import (
    Candidate,
    PassageBlocks,
    SimilarityScorer,
    exact_bonus,
    has_value,
    rescore,
    score_block,
    shape_bonus,
    word_share,
)
from app.answer.settings import RULES, AnswerSettings
from app.records import Hit, Passage

SETTINGS = AnswerSettings()


def _passage(text: str = "x", n: int = 1, source: str = "g.md", score: float = 1.0, start: int = 0,
             heading: str = "Course › Lesson") -> Passage:
    return Passage(n, Hit.make(chunk_id=n, key=f"{source}#a:{n}", source=source, heading=heading, anchor="a",
                               span=(start, start + len(text)), text=text, score=score))


def _unit(text: str, order: int = 0, kind: str = "sentence", heading: str = "Lesson", start: int = 0,
          match_text: str | None = None) -> Unit:
    return Unit(kind=kind, text=text, match_text=text if match_text is None else match_text, heading=heading,
                order=order, start=start, end=start + len(text))


def _blocks(*scored: tuple[Unit, float], passage: Passage | None = None) -> PassageBlocks:
    return PassageBlocks(passage or _passage(), tuple(Candidate(u, s) for u, s in scored))


def _ctx(question: str = "", settings: AnswerSettings = SETTINGS, guide_text=None) -> RuleContext:
    return RuleContext(make_query(question), settings, guide_text)


# --- settings --------------------------------------------------------------------------------

def test_every_rule_name_runs_in_a_stage_and_unknown_names_are_refused():
    staged = {name for stage in (PASSAGE_RULES, BLOCK_RULES, QUOTE_RULES) for name, _ in stage}
    assert staged | {"exact_bonus", "shape_bonus", "similarity", "relevance"} == set(RULES)
    assert not AnswerSettings(rules=()).on("echo") and SETTINGS.on("echo")
    with pytest.raises(ValueError, match="echos"):
        AnswerSettings(rules=("echos",))


# --- scorers ---------------------------------------------------------------------------------

def test_word_share_counts_a_word_found_only_in_the_heading_at_heading_weight():
    query = make_query("battery voltage")
    both = _unit("The battery voltage is 3.7 V.")
    heading_only = _unit("It is 3.7 V.", heading="Battery")
    assert word_share(query, both, SETTINGS) == 1.0
    assert word_share(query, heading_only, SETTINGS) == pytest.approx(0.25)  # half of one word of two
    assert word_share(query, heading_only, replace(SETTINGS, heading_weight=1.0)) == pytest.approx(0.5)
    assert word_share(make_query(""), both, SETTINGS) == 0.0


def test_exact_bonus_needs_the_code_token_whole():
    query = make_query("What does === do?")
    assert query.code == ("===",)
    assert exact_bonus(query, _unit("| `===` | strict equality |"), SETTINGS) == SETTINGS.exact_bonus
    assert exact_bonus(query, _unit("| `!==` | strict inequality |"), SETTINGS) == 0.0


def test_shape_bonus_rewards_the_shape_asked_for_only_with_a_question_word_in_the_block():
    how = make_query("How do I delete the group?")
    assert shape_bonus(how, _unit("Delete the group with `az group delete`."), SETTINGS) == SETTINGS.how_bonus
    assert shape_bonus(how, _unit("Run `az login` first."), SETTINGS) == 0.0  # right shape, no question word
    name = make_query("What is shadow IT called?")
    assert shape_bonus(name, _unit("Shadow IT is software nobody approved."), SETTINGS) == SETTINGS.name_bonus
    value = make_query("Which resistor should I use?")
    assert shape_bonus(value, _unit("A 220 Ω resistor works."), SETTINGS) == SETTINGS.value_bonus
    assert not has_value("1. See [the manual](https://example.org/m2x9) for details")


def test_shape_bonus_finds_the_question_word_with_the_course_language_stemmer():
    # French cuts "sortir" to "sort"; English would leave "sortir", so the block would hold no question word.
    how = make_query("Comment sortir d'une commande bloquée ?", language="fr", stemmer="french")
    assert how.kind == "how"
    block = _unit("Vous pouvez sortir de cet état avec `Ctrl+C`.")
    assert shape_bonus(how, block, SETTINGS) == SETTINGS.how_bonus


def test_a_definition_is_recognised_in_the_course_s_language():
    settings = replace(SETTINGS, language="fr", stemmer="french")
    name = make_query("Que veut dire $@ dans un script ?", language="fr", stemmer="french")
    assert name.kind == "name"
    defining = _unit("Dans un script, `$@` signifie tous les arguments.")
    assert shape_bonus(name, defining, settings) == settings.name_bonus
    assert shape_bonus(name, defining, SETTINGS) == 0.0  # English's words alone do not see "signifie"
    assert shape_bonus(name, _unit("Écrivez `$@` entre guillemets dans un script."), settings) == 0.0


def test_keys_to_press_answer_a_how_question():
    how = make_query("How do I stop a command that hangs?")
    keys = _unit("Stop it by pressing <kbd>Ctrl</kbd>+<kbd>C</kbd>.")
    assert not keys.has_code
    assert shape_bonus(how, keys, SETTINGS) == SETTINGS.how_bonus
    assert shape_bonus(how, _unit("Stop and think before you type."), SETTINGS) == 0.0


def test_score_block_adds_only_the_bonuses_switched_on():
    query = make_query("How do I use cloneNode(true)?")
    unit = _unit("Use `cloneNode(true)` to copy the template.")
    full = score_block(query, unit, SETTINGS)
    plain = score_block(query, unit, AnswerSettings(rules=()))
    assert plain == word_share(query, unit, SETTINGS)
    assert full == pytest.approx(plain + SETTINGS.exact_bonus + SETTINGS.how_bonus)


def test_similarity_scores_each_passages_best_blocks_only_and_never_lowers_a_score():
    units = [_unit(f"Block {i} text.", order=i) for i in range(4)]
    blocks = _blocks(*zip(units, [0.1, 0.4, 0.3, 0.2]))
    seen: list[list[str]] = []

    def cosine(texts):
        seen.append(texts)
        return [0.8, -0.5]

    settings = replace(SETTINGS, similarity_blocks=2, similarity_chars=10)
    added = SimilarityScorer(cosine, settings)(make_query("block"), [blocks])
    assert seen == [["Lesson: Bl", "Lesson: Bl"]]  # blocks 1 and 2 (the two best), cut to 10 characters
    assert added == [[0.0, settings.similarity_weight * 0.8, 0.0, 0.0]]


def test_a_scorer_plugs_in_and_can_change_the_quoted_block():
    # The hook for a relevance model of our own (issue 24): any callable with a name.
    class Prefers:
        name = "prefers-second"

        def __call__(self, query, passages):
            return [[0.0, 5.0] + [0.0] * (len(p.candidates) - 2) for p in passages]

    text = "The kettle boils water.\n\nThe kettle has a blue lid.\n"
    plain = choose_quotes("What does the kettle do?", [_passage(text)], per_passage=1)
    plugged = choose_quotes("What does the kettle do?", [_passage(text)], per_passage=1, scorers=[Prefers()])
    assert "boils" in plain[0].text and "blue lid" in plugged[0].text
    blocks = _blocks((_unit("a"), 1.0), (_unit("b", order=1), 0.5))
    assert [c.score for c in rescore(make_query("a"), [blocks], [Prefers()])[0].candidates] == [1.0, 5.5]


# --- which passages are quoted ---------------------------------------------------------------

def test_near_best_keeps_the_same_guide_or_a_fused_score_near_the_best():
    first = _blocks((_unit("a"), 1.0), passage=_passage(source="a.md", score=1.0))
    same_guide = _blocks((_unit("b"), 1.0), passage=_passage(n=2, source="a.md", score=0.1))
    near = _blocks((_unit("c"), 1.0), passage=_passage(n=3, source="c.md", score=0.85))
    far = _blocks((_unit("d"), 1.0), passage=_passage(n=4, source="d.md", score=0.5))
    assert near_best([first, same_guide, near, far], _ctx()) == [first, same_guide, near]


def test_relevant_needs_a_question_word_in_a_block_unless_none_has_one():
    on_topic = _blocks((_unit("The relay switches mains."), 0.5))
    heading_only = _blocks((_unit("It clicks.", heading="Relay"), 0.25))
    assert relevant([heading_only, on_topic], _ctx("relay")) == [on_topic]
    assert relevant([heading_only], _ctx("relay")) == [heading_only]
    assert relevant([heading_only, on_topic], _ctx("What is a relay called?")) == [heading_only, on_topic]


def test_a_heading_that_asks_the_question_makes_its_passage_relevant():
    # A FAQ: the heading is the student's question, the text answers it in other words.
    faq = _blocks((_unit("This message means you may not run the file.",
                         heading="Why does my command say Permission denied?"), 0.5))
    other = _blocks((_unit("Type man and the command's name for its manual."), 0.1))
    assert relevant([faq, other], _ctx("Why does my command say Permission denied?")) == [faq, other]
    # one of its words in a heading is not the question
    partial = _blocks((_unit("This message means you may not run the file.", heading="Permission"), 0.5))
    assert relevant([partial, other], _ctx("Why does my command say Permission denied?")) == [other]


# --- which blocks of a passage are quoted ----------------------------------------------------

def test_second_block_needs_a_share_of_the_best_score_without_its_exact_bonus_and_room():
    best, good, weak = _unit("`f()` runs.", 0), _unit("It explains f.", 1), _unit("Other.", 2)
    ctx = _ctx("What does f() do?")
    bonus = SETTINGS.exact_bonus
    blocks = _blocks((best, 0.5 + bonus), (good, 0.2), (weak, 0.1))
    assert second_block([best], blocks, ctx) == [best, good]  # 0.2 >= 0.4 x 0.5, not 0.4 x 0.75
    assert second_block([best], blocks, replace(ctx, settings=replace(SETTINGS, passage_quote_chars=20))) == [best]
    assert second_block([best], _blocks((best, 1.0), (weak, 0.3)), _ctx()) == [best]


def test_second_block_passes_over_a_question_the_guide_asks():
    # The French shell lesson: the guide's own question scored just above the Ctrl+C sentence.
    best = _unit("Il attend que nous lui donnions des données.", 0)
    rhetorical = _unit("Mais ne saisissons pas `*.pdb` après la commande ?", 1)
    answer = _unit("Vous pouvez sortir de cet état avec <kbd>Ctrl</kbd>+<kbd>C</kbd>.", 2)
    blocks = _blocks((best, 0.62), (rhetorical, 0.49), (answer, 0.48))
    assert second_block([best], blocks, _ctx("Comment sortir ?")) == [best, answer]
    assert second_block([best], _blocks((best, 0.62), (rhetorical, 0.49)), _ctx()) == [best]
    spanish = _unit("¿Qué pasa si no le damos ningún nombre?", 1)
    assert second_block([best], _blocks((best, 0.62), (spanish, 0.49), (answer, 0.48)), _ctx()) == [best, answer]


def test_counting_brings_every_item_of_a_chosen_list():
    items = [_unit(f"- step {i}", order=i, kind="item", start=0) for i in range(3)]
    other = _unit("- elsewhere", order=3, kind="item", start=50)
    blocks = _blocks(*[(u, 0.1) for u in [*items, other]])
    assert counting([items[1]], blocks, _ctx("How many steps are there?")) == [items[1], items[0], items[2]]
    assert counting([items[1]], blocks, _ctx("Which step is first?")) == [items[1]]
    assert asks_count("What is the number of rules?") and not asks_count("Which rule?")


def test_echo_brings_the_block_after_a_restated_question():
    pasted, fix = _unit("Error: port 1883 refused", 0), _unit("Open the port in the firewall.", 1)
    blocks = _blocks((pasted, 1.0), (fix, 0.1))
    assert echo([pasted], blocks, _ctx("Why is port 1883 refused? Error")) == [pasted, fix]
    assert echo([pasted], blocks, _ctx("Which port?")) == [pasted]


def _course_ctx(question: str, language: str) -> RuleContext:
    """A rule context for a course in ``language`` (``fr``, ``es``; '' English), cut with its stemmer."""
    stemmer = {"fr": "french", "es": "spanish"}.get(language, "english")
    settings = replace(SETTINGS, language=language, stemmer=stemmer)
    return RuleContext(make_query(question, language=language, stemmer=stemmer), settings, None)


def _course_blocks(text: str, language: str) -> PassageBlocks:
    stemmer = {"fr": "french", "es": "spanish"}.get(language, "english")
    units = passage_units(text, "Cours › Leçon", stemmer=stemmer)
    return _blocks(*((u, 1.0) for u in units))


def test_echo_takes_a_lead_in_showing_the_question_s_command_for_a_restated_question():
    # The best block restates the question with the command it asks about; the error message, the
    # answer, is the code block after it (French dev set, shfr-001).
    text = ("Si nous essayons de supprimer le répertoire `thesis` en utilisant `rm thesis`, nous recevons "
            "un message d'erreur :\n\n```bash\n$ rm thesis\n```\n\n"
            "```error\nrm: cannot remove 'thesis': Is a directory\n```\n")
    blocks = _course_blocks(text, "fr")
    lead, error = (c.unit for c in blocks.candidates)
    assert lead.kind == "lead-in" and error.kind == "code"
    ctx = _course_ctx("Quel message d'erreur affiche rm si j'essaie de supprimer le répertoire thesis sans option ?", "fr")
    assert echo([lead], blocks, ctx) == [lead, error]
    other = _course_ctx("Comment créer un fichier vide avec touch ?", "fr")
    assert echo([lead], blocks, other) == [lead]  # not a restatement of that question
    code_first = _blocks((error, 1.0), (lead, 0.5))
    assert echo([error], code_first, ctx) == [error]  # a code block alone is an answer, never an echo


def test_after_example_brings_the_sentence_that_says_what_the_example_shows():
    text = ("Es una mala idea intentar redireccionar la salida de un comando que opera en un archivo, al mismo "
            "archivo. Por ejemplo:\n\n```bash\n$ sort -n lengths.txt > lengths.txt\n```\n\n"
            "Hacer algo como esto puede regresar resultados incorrectos y/o eliminar el contenido de `lengths.txt`.\n")
    blocks = _course_blocks(text, "es")
    idea, example, result = (c.unit for c in blocks.candidates)
    assert example.kind == "lead-in" and result.kind == "sentence"
    ctx = _course_ctx("¿Qué pasa si mando la salida de sort al mismo archivo que estoy ordenando?", "es")
    assert after_example([idea, example], blocks, ctx) == [idea, example, result]
    # a lead-in that says something itself is not an example's introduction
    said = replace(example, text="Para ordenar el archivo por números y guardar el resultado, escribe:\n\n"
                                 "```bash\n$ sort -n a\n```")
    assert after_example([said], _blocks((said, 1.0), (result, 0.1)), ctx) == [said]


def test_follows_on_brings_the_example_a_pointing_back_sentence_shows():
    text = ('Para restringir los aciertos a las líneas que contienen la palabra "The" por sí sola, podemos usar '
            "`grep` con el indicador `-w`. Esto limitará las coincidencias a palabras.\n\n"
            "```bash\n$ grep -w The haiku.txt\n```\n")
    blocks = _course_blocks(text, "es")
    tells, shows = (c.unit for c in blocks.candidates)
    assert tells.kind == "sentence" and shows.kind == "lead-in" and shows.text.startswith("Esto")
    assert follows_on([tells], blocks, _course_ctx("¿Qué hace la opción -w de grep?", "es")) == [tells, shows]
    # "Esto" points back only in the Spanish table: an English course does not read it so
    assert follows_on([tells], blocks, _course_ctx("What does grep -w do?", "")) == [tells]
    short = replace(SETTINGS, language="es", stemmer="spanish", passage_quote_chars=len(tells.text) + 10)
    assert follows_on([tells], blocks, RuleContext(make_query("grep -w"), short)) == [tells]


def test_points_back_reads_the_course_language_s_words():
    before, after = _unit("Le shell Unix n'a pas de corbeille.", 0), _unit("Cela signifie que rm est définitif.", 1)
    blocks = _blocks((before, 0.1), (after, 1.0))
    assert points_back([after], blocks, _course_ctx("rm", "fr")) == [after, before]
    assert points_back([after], blocks, _course_ctx("rm", "")) == [after]


def test_guide_question_brings_its_answer():
    asks, answers = _unit("So why does it work?", 0), _unit("The pull-up holds the pin high.", 1)
    blocks = _blocks((asks, 1.0), (answers, 0.0))
    assert guide_question([asks], blocks, _ctx()) == [asks, answers]
    tells = _unit("It works.", 0)
    assert guide_question([tells], _blocks((tells, 1.0), (answers, 0.0)), _ctx()) == [tells]


def test_points_back_brings_the_sentence_before_in_its_paragraph():
    before, after = _unit("Seaborn bootstraps a confidence interval.", 0), _unit("This can be disabled.", 1)
    blocks = _blocks((before, 0.1), (after, 1.0))
    assert points_back([after], blocks, _ctx()) == [after, before]
    elsewhere = replace(before, start=99)  # another paragraph
    assert points_back([after], _blocks((elsewhere, 0.1), (after, 1.0)), _ctx()) == [after]


def test_choose_blocks_runs_only_the_rules_switched_on():
    before, after = _unit("Seaborn bootstraps a confidence interval.", 0), _unit("This can be disabled.", 1)
    blocks = _blocks((before, 0.1), (after, 1.0))
    assert choose_blocks(blocks, _ctx()) == (before, after)
    off = replace(SETTINGS, rules=tuple(r for r in RULES if r != "points_back"))
    assert choose_blocks(blocks, _ctx(settings=off)) == (after,)


# --- the quotes as a whole -------------------------------------------------------------------

def test_heading_is_shown_unless_the_quote_holds_it():
    quotes = [Quote(_passage(), (_unit("Wire it.", heading="Wiring"),), ""),
              Quote(_passage(n=2), (_unit("Wiring comes first.", heading="Wiring"),), "")]
    assert [q.heading for q in heading(quotes, _ctx())] == ["Wiring", ""]


def test_duplicate_drops_a_quote_with_the_same_words():
    a = Quote(_passage(source="python.md"), (_unit("Read the CSV file."),), "")
    b = Quote(_passage(n=2, source="r.md"), (_unit("Read the CSV file."),), "")
    assert duplicate([a, b], _ctx()) == [a]


def test_repeats_drops_a_block_another_quote_shows_whole():
    line = "- Keep the wiring short and test every sensor on its own."
    long_list = _unit(f"{line}\n- Label every cable before you plug it in.", kind="item")
    a = Quote(_passage(), (_unit(line, kind="item"), _unit("Other words of this first quote here.", 1)), "")
    b = Quote(_passage(n=2), (long_list,), "")
    kept = repeats([a, b], _ctx())
    assert [q.units for q in kept] == [(a.units[1],), (long_list,)]
    assert repeats([a, b], _ctx(settings=replace(SETTINGS, repeat_line_chars=200))) == [a, b]


def test_partial_list_notes_a_list_that_goes_on_in_the_guide():
    guide = "Steps:\n\n1. Plug in.\n2. Flash.\n3. Reset.\n"
    chunk = "1. Plug in.\n2. Flash.\n"
    quote = Quote(_passage(chunk, start=guide.index("1.")), (_unit(chunk, kind="item"),), "")
    noted = partial_list([quote], _ctx("How many steps?", guide_text=lambda path: guide))
    assert noted[0].note == SETTINGS.partial_list_note
    assert partial_list([quote], _ctx("Which step?", guide_text=lambda path: guide)) == [quote]


def test_the_relevance_scorer_adds_the_model_probability_to_the_best_blocks_only():
    from app.answer.scorers import Candidate, PassageBlocks, RelevanceScorer

    units = [_unit("The onboard LED is on GPIO 2."), _unit("Blink it with a loop."), _unit("Other text.")]
    blocks = PassageBlocks(passage=None, candidates=tuple(Candidate(u, s) for u, s in zip(units, (0.9, 0.5, 0.1))))
    seen: list[str] = []

    def relevance(texts):
        seen.extend(texts)
        return [1.0 if "GPIO" in t else 0.0 for t in texts]

    settings = replace(SETTINGS, relevance_blocks=2, relevance_weight=0.5)
    added = RelevanceScorer(relevance, settings)(make_query("which pin is the LED on"), [blocks])
    assert added == [[0.5, 0.0, 0.0]]
    assert len(seen) == 2 and not any("Other text" in t for t in seen)  # only the two best blocks are read
