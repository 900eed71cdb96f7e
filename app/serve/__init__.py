"""``lantern serve``: Lantern in a browser, for the devices of a lab's network (issue 29).

A Starlette app over the same core as the window and the CLI (:mod:`app.serve.web`), run by
uvicorn (:mod:`app.serve.command`): the same ``search --json`` and ``ask --json`` documents, the
evidence first and then the verified sentences as server-sent events (:mod:`app.serve.asking`),
the guides as sanitised pages (:mod:`app.serve.pages`), the installed courses to pick from
(:mod:`app.serve.courses`), and its limits (:mod:`app.serve.limits`). Read-only, and bound to
127.0.0.1 unless ``--host`` says otherwise. It opens no window (it needs no display).
"""
