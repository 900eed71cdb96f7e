"""Answer blocks: the extractive answer quotes the unit that carries the fact (issue 11, section 2)."""

import pytest

from app.answer.blocks import header_before, is_link_only, passage_units, plain_reference_links
from app.answer.extractive import choose_quotes, extractive_answer, question_kind
from app.answer.scorers import has_value
from app.records import Hit, Passage
from app.text.lexical import LexicalIndex, build_index


def _passage(text: str, n: int = 1, heading: str = "Course › Lesson", source: str = "g.md",
             start: int = 0, score: float = 1.0) -> Passage:
    return Passage(n, Hit.make(chunk_id=n, key=f"{source}#a:{n}", source=source, heading=heading, anchor="a",
                               span=(start, start + len(text)), text=text, score=score))


PRINCIPLES = """## Design principles

The course emphasises the following principles:

- Keep the wiring short.
- Test every sensor on its own first.
- Label every cable.
"""


def test_a_lead_in_is_quoted_with_the_list_it_introduces():
    answer, _ = extractive_answer("Which principles does the course emphasise?", [_passage(PRINCIPLES)])
    assert "emphasises the following principles:" in answer and "- Label every cable." in answer


def test_the_heading_is_shown_when_it_names_what_the_quote_describes():
    text = "## Shadow IT\n\nStaff install tools the IT department never approved, so nobody patches them.\n"
    answer, _ = extractive_answer("What is that idea called when staff install unapproved tools?",
                                  [_passage(text, heading="Risks › Shadow IT")])
    assert "Shadow IT" in answer


def test_how_questions_get_the_command_not_the_background():
    text = ("Cloud resources cost money while they run, and the free tier has limits.\n\n"
            "To remove everything, run this command:\n\n```sh\naz group delete --name lab\n```\n")
    assert question_kind("How do I remove everything?") == "how"
    answer, _ = extractive_answer("How do I remove everything from the cloud?", [_passage(text)], per_passage=1)
    assert "az group delete --name lab" in answer


def test_a_how_question_after_a_clause_of_context_still_asks_for_the_fix():
    # Students set the scene first ("In my app, X happens. What fixes it?"); only a question opening
    # with "how" used to count, so the background sentence beat the code block that fixes it.
    for question in ("After writing my .gitignore, how do I check which files are ignored?",
                     "In my one-page app the Back button changes the address but not the screen. What fixes it?",
                     "I compile for ES5 and the loop is rejected. Why, and is there a compiler option for it?"):
        assert question_kind(question) == "how", question
    # a quantity is not a procedure
    assert question_kind("What is it set to by default, and how far can I change it?") != "how"
    text = ("If you press Back, the address changes but the same page stays on screen.\n\n"
            "We'll fix that at the bottom of `app.js`:\n\n```js\nwindow.onpopstate = () => show();\n```\n")
    answer, _ = extractive_answer("In my app, pressing Back changes the address but the page stays the same. "
                                  "What fixes it?", [_passage(text)], per_passage=1)
    assert "window.onpopstate" in answer


def test_a_which_one_question_gets_the_block_with_the_values():
    text = ("## Picking the pull-up\n\nThe pull-up keeps the button pin from floating when the button is open.\n\n"
            "| Pull-up | Current when pressed |\n| --- | --- |\n| 4.7 kΩ | 0.7 mA |\n| 10 kΩ | 0.33 mA |\n")
    assert question_kind("Which pull-up should I put on the button pin?") == "value"
    assert question_kind("What is the timeout set to by default?") == "value"
    assert question_kind("How long does the battery last?") == "value"  # a quantity, not steps
    answer, _ = extractive_answer("Which pull-up should I put on the button pin?",
                                  [_passage(text, heading="Buttons › Picking the pull-up")])
    assert "10 kΩ" in answer
    # digits in a link target or a list number are not values
    assert not has_value("1. See [the manual](https://example.org/m2x9) for details")


def test_a_list_of_questions_is_never_quoted_as_an_answer():
    # A lesson's "Questions" box and an exercise's prompts ask; the answer is elsewhere.
    text = ("- How can I plot my data?\n- How can I save my plot for publishing?\n\n"
            "Identify the following in the plot:\n\n1. Which axis shows the year?\n2. What does the colour show?\n\n"
            "Save a plot with `plt.savefig('my_plot.png')` before you call `plt.show()`.\n")
    answer, _ = extractive_answer("How can I save my plot?", [_passage(text)])
    assert "plt.savefig" in answer
    assert "How can I save my plot for publishing?" not in answer and "Which axis" not in answer
    # an item that tells something and then asks is not only a question
    broker = "- The broker listens on port 1883 by default, but have you opened that port in the firewall?\n"
    answer, _ = extractive_answer("Which port does the broker listen on by default?", [_passage(broker)])
    assert "port 1883" in answer


def test_a_one_item_list_introduces_the_code_under_it():
    # The Carpentries' lessons write "- For example, …" and then the code the bullet is about.
    text = ("## Styles\n\n- For example, draw the bars in a fancier style.\n\n"
            "```python\nplt.style.use('ggplot')\ndata.plot(kind='bar')\n```\n\n"
            "- Colours can be changed too.\n")
    answer, _ = extractive_answer("How do I get the fancier style?", [_passage(text)], per_passage=1)
    assert "fancier style.\n\n```python\nplt.style.use('ggplot')" in answer


def test_link_only_lines_are_never_quoted():
    assert is_link_only("[Lesson 2](../2/README.md) · [Lesson 3](../3/README.md)")
    text = "[Next lesson](next.md) [Quiz](https://example.org/quiz)\n\nThe late penalty is 10% per day late.\n"
    answer, _ = extractive_answer("What is the late penalty per day?", [_passage(text)])
    assert "10% per day late." in answer and "Next lesson" not in answer


def test_short_and_cjk_sentences_are_quotable():
    units = passage_units("10% per day late.\n\n提交作业的截止时间是周五。\n")
    assert [u.text for u in units] == ["10% per day late.", "提交作业的截止时间是周五。"]


def test_a_table_row_is_quoted_with_its_header_also_when_the_chunk_starts_inside_the_table():
    guide = ("| Pin | Use |\n| --- | --- |\n" + "".join(f"| GPIO {i} | spare |\n" for i in range(30))
             + "| GPIO 34 | LED_PIN input only |\n")
    start = guide.index("| GPIO 20")
    chunk = guide[start:]
    assert header_before(guide, start) == ["| Pin | Use |", "| --- | --- |"]
    answer, _ = extractive_answer("What is GPIO 34 used for?", [_passage(chunk, start=start)],
                                  guide_text=lambda path: guide)
    assert "| Pin | Use |" in answer and "| GPIO 34 | LED_PIN input only |" in answer
    assert "GPIO 3 |" not in answer  # the row asked about, not the whole table
    assert "LED_PIN" in answer  # code names keep their underscores


def test_a_table_without_outer_pipes_is_quoted_row_by_row_with_its_header_when_a_chunk_starts_inside_it():
    # GFM allows rows without the outer pipes ("a | b"); a chunk starting inside such a table used
    # to be read as prose, and its rows were run together into one paragraph.
    guide = ("Option | Meaning\n--- | ---\n" + "".join(f"`Mode{i}` | polls every {i} s\n" for i in range(20))
             + "default | polls every 250 ms when nothing is set\n")
    start = guide.index("`Mode10`")
    answer, _ = extractive_answer("What is done by default when nothing is set?", [_passage(guide[start:], start=start)],
                                  guide_text=lambda path: guide)
    assert "Option | Meaning\n--- | ---\ndefault | polls every 250 ms when nothing is set" in answer
    assert "`Mode10` |" not in answer


def test_an_error_line_is_quoted_with_the_solution_that_follows_it():
    text = ("### Compilation errors\n\n**Error:** `fatal error: Arduino.h: No such file or directory`\n\n"
            "**Solution:** delete the `.pio` folder and run PlatformIO: Rebuild.\n")
    answer, _ = extractive_answer("fatal error: Arduino.h: No such file or directory, how do I fix it?",
                                  [_passage(text)], per_passage=1)
    assert "PlatformIO: Rebuild" in answer


def test_a_sentence_that_points_back_is_quoted_with_the_sentence_it_points_to():
    text = ("The line chart draws a shaded 95% confidence interval around the mean of each year. "
            "This slow behavior can be disabled by adding `ci=None`.\n")
    answer, _ = extractive_answer("What does adding ci=None change?", [_passage(text)], per_passage=1)
    assert "95% confidence interval" in answer and "`ci=None`" in answer


def test_a_code_token_of_the_question_picks_the_block_holding_it_verbatim():
    # A table too large to be quoted whole (see the small-table test): one row is chosen.
    text = ("| Symbol | Description |\n| --- | --- |\n"
            + "".join(f"| `op{i}` | Operator number {i}: compares two numbers |\n" for i in range(8))
            + "| `!==` | Inequality: the opposite of a strict equality operator's result |\n"
            "| `===` | Strict equality: true when both values are equal and of the same data type |\n")
    answer, _ = extractive_answer("What extra thing does the === operator check compared with equality?",
                                  [_passage(text)], per_passage=1)
    assert "same data type" in answer and "`!==`" not in answer


def test_a_question_the_guide_asks_is_quoted_with_the_answer_that_follows():
    text = ("But wait: our web app runs on `localhost:3000` whereas the server API runs on `localhost:5000`, "
            "so why does it work? The server sends CORS headers that let other origins in.\n")
    answer, _ = extractive_answer("My page and the API use different ports on localhost; why does the browser allow it?",
                                  [_passage(text)], per_passage=1)
    assert "CORS headers" in answer


def test_the_same_words_in_two_guides_are_quoted_once():
    text = "The donut chart shows how a whole splits into parts.\n"
    answer, cited = extractive_answer("Which chart shows how a whole splits into parts?",
                                      [_passage(text, 1, source="py.md"), _passage(text, 2, source="r.md")])
    assert answer.count("donut chart") == 1 and [p.n for p in cited] == [1]


def test_source_excerpts_keep_underscores_in_code_names():
    from app.gui.passage_text import excerpt

    text = "Check that the number in `LED_PIN` matches **the pin** your _wire_ is on."
    assert excerpt(text) == "Check that the number in LED_PIN matches the pin your wire is on."


def test_a_lead_in_whose_list_the_chunker_put_in_the_next_chunk_is_quoted_with_it():
    guide = ("## Storing data\n\nCold data costs less to keep than hot data. "
             "These aspects of a storage system affect the choice:\n\n"
             "- how often the data is read\n- how fast it must come back\n\n## Next\n\nSomething else.\n")
    chunk = guide[:guide.index("- how often")]  # the chunk ends at the colon
    answer, _ = extractive_answer("Which aspects of a storage system affect the choice?", [_passage(chunk)],
                                  guide_text=lambda path: guide)
    assert "affect the choice:" in answer and "- how fast it must come back" in answer
    assert "Something else" not in answer  # only the block the lead-in introduces
    without, _ = extractive_answer("Which aspects of a storage system affect the choice?", [_passage(chunk)])
    assert "- how often" not in without  # no guide text: nothing is made up


def test_a_chunk_ending_at_a_line_end_is_not_continued_into_the_next_line():
    guide = "## Wiring\n\nThe LED goes on GPIO 2.\n1. Solder the header to the board now.\n"
    chunk = guide[:guide.index("1. Solder")]
    answer, _ = extractive_answer("Which pin does the LED go on?", [_passage(chunk)], guide_text=lambda path: guide)
    assert "GPIO 2" in answer and "Solder" not in answer


def test_a_colon_leading_to_a_paragraph_is_quoted_with_it_and_a_colon_leading_nowhere_is_not_quoted():
    text = ("## Storage\n\nStorage choices depend on these aspects of a system:\n\n"
            "**Cloud or on premise.** Cloud storage costs per month instead of up front.\n")
    answer, _ = extractive_answer("Which aspects of a storage system matter?", [_passage(text)])
    assert "these aspects of a system:" in answer and "Cloud storage costs per month" in answer
    html = "## Storage\n\nThe storage system has these aspects:\n\n<ul><li>cost</li></ul>\n\nStorage costs money.\n"
    answer, _ = extractive_answer("Which aspects does the storage system have?", [_passage(html)])
    assert "these aspects:" not in answer and "Storage costs money." in answer


def test_a_list_completed_from_the_guide_is_not_called_partial_when_counting():
    guide = ("## Principles\n\nThe course emphasises these principles:\n\n"
             "- Keep the wiring short.\n- Test every sensor on its own first.\n- Label every cable.\n\n"
             "## Next\n\nSomething else.\n")
    chunk = guide[:guide.index("- Keep")]
    answer, _ = extractive_answer("How many principles does the course emphasise?", [_passage(chunk)],
                                  guide_text=lambda path: guide)
    assert "- Label every cable." in answer and "Only part of the list" not in answer


def test_a_reference_style_link_is_quoted_as_its_text_and_code_brackets_are_kept():
    text = ("Install the tools from [the setup page][setup] before the first lab.\n\n"
            "Index a grid with `grid[row][col]` in the loop.\n")
    answer, _ = extractive_answer("What should I install before the first lab?", [_passage(text)])
    assert "from the setup page before" in answer and "[setup]" not in answer
    units = passage_units(text)
    assert "`grid[row][col]`" in units[1].text


def test_a_small_table_is_quoted_whole_and_a_large_one_row_by_row():
    small = ("## Wiring\n\n| DHT11 pin | Connect to |\n| --- | --- |\n| 1: VCC | 3V3 |\n| 2: DATA | GPIO 4 |\n"
             "| 3: not used | nothing |\n| 4: GND | GND |\n")
    answer, _ = extractive_answer("Which pins does the DHT11 connect to?", [_passage(small)])
    assert "| 2: DATA | GPIO 4 |" in answer and "| 4: GND | GND |" in answer and "| 1: VCC | 3V3 |" in answer
    assert [u.kind for u in passage_units(small)] == ["table"]
    large = "| Pin | Use |\n| --- | --- |\n" + "".join(f"| GPIO {i} | spare |\n" for i in range(12))
    units = passage_units(large)
    assert [u.kind for u in units] == ["row"] * 12 and units[3].text == "| Pin | Use |\n| --- | --- |\n| GPIO 3 | spare |"


@pytest.mark.timeout(10)  # linear: milliseconds; the quadratic patterns took 4 s to a minute
def test_link_patterns_stay_linear_on_100_kb_runs_of_brackets():
    # "[[[…" and "[a](…" took from 4 s to a minute with the first link patterns (every "[" scanned to
    # the end of the text); each must still be read as what it is.
    assert not is_link_only("[" * 100_000 + "x")
    assert not is_link_only("[a](" * 30_000 + "words here")
    assert plain_reference_links("[" * 100_000 + "][") == "[" * 100_000 + "]["
    assert plain_reference_links("see [the guide][g] " + "[a" * 50_000).startswith("see the guide ")


def test_a_rare_question_word_outweighs_common_ones_when_words_are_weighted_by_idf():
    # Both paragraphs hold two question words. "project" and "team" are in every chunk of this
    # course; "consent" and "forms" in one. Counted alike, the earlier paragraph wins the tie; weighted
    # by the course's IDF, the paragraph that answers wins.
    text = ("The project team shares its data in the project folder.\n\n"
            "Do not store consent forms with the data; use a locked cabinet.\n")
    course = [text, "The project team meets weekly.", "Every project team writes a plan.",
              "A project team picks a licence."]
    index = LexicalIndex(build_index(course))
    question = "Where should the project team put the consent forms?"
    plain = choose_quotes(question, [_passage(text)], per_passage=1)
    weighted = choose_quotes(question, [_passage(text)], per_passage=1, word_weight=index.idf)
    assert "project folder" in plain[0].text
    assert "locked cabinet" in weighted[0].text and "project folder" not in weighted[0].text


def test_a_long_code_block_shows_the_lines_the_question_asks_about():
    body = "\n".join(f"  reading[{i}] = sample({i});" for i in range(30))
    body = body.replace("  reading[24] = sample(24);", "  watchdog_arm(8000);  // the watchdog resets the board after 8 seconds")
    text = "The full sketch:\n\n```c\nvoid setup() {\n" + body + "\n}\n```\n"
    answer, _ = extractive_answer("After how long does the watchdog reset the board?", [_passage(text)])
    assert "after 8 seconds" in answer
    assert "reading[0]" not in answer and "…" in answer  # cut before and after, and said so


def test_a_code_window_from_the_middle_of_a_function_names_the_function_and_shows_what_follows_a_comment():
    body = "\n".join(f"    total += weights[{i}];" for i in range(30))
    body += "\n    // the sensor needs a 20 ms pause after waking\n    delay_ms(20);\n    start_reading();"
    body += "\n" + "\n".join(f"    report({i});" for i in range(10))
    text = "The full sketch:\n\n```c\nvoid wake_sensor(void) {\n" + body + "\n}\n```\n"
    answer, _ = extractive_answer("How long must the sensor pause after waking?", [_passage(text)])
    assert "void wake_sensor(void) {\n…\n" in answer  # the function the lines belong to
    assert "after waking\n    delay_ms(20);" in answer  # the line the comment is about
    assert "weights[0]" not in answer


def test_a_long_list_shows_the_items_the_question_asks_about():
    items = "\n".join(f"- Step {i}: tidy shelf {i}." for i in range(1, 12)).replace(
        "Step 11: tidy shelf 11.", "Step 11: label the freezer boxes.")
    answer, _ = extractive_answer("When do I label the freezer boxes?",
                                  [_passage("Closing the lab takes these steps:\n\n" + items + "\n")])
    assert "label the freezer boxes" in answer and "- …" in answer and "Step 1:" not in answer


def test_a_block_two_overlapping_chunks_both_hold_is_quoted_once():
    rule = "- Keep every signed consent form in a locked cabinet, away from the study data.\n"
    first = "## Consent\n\nConsent forms follow these rules:\n\n" + rule + "- Give each participant a copy of the signed form.\n"
    second = "## Consent\n\n" + rule + "\nThe consent form is signed before the first interview starts.\n"
    quotes = choose_quotes("Where do I keep the signed consent forms?",
                           [_passage(first, 1), _passage(second, 2, start=40)])
    shown = "\n".join(q.markdown for q in quotes)
    assert shown.count("locked cabinet") == 1
    assert "before the first interview" in shown  # the other block of the second chunk is still quoted


def test_a_long_numbered_list_cut_before_the_asked_item_marks_the_cut_outside_the_list():
    steps = "\n".join(f"{i}. Wipe bench {i}." for i in range(1, 13)).replace("11. Wipe bench 11.", "11. Lock the freezer.")
    answer, _ = extractive_answer("When do I lock the freezer?", [_passage("Closing takes these steps:\n\n" + steps + "\n")])
    assert "…\n\n4. Wipe bench 4." in answer and "11. Lock the freezer." in answer and "- …" not in answer


def test_code_inside_a_four_backtick_fence_keeps_its_brackets():
    # A guide showing Markdown puts a three-backtick block inside a four-backtick fence; the old
    # fence pattern closed the code at the inner "```" and read ``m[i][j]`` as a reference link.
    text = "````md\n```python\nx = m[i][j]\n```\n````\n"
    assert plain_reference_links(text) == text
    assert plain_reference_links("See [the guide][g].\n\n~~~~\nm[i][j]\n~~~~\n") == "See the guide.\n\n~~~~\nm[i][j]\n~~~~\n"
    assert "m[i][j]" in passage_units("The matrix is read like this:\n\n" + text)[0].text
