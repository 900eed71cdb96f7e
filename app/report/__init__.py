"""The instructor's report (issue 28): a local log of the questions students asked, without
their names, and the report of what the guides did not cover.

- :mod:`app.report.log`: the SQLite question log (WAL, retention, export, merge);
- :mod:`app.report.recorder`: whether the report is on, and the hook called when a reply finishes;
- :mod:`app.report.topics`: not-covered and "didn't help" questions grouped into topics;
- :mod:`app.report.render`: the report as one self-contained HTML file, CSV or JSON;
- :mod:`app.report.cli`: ``lantern report``;
- :mod:`app.report.feedback`: the window's "Helped" / "Didn't help" buttons and notice (Qt).

Nothing here touches the network or stores who asked.
"""
