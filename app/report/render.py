"""The instructor's report in three formats: one self-contained HTML file, CSV, and JSON.

The HTML file needs nothing else to open (no web font, script or style sheet from a network,
and a Content-Security-Policy that forbids loading any): its charts are SVG drawn by pygal and
embedded as ``data:`` images, which a browser never lets run a script or fetch anything. Every
text that came from a student (questions) or a guide (paths) is HTML-escaped by Jinja2's
autoescaping; the charts carry only counts, dates, guide paths and topic words, escaped by the
SVG writer. Each chart has a table of the same numbers under it, for screen readers and print.

CSV cells that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``,
tab or carriage return) get a leading apostrophe.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import io
import json
from collections import Counter
from collections.abc import Mapping

from .log import REPLY_GROUPS, LoggedQuestion
from .topics import Topic, group_topics, needs_attention

#: The reply groups in the order the report lists them.
GROUPS = ("answered", "from the guides", "not covered", "declined")
#: Guides listed in "cited most" and "cited least"; topics drawn in the chart.
TOP_GUIDES = 10
TOP_TOPICS = 15


def summarize(rows: list[LoggedQuestion], *, course: str | None = None, since: dt.date | None = None,
              guides: tuple[str, ...] = (), languages: Mapping[str, str] | None = None) -> dict:
    """The report's numbers: ``totals`` per reply group, ``helped`` (yes / no / unanswered),
    ``weeks`` (Monday's date -> counts per group), ``cited_most`` / ``cited_least`` (guide, count),
    ``topics`` (:class:`~app.report.topics.Topic` of the questions that need attention). ``guides`` are
    the course's guide paths when its bundle is on this PC: those never cited count 0 in ``cited_least``.
    ``languages`` (course id -> language tag, of the courses installed on this PC) is the language each
    course's questions are grouped into topics in; a course not in it is read in the language logged
    with each question, else English (:func:`~app.report.topics.group_topics`)."""
    totals = Counter(r.group for r in rows)
    weeks: dict[str, Counter] = {}
    for row in rows:
        day = dt.date.fromisoformat(row.day)
        weeks.setdefault((day - dt.timedelta(days=day.weekday())).isoformat(), Counter())[row.group] += 1
    cited = Counter(path for r in rows for path in r.cited)
    cited.update({path: 0 for path in guides if path not in cited})
    ranked = sorted(cited.items(), key=lambda item: (-item[1], item[0]))
    return {
        "course": course, "since": since.isoformat() if since else None,
        "generated": dt.date.today().isoformat(), "questions": len(rows),
        "courses": sorted({r.course_id for r in rows}),
        "totals": {g: totals.get(g, 0) for g in GROUPS},
        "helped": {"yes": sum(r.helped is True for r in rows), "no": sum(r.helped is False for r in rows),
                   "unanswered": sum(r.helped is None for r in rows)},
        "weeks": {week: {g: weeks[week].get(g, 0) for g in GROUPS} for week in sorted(weeks)},
        "cited_most": [item for item in ranked[:TOP_GUIDES] if item[1] > 0],
        "cited_least": sorted(ranked[-TOP_GUIDES:], key=lambda item: (item[1], item[0])) if ranked else [],
        "topics": group_topics([r for r in rows if needs_attention(r)], languages),
    }


def report_json(rows: list[LoggedQuestion], **filters) -> str:
    """The report as one JSON document: the summary, the topics and every question."""
    summary = summarize(rows, **filters)
    summary["topics"] = [t.as_json() for t in summary["topics"]]
    summary["cited_most"] = [{"guide": g, "count": n} for g, n in summary["cited_most"]]
    summary["cited_least"] = [{"guide": g, "count": n} for g, n in summary["cited_least"]]
    return json.dumps({"format": "lantern-report", **summary, "rows": [r.as_json() for r in rows]},
                      ensure_ascii=False, indent=1)


CSV_COLUMNS = ("day", "course_id", "course_version", "reply", "state", "question", "missing_terms", "cited",
               "helped", "id")


def csv_cell(value: str) -> str:
    """``value`` made safe for a spreadsheet: a leading apostrophe when it would start a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def report_csv(rows: list[LoggedQuestion]) -> str:
    """One line per question (:data:`CSV_COLUMNS`); lists are joined with ``; ``."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        helped = "" if r.helped is None else ("yes" if r.helped else "no")
        writer.writerow([csv_cell(v) for v in (r.day, r.course_id, r.course_version, r.group, r.state, r.question,
                                                "; ".join(r.missing_terms), "; ".join(r.cited), helped, r.id)])
    return out.getvalue()


def _svg_image(chart) -> str:
    """A pygal chart as a ``data:`` URI of its SVG (no script, no network: see the module doc)."""
    svg = chart.render(is_unicode=True)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _chart_config(title: str, **extra):
    import pygal
    from pygal.style import DefaultStyle

    style = DefaultStyle(font_family="sans-serif", background="white", plot_background="white")
    return pygal.Config(title=title, js=[], style=style, disable_xml_declaration=False,
                        show_legend=extra.pop("show_legend", False), print_values=True, print_zeroes=False, width=800,
                        height=extra.pop("height", 400), truncate_label=60, **extra)


def _bar_chart(title: str, pairs: list[tuple[str, int]], unit: str) -> str:
    import pygal

    chart = pygal.HorizontalBar(_chart_config(title, height=max(160, 80 + 32 * len(pairs))))
    chart.x_labels = [label for label, _n in reversed(pairs)]  # drawn from the bottom up: the first on top
    chart.add(unit, [n for _label, n in reversed(pairs)])
    return _svg_image(chart)


def _weeks_chart(weeks: dict[str, dict[str, int]]) -> str:
    import pygal

    chart = pygal.StackedBar(_chart_config("Questions per week, by reply", show_legend=True, legend_at_bottom=True,
                                           x_label_rotation=30))
    chart.x_labels = list(weeks)
    for group in GROUPS:
        chart.add(group, [weeks[w][group] for w in weeks])
    return _svg_image(chart)


def report_html(rows: list[LoggedQuestion], **filters) -> str:
    """The report as one self-contained HTML page (charts, tables, every question escaped)."""
    from jinja2 import Environment

    summary = summarize(rows, **filters)
    topics: list[Topic] = summary["topics"]
    charts = {
        "topics": _bar_chart("Questions not covered or that did not help, by topic",
                             [(t.label, t.count) for t in topics[:TOP_TOPICS]], "questions") if topics else "",
        "most": _bar_chart("Guides cited most", summary["cited_most"], "citations") if summary["cited_most"] else "",
        "least": _bar_chart("Guides cited least", summary["cited_least"], "citations") if summary["cited_least"] else "",
        "weeks": _weeks_chart(summary["weeks"]) if summary["weeks"] else "",
    }
    env = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    from .template import REPORT_TEMPLATE

    return env.from_string(REPORT_TEMPLATE).render(s=summary, topics=topics, charts=charts, groups=GROUPS,
                                                   reply_groups=REPLY_GROUPS, rows=rows)
