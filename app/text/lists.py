"""Numbered lists in quoted Markdown: each item keeps the number the guide gave it."""

from __future__ import annotations

from markdown_it.token import Token


def keep_item_numbers(tokens: list[Token]) -> list[Token]:
    """``tokens`` with each numbered list cut where its items' own numbers skip, the next part
    opening at its first item's number (``<ol start="4">``): a quote of steps 1 and 4 of a guide's
    list shows 1 and 4, not 1 and 2 as HTML numbers a list's items in turn. Qt's rich text and
    browsers both honour ``start``."""
    out: list[Token] = []
    lists: list[list] = []  # the numbered lists open around the token: [opening token, next number]
    for token in tokens:
        if token.type == "ordered_list_open":
            lists.append([token, None])
        elif token.type == "ordered_list_close" and lists:
            lists.pop()
        elif (token.type == "list_item_open" and lists and token.level == lists[-1][0].level + 1
              and token.info.isdigit()):
            number, opening = int(token.info), lists[-1][0]
            if lists[-1][1] is not None and number != lists[-1][1]:
                out.append(Token("ordered_list_close", "ol", -1, level=opening.level, markup=opening.markup,
                                 block=True))
                out.append(Token("ordered_list_open", "ol", 1, level=opening.level, markup=opening.markup,
                                 block=True, attrs={"start": str(number)}))
            lists[-1][1] = number + 1
        out.append(token)
    return out
