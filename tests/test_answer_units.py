"""Typed answer units (issue 25): each unit's shape comes from markdown-it's tokens, not from its text."""

from app.answer.blocks import passage_units
from app.answer.shorten import MAX_CODE_LINES, shorten_code, shorten_list
from app.ingest.markdown import parse_blocks


def test_parse_blocks_gives_list_items_table_rows_and_code_lines():
    text = ("- a\n  more of a\n\n- b\n  1. x\n  2. y\n- c\n\n"
            "| A | B |\n|--|--|\n| 1 | 2 |\n| 3 | 4 |\n\n"
            "````py\nx = 1\n````\n\n```\nnever closed\n")
    items, table, fenced, unclosed = parse_blocks(text)
    assert [text[s:e] for s, e in items.parts] == ["- a\n  more of a", "- b\n  1. x\n  2. y", "- c"]
    assert items.numbered == (False, True, False) and not items.ordered
    assert text[slice(*table.header)] == "| A | B |\n|--|--|"  # a one-dash delimiter row is a table's too
    assert [text[s:e] for s, e in table.parts] == ["| 1 | 2 |", "| 3 | 4 |"]
    assert fenced.fence == "````" and [text[s:e] for s, e in fenced.parts] == ["x = 1"]
    assert unclosed.fence == "```" and [text[s:e] for s, e in unclosed.parts] == ["never closed"]
    numbered = parse_blocks("1. one\n2. two\n")[0]
    assert numbered.ordered and numbered.numbered == (True, True)


def test_a_unit_knows_its_list_its_table_and_its_code():
    text = ("Wire it up:\n\n1. Plug the sensor in.\n2. Power the board on.\n\n"
            "- Keep the cables short and tidy.\n- Label each of them.\n\n"
            "| Pin | Use |\n| --- | --- |\n| 2 | LED |\n\n```sh\nmake flash\n```\n\nIt blinks. 2) Then it stops.\n")
    lead_in, first, second, table, code, blinks, stops = passage_units(text)
    assert lead_in.kind == "lead-in" and lead_in.in_list and lead_in.numbered and lead_in.is_steps
    assert first.kind == "item" and first.list_span == second.list_span and not first.numbered
    assert first.in_list and not first.is_steps and first.list_span != lead_in.list_span
    assert table.kind == "table" and table.table_span == (text.index("| Pin"), text.index("| LED |") + 7)
    assert not table.in_list and table.list_span is None
    assert code.kind == "code" and code.fence == "```" and code.has_code and code.has_code_block
    assert not blinks.is_steps and stops.is_steps  # a sentence opening with a step number
    assert not first.has_code and not first.has_code_block


def test_a_shortened_block_says_so():
    items = "\n".join(f"- Step {i}: tidy shelf {i}." for i in range(1, 12))
    lead_in = passage_units("Closing takes these steps:\n\n" + items + "\n")[0]
    assert lead_in.shortened and lead_in.in_list
    short = passage_units("Closing takes these steps:\n\n- Tidy the bench.\n- Lock the door.\n")[0]
    assert not short.shortened


def test_a_long_code_block_in_a_four_backtick_fence_is_closed_with_its_own_fence():
    code = "\n".join(f"line_{i} = {i}" for i in range(MAX_CODE_LINES + 10))
    text = f"````python\n{code}\n````\n"
    shown = shorten_code(text, parse_blocks(text)[0])
    assert shown.startswith("````python\nline_0 = 0\n") and shown.endswith("\n…\n````")
    assert passage_units(text)[0].shortened


def test_a_long_indented_code_block_is_shown_without_a_made_up_fence():
    code = "\n".join(f"    step_{i}()" for i in range(MAX_CODE_LINES + 10))
    shown = shorten_code(code, parse_blocks(code)[0])
    assert shown.splitlines()[0] == "    step_0()" and shown.endswith("    …") and "```" not in shown


def test_a_long_numbered_list_marks_its_cut_apart_from_the_items():
    items = [f"{i}. Wipe bench {i}." for i in range(1, 13)]
    assert shorten_list(items, True, 3).startswith("…\n\n4. Wipe bench 4.")
    assert shorten_list([f"- item {i}" for i in range(12)], False, 0).endswith("- item 7\n- …")


def test_units_of_an_item_holding_paragraphs_belong_to_its_list():
    text = "- Set it up:\n\n  1. Open the lid.\n  2. Press reset.\n\n- Close the lid again afterwards.\n"
    lead_in, last = passage_units(text)
    assert lead_in.kind == "lead-in" and lead_in.numbered and lead_in.list_span == last.list_span == (0, len(text) - 1)
