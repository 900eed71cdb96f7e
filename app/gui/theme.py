"""Colours and style sheets derived from the system palette, so dark and light both read well.

Nothing here hard-codes a light theme: text and backgrounds come from the palette, and the
two colours Lantern adds (the passage highlight and the matched-word mark) are chosen for the
palette's lightness, each with an explicit text colour so the contrast never depends on
what the theme's text colour happens to be.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette


def is_dark(palette: QPalette) -> bool:
    """True when the window background is darker than its text (a dark theme)."""
    return palette.color(QPalette.ColorRole.Window).lightness() < palette.color(QPalette.ColorRole.WindowText).lightness()


def highlight_colors(palette: QPalette) -> tuple[QColor, QColor]:
    """``(background, text)`` of a highlighted passage: pale yellow with black text in light
    themes, deep amber with white text in dark ones (both above WCAG AA contrast, 4.5:1)."""
    if is_dark(palette):
        return QColor("#7a5c00"), QColor("#ffffff")
    return QColor("#fff3a3"), QColor("#000000")


def mark_colors(palette: QPalette) -> tuple[str, str]:
    """``(background, text)`` CSS colours of a matched word in a search snippet."""
    background, text = highlight_colors(palette)
    return background.name(), text.name()


def answer_style(palette: QPalette) -> str:
    """Default style sheet of the answer document (links take the palette's link colour)."""
    link = palette.color(QPalette.ColorRole.Link).name()
    code = palette.color(QPalette.ColorRole.AlternateBase).name()
    return (f"a {{ color: {link}; font-weight: bold; text-decoration: none; }} p {{ margin-bottom: 8px; }} "
            f"pre, code {{ font-family: monospace; background-color: {code}; }}")


def guide_style(palette: QPalette) -> str:
    """Default style sheet of a rendered guide (code and table header on the alternate base)."""
    code = palette.color(QPalette.ColorRole.AlternateBase).name()
    header = palette.color(QPalette.ColorRole.Button).name()
    link = palette.color(QPalette.ColorRole.Link).name()
    return ("h1 { font-size: x-large; } h2 { font-size: large; margin-top: 14px; } "
            f"a {{ color: {link}; }} pre, code {{ font-family: monospace; background-color: {code}; }} "
            f"table {{ border-collapse: collapse; }} th, td {{ padding: 3px 6px; }} th {{ background-color: {header}; }}")


def muted_text(palette: QPalette) -> str:
    """CSS colour for secondary text (the answer state): the palette's placeholder text colour."""
    return palette.color(QPalette.ColorRole.PlaceholderText).name()


def warning_text(palette: QPalette) -> str:
    """CSS colour for a degraded state: a red readable on the palette's window colour."""
    return "#ff8a80" if is_dark(palette) else "#a51d2d"
