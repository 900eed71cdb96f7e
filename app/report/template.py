"""The Jinja2 template of the HTML report (rendered with autoescaping on: every value is escaped
unless marked safe, and nothing here is)."""

REPORT_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lantern report{% if s.course %}: {{ s.course }}{% endif %}</title>
<style>
body { font-family: sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
img.chart { width: 100%; max-width: 50rem; height: auto; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
td.n { text-align: right; } .muted { color: #555; } .topic { margin: 1rem 0; }
.topic h3 { font-size: 1.05rem; margin: 0; } .topic ul { margin: .25rem 0; }
.totals span { display: inline-block; margin-right: 1.5rem; }
</style>
</head>
<body>
<h1>What students asked{% if s.course %} in {{ s.course }}{% endif %}</h1>
<p class="muted">{{ s.questions }} question{{ '' if s.questions == 1 else 's' }}{% if s.since %} since {{ s.since }}{% endif %}
{%- if s.courses %}, course{{ '' if s.courses|length == 1 else 's' }} {{ s.courses|join(', ') }}{% endif %}.
Report made {{ s.generated }} by Lantern. No names, machine names or times of day are kept; questions are shown as typed.</p>
<p class="totals">
{% for g in groups %}<span><strong>{{ s.totals[g] }}</strong> {{ g }}</span>{% endfor %}
<span><strong>{{ s.helped.yes }}</strong> helped</span><span><strong>{{ s.helped.no }}</strong> did not help</span>
</p>

<h2>What the guides did not cover</h2>
<p>Questions the guides did not cover, and replies a student said did not help, grouped by the terms the guides
never mention and by shared words. The biggest groups are the best places to add to the guides.</p>
{% if charts.topics %}
<img class="chart" src="{{ charts.topics }}" alt="Bar chart of the topics below and their counts">
{% endif %}
{% for t in topics %}
<div class="topic">
<h3>{{ t.label }} <span class="muted">({{ t.count }} question{{ '' if t.count == 1 else 's' }}
{%- if t.missing %}; the guides never mention this{% endif %})</span></h3>
<ul>{% for q in t.examples() %}<li>{{ q }}</li>{% endfor %}</ul>
</div>
{% else %}
<p class="muted">None: every question was covered and no reply was marked as unhelpful.</p>
{% endfor %}

<h2>Guides cited most and least</h2>
{% if charts.most %}<img class="chart" src="{{ charts.most }}" alt="Bar chart of the guides cited most">{% endif %}
{% if charts.least %}<img class="chart" src="{{ charts.least }}" alt="Bar chart of the guides cited least">{% endif %}
<table><caption>Citations per guide (most cited first, then least cited)</caption>
<tr><th>Guide</th><th>Citations</th></tr>
{% for g, n in s.cited_most %}<tr><td>{{ g }}</td><td class="n">{{ n }}</td></tr>{% endfor %}
{% for g, n in s.cited_least if (g, n) not in s.cited_most %}<tr><td>{{ g }}</td><td class="n">{{ n }}</td></tr>{% endfor %}
</table>
{% if not s.cited_most %}<p class="muted">No reply cited a guide.</p>{% endif %}

<h2>Week by week</h2>
{% if charts.weeks %}<img class="chart" src="{{ charts.weeks }}" alt="Stacked bar chart of questions per week">{% endif %}
<table><caption>Questions per week (weeks start on Monday)</caption>
<tr><th>Week of</th>{% for g in groups %}<th>{{ g }}</th>{% endfor %}</tr>
{% for week, counts in s.weeks.items() %}
<tr><td>{{ week }}</td>{% for g in groups %}<td class="n">{{ counts[g] }}</td>{% endfor %}</tr>
{% endfor %}
</table>
</body>
</html>
"""
