"""HTML, PDF and plain-text guides (issue 6): read, chunked with headings, cited by span."""

from __future__ import annotations

import pytest

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.ingest.html import html_to_markdown
from app.ingest.markdown import myst_labels, unwrap_myst
from app.ingest.reader import read_course
from app.ingest.site_markup import blank_site_markup, expand_site_roots

from .fakes import FakeEmbedder, tiny_pdf

PAGE = """<!doctype html><html><head><title>Servo lab</title><style>p { color: red }</style>
<script>document.write("tracking")</script></head><body><nav><a href="/">Home</a> | <a href="/x">Lessons</a></nav>
<h1>Lesson 8: Servo</h1><p>A servo turns to an angle set by a <b>PWM</b> pulse &amp; holds it.</p>
<h2>Wiring</h2><p>Connect the signal wire to <code>GPIO 13</code>.</p><img src="../images/wiring.svg" alt="Servo wiring">
<ul><li>Red: 5&nbsp;V</li><li># brown: GND</li></ul>
<pre><code class="language-cpp">servo.attach(13);
if (angle &lt; 180) { servo.write(angle); }</code></pre>
<table><tr><th>Pin</th><th>Use</th></tr><tr><td>13</td><td>signal</td></tr></table>
</body></html>"""


def test_html_becomes_markdown_with_headings_code_lists_and_images():
    text = html_to_markdown(PAGE)
    assert text.startswith("# Lesson 8: Servo\n\nA servo turns to an angle set by a PWM pulse & holds it.")
    assert "## Wiring" in text and "`GPIO 13`" in text
    assert "```cpp\nservo.attach(13);\nif (angle < 180) { servo.write(angle); }\n```" in text
    assert "- Red: 5\u00a0V" in text and "- \\# brown: GND" in text  # escaped: not a heading
    assert "![Servo wiring](../images/wiring.svg)" in text
    assert "Pin | Use\n13 | signal" in text
    for dropped in ("tracking", "color: red", "Home", "Servo lab"):
        assert dropped not in text


def test_html_title_is_the_heading_when_there_is_no_h1_and_bad_html_does_not_raise():
    assert html_to_markdown("<title>Notes</title><p>Text").startswith("# Notes\n\nText")
    assert html_to_markdown("<p>unclosed <b>bold <pre>code") .strip().endswith("```")
    assert html_to_markdown("<script>only()</script>") == ""


def test_html_pdf_and_text_guides_are_built_into_the_bundle(course, tmp_path):
    (course / "lessons" / "servo.html").write_text(PAGE, encoding="utf-8")
    (course / "handout.pdf").write_bytes(tiny_pdf(["Servo handout", "Calibrate the servo with 500 us pulses."],
                                                  title="Servo handout"))
    (course / "notes.txt").write_text("Lab notes\n\nThe bench power supply is limited to 2 A.\n", encoding="utf-8")
    out = tmp_path / "b.sqlite"
    report = build_bundle(course, out, FakeEmbedder())
    assert not report.warnings
    bundle = BundleReader(out)
    kinds = {s.path: s.kind for s in bundle.sources()}
    assert kinds["lessons/servo.html"] == "html" and kinds["handout.pdf"] == "pdf" and kinds["notes.txt"] == "text"
    assert bundle.source_title("lessons/servo.html") == "Lesson 8: Servo"
    assert [h.anchor for h in bundle.headings("handout.pdf")] == ["servo-handout", "page-1"]
    rows = bundle._query("SELECT c.key, c.start, c.end, c.text, s.path FROM chunks c JOIN sources s "
                         "ON s.id = c.source_id WHERE s.kind IN ('html', 'pdf', 'text')")
    keys = {r[0] for r in rows}
    assert "lessons/servo.html#wiring:0" in keys and "handout.pdf#page-1:0" in keys and "notes.txt#:0" in keys
    for key, start, end, text, path in rows:  # spans index the stored (derived) text
        assert bundle.source_text(path)[start:end] == text
    assert bundle.asset("images/wiring.svg") is not None
    hits = bundle.fts_phrase("500 us pulses", 5)
    assert [bundle.chunks(hits)[h].source for h in hits] == ["handout.pdf"]


def test_unreadable_files_are_skipped_with_the_reason_and_the_build_goes_on(course, tmp_path):
    (course / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    (course / "scan.pdf").write_bytes(tiny_pdf([]))
    (course / "menu.html").write_text("<nav>Home</nav><script>x()</script>", encoding="utf-8")
    report = read_course(course)
    assert any(w.startswith("broken.pdf: the PDF could not be parsed") and w.endswith("skipped")
               for w in report.warnings)
    assert any(w.startswith("scan.pdf: the PDF has no text layer") for w in report.warnings)
    assert any(n.startswith("menu.html: HTML page without text") for n in report.notes)
    assert [d.path for d in report.documents] == ["lessons/blink.md", "lessons/oled.md"]
    assert build_bundle(course, tmp_path / "b.sqlite", FakeEmbedder()).sources == 2


def test_links_out_of_the_course_folder_and_binary_files_are_skipped(course, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:the password file of this machine\n", encoding="utf-8")
    (course / "sub").mkdir()
    (course / "sub" / "passwd.txt").symlink_to(secret)
    (course / "sub" / "inside.md").symlink_to(course / "lessons" / "blink.md")  # a link within the folder is fine
    (course / "bin.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (course / "wide.md").write_bytes("# Wide guide\n\nSaved as UTF-16 by a word processor.\n".encode("utf-16"))
    report = read_course(course)
    paths = [d.path for d in report.documents]
    assert "sub/passwd.txt" not in paths and "bin.md" not in paths
    assert "sub/inside.md" in paths and "wide.md" in paths
    assert any(w.startswith("sub/passwd.txt: a link to a file outside the course folder; skipped") for w in report.warnings)
    assert any(w.startswith("bin.md: looks like a binary file") for w in report.warnings)
    wide = next(d for d in report.documents if d.path == "wide.md")
    assert wide.text.startswith("# Wide guide") and "\ufffd" not in wide.text
    build_bundle(course, tmp_path / "b.sqlite", FakeEmbedder())
    reader = BundleReader(tmp_path / "b.sqlite")
    assert not reader.fts_phrase("password file", 5)


def test_images_the_guides_show_but_the_folder_lacks_are_reported(course, tmp_path):
    from app.bundle.plan import plan_course

    guide = course / "lessons" / "oled.md"
    guide.write_text(guide.read_text(encoding="utf-8") + "\n![Pinout](../images/pinout.png)\n"
                     "![Logo](https://example.org/logo.png)\n", encoding="utf-8")
    plan = plan_course(course, "checksum")
    assert list(plan.assets) == ["images/wiring.svg"]
    [warning] = [w for w in plan.warnings if "image" in w]
    assert warning.startswith("1 image the guides show is not in the course folder (first: images/pinout.png)")


def _encrypted_pdf(lines: list[str], user: str, owner: str) -> bytes:
    """``tiny_pdf(lines)`` encrypted with AES-256 by pypdf (which needs `cryptography` for it)."""
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(tiny_pdf(lines))))
    writer.encrypt(user_password=user, owner_password=owner, algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_password_protected_pdf_is_named_as_such_and_an_owner_password_only_pdf_opens(course, tmp_path):
    (course / "exam.pdf").write_bytes(_encrypted_pdf(["Exam answers", "Question one is B."], "secret", "teacher"))
    (course / "handout.pdf").write_bytes(_encrypted_pdf(["Servo handout", "Calibrate with 500 us pulses."],
                                                        "", "teacher"))  # printing restricted, no password to open
    report = read_course(course)
    assert [w for w in report.warnings if w.startswith("exam.pdf")] == [
        "exam.pdf: the PDF is password-protected; save a copy without the password (or export it again) "
        "and build again; skipped"]
    handout = next(d for d in report.documents if d.path == "handout.pdf")
    assert "Calibrate with 500 us pulses." in handout.text


def test_an_aes_pdf_without_the_cryptography_package_is_one_sentence(course, monkeypatch):
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    def missing(self, password):
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    (course / "handout.pdf").write_bytes(_encrypted_pdf(["Servo handout"], "", "teacher"))
    monkeypatch.setattr(PdfReader, "decrypt", missing)
    warnings = [w for w in read_course(course).warnings if w.startswith("handout.pdf")]
    assert warnings == ["handout.pdf: the PDF is AES-encrypted and this installation lacks the `cryptography` "
                        "package; reinstall Lantern; skipped"]


def test_an_aes_pdf_in_the_installed_app_points_to_the_source_install(course, monkeypatch):
    """The installer leaves cryptography out (build.spec): the sentence says where such a course can be built."""
    import sys

    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    def missing(self, password):
        raise DependencyError("cryptography>=3.1 is required for AES algorithm")

    (course / "handout.pdf").write_bytes(_encrypted_pdf(["Servo handout"], "", "teacher"))
    monkeypatch.setattr(PdfReader, "decrypt", missing)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    warnings = [w for w in read_course(course).warnings if w.startswith("handout.pdf")]
    assert warnings == ["handout.pdf: the PDF is AES-encrypted, which the installed app cannot read; build this "
                        "course with Lantern installed from source (`make setup`); skipped"]


def test_site_markup_lines_are_not_guide_text(tmp_path):
    # A Carpentries-style lesson: fenced-div call-outs, kramdown attribute lists and Liquid tags.
    (tmp_path / "lesson.md").write_text(
        "# Feedback\n\nAsk for feedback twice a day.\n\n"
        ":::::::::::::::::::::::::::::::::::::::  callout\n\n## Minute cards\n\n"
        "Learners write one good and one bad thing on a card.\n\n::::::::::::::::::::::::::::\n\n"
        "> Sticky notes show who needs help.\n{: .challenge}\n\n"
        "```bash\n:::\n{: .kept}\n```\n{: .language-bash}\n\n{% include links.md %}\n", encoding="utf-8")
    text = read_course(tmp_path).documents[0].text
    assert ":::" not in text.replace("```bash\n:::\n{: .kept}\n```", "")
    assert "{: .challenge}" not in text and "{% include" not in text and "{: .language-bash}" not in text
    assert "```bash\n:::\n{: .kept}\n```" in text  # code is left as it is
    assert "## Minute cards" in text and "Sticky notes show who needs help.\n\n" in text


def test_a_lessons_questions_and_objectives_boxes_are_not_guide_text(tmp_path):
    # The Carpentries Workbench opens each episode with its questions and objectives (a translated lesson
    # names them "objectifs"); quoted as evidence, they answered nothing (the French shell lesson's
    # objectives were quoted third for how to leave a command waiting for the keyboard).
    (tmp_path / "01-intro.md").write_text(
        "---\ntitle: Le shell\n---\n\n"
        "::::::::::::::::::::::::::::: objectifs\n\n- Expliquer comment le shell est lié au clavier.\n\n"
        "::::::::::::::::::::::::::::::::::::::::\n\n"
        ":::::::::::::::::::::::::::::: questions\n\n- Qu'est-ce qu'un shell ?\n\n"
        "::::::::::::::::::::::::::::::::::::::::\n\n"
        "## Le shell\n\nBash est le shell le plus courant.\n\n"
        "```markdown\n::: objectives\n- Kept: code is shown as written.\n:::\n```\n\n"
        ":::::::::::::::::::::::::::::: keypoints\n\n- Le shell lit des commandes.\n\n"
        "::::::::::::::::::::::::::::::::::::::::\n\n"
        "::: {.objectives}\n- Never closed, so it runs to the end.\n", encoding="utf-8")
    text = read_course(tmp_path).documents[0].text
    assert "clavier" not in text and "Qu'est-ce" not in text and "Never closed" not in text
    assert "Bash est le shell le plus courant." in text and "- Le shell lit des commandes." in text
    assert "```markdown\n::: objectives\n- Kept: code is shown as written.\n:::\n```" in text


def test_kramdown_markup_in_call_out_quotes_and_jekyll_site_roots_are_not_guide_text(tmp_path):
    # The Carpentries' Jekyll lessons (e.g. python-novice-gapminder-es) write call-outs as quotes, with the
    # attribute lists inside them, and link with {{ page.root }}; students saw "{: .solution}" after an
    # answer and "[Conditionals]({{ page.root }}/13-conditionals/)" as a heading.
    episodes = tmp_path / "_episodes"
    episodes.mkdir()
    (episodes / "11-lists.md").write_text(
        "# Lists\n\n> ## Help wanted\n> {:.no_toc}\n>\n> Comments are welcome.\n\n"
        "> ## Slicing\n>\n> > ## Solution\n> > 4. `values[:-1]`\n> {: .solution}\n{: .challenge}\n\n"
        "A [runtime error]({{ page.root }}/04-built-in/#runtime-error) stops the program.\n\n"
        "![GDP plot]({{ site.baseurl }}/fig/gdp.svg)\n\n"
        "```liquid\n> {: .kept}\n{{ page.root }}/kept\n```\n", encoding="utf-8")
    (tmp_path / "reference.md").write_text("# Reference\n\n## [Conditionals]({{ page.root }}/13-conditionals/)\n\n"
                                           "Use `if`.\n", encoding="utf-8")
    documents = {d.path: d.text for d in read_course(tmp_path).documents}
    text = documents["_episodes/11-lists.md"]
    assert "{:" not in text.replace("> {: .kept}", "")
    assert "> ## Help wanted\n>\n>\n> Comments" in text  # the quote goes on; the attribute line is empty
    assert "> > 4. `values[:-1]`\n>\n" in text  # no longer read as part of the list item
    assert "[runtime error](../04-built-in/#runtime-error)" in text and "![GDP plot](../fig/gdp.svg)" in text
    assert "```liquid\n> {: .kept}\n{{ page.root }}/kept\n```" in text  # code is left as it is
    assert "## [Conditionals](./13-conditionals/)" in documents["reference.md"]
    assert expand_site_roots("No variables here.", "a/b/c.md") == "No variables here."


def test_an_authors_placeholder_line_is_not_guide_text(tmp_path):
    # A lesson template's empty page ("FIXME: …") was quoted as the answer to an off-topic request.
    (tmp_path / "extras.md").write_text(
        "# Extra exercises\n\nFIXME: exercises that don't fit into the regular schedule.\n\n"
        "The final exam date is\nTBD\nand will be posted on the noticeboard.\n\n"
        "TODO: a comment tag that many editors highlight.\n\n"
        "```python\n# FIXME: fill in\nFIXME: keep code as it is\n```\n", encoding="utf-8")
    text = read_course(tmp_path).documents[0].text
    assert "exercises that don't fit" not in text
    # "TBD", "TODO:" and "XXX" also answer questions and start glossary lines: they stay
    assert "The final exam date is\nTBD\nand will be posted" in text
    assert "TODO: a comment tag that many editors highlight." in text
    assert "# FIXME: fill in\nFIXME: keep code as it is" in text  # code is left as it is


def test_pandoc_attributes_after_images_and_links_are_not_guide_text(tmp_path):
    # The Carpentries write "![](fig/bar.svg){alt='GDP barplot'}"; the braces were quoted as a sentence.
    (tmp_path / "plot.md").write_text(
        "# Plotting\n\n![](fig/bar.svg){alt='GDP barplot for Australia'}\n\n"
        "See [the gallery](https://example.org/g){: .external} for more.\n\n"
        "```markdown\n![](k.png){alt='kept in code'}\n```\n", encoding="utf-8")
    text = read_course(tmp_path).documents[0].text
    assert "![GDP barplot for Australia](fig/bar.svg)" in text and "{alt=" not in text.split("```")[0]
    assert "See [the gallery](https://example.org/g) for more." in text
    assert "![](k.png){alt='kept in code'}" in text  # code is left as it is
    (tmp_path / "plot.md").write_text("# Sizing\n\nWrite `![](fig.png){width=50%}` to size a figure.\n", encoding="utf-8")
    assert "`![](fig.png){width=50%}`" in read_course(tmp_path).documents[0].text  # inline code too


def test_microsoft_learn_image_and_zone_markers_are_not_guide_text(tmp_path):
    # DocFX (Microsoft Learn) markup was quoted as sentences: ":::image type=… alt-text=…:::".
    image = ':::image type="content" source="media/p.png" alt-text="The Enable AddressSanitizer property.":::'
    complex_image = ':::image type="complex" source="media/d.png" alt-text="Diagram of linking."'
    (tmp_path / "asan.md").write_text(
        f"# Enable it\n\n{image}\n\n{complex_image}\nFour ways to link.\n:::image-end:::\n\n"
        ':::zone pivot="windows":::\nOn Windows, set the property.\n:::zone-end:::\n\n'
        '- :::image type="content" source="media/l.png" alt-text="In a list item":::\n', encoding="utf-8")
    text = read_course(tmp_path).documents[0].text
    assert ":::" not in text
    assert "![The Enable AddressSanitizer property.](media/p.png)" in text and "Four ways to link." in text
    assert "On Windows, set the property." in text and "- ![In a list item](media/l.png)" in text


def test_myst_directives_and_roles_become_what_the_book_shows(tmp_path):
    # A Jupyter Book (MyST) guide: a target line, roles, a figure, an admonition, a code cell, a toctree.
    (tmp_path / "share.md").write_text(
        "(share-label)=\n# Sharing data\n\n"
        "You can {ref}`share your code safely <code-label>` and use a {term}`synthetic dataset` "
        "instead {cite:ps}`smith2020,lee2021`.\n\n"
        "```{figure} ../figures/map.*\n---\nname: map\nalt: a map\n---\nMilestones on a road map.\n```\n\n"
        "```{admonition} Keep keys out of Git\n:class: warning\nStore secrets in environment variables.\n```\n\n"
        "```{code-cell} python\nprint(df[{ref}`x`])\n```\n\n```{toctree}\nchapter-one\n```\n", encoding="utf-8")
    text = read_course(tmp_path).documents[0].text
    assert "You can share your code safely and use a synthetic dataset instead." in text
    assert "Milestones on a road map." in text and "figures/map" not in text and "name: map" not in text
    assert "**Keep keys out of Git**\n\nStore secrets in environment variables." in text and ":class:" not in text
    assert "```python\nprint(df[{ref}`x`])\n```" in text  # code is code: its text is not touched
    assert "toctree" not in text and "chapter-one" not in text and "(share-label)=" not in text


def test_a_bare_myst_reference_shows_the_title_of_the_section_it_names_in_any_guide(tmp_path):
    (tmp_path / "a.md").write_text("# Code\n\nShare your code on Zenodo (see {ref}`cite-software`) "
                                   "or ask a librarian (see {ref}`not-in-this-course`). Call `main()` first.\n",
                                   encoding="utf-8")
    (tmp_path / "b.md").write_text("# Credit\n\n(cite-software)=\n\n## Citing `software`\n\nUse a DOI.\n",
                                   encoding="utf-8")
    docs = {d.path: d.text for d in read_course(tmp_path).documents}
    assert "Share your code on Zenodo (see Citing software) or ask a librarian. Call `main()` first." in docs["a.md"]
    assert "(cite-software)=" not in docs["b.md"] and "## Citing `software`" in docs["b.md"]


@pytest.mark.parametrize("line", [
    " " * 200_000 + "{ref}`gone`",                      # a long blank run before a role (was quadratic)
    ":::" + "\t" * 200_000 + ":" * 3000 + "x",          # a marker-like line that is text (was exponential)
    "(label)=\n# " + "# " * 100_000 + "Title",          # a target above a heading line of 200 KB
    ("\t " * 50_000 + "(see {ref}`elsewhere`) ") * 2,   # unknown references in long whitespace
    "[" * 100_000 + "](a){b} {ref}`gone`",             # many open brackets before an attribute block
    "  :::image " + "x" * 200_000 + " {ref}`gone`",    # a DocFX image line that never closes
    "  :::image" + " " * 200_000 + "x {ref}`gone`",     # … with a long run of blanks (was quadratic)
])
@pytest.mark.timeout(90)  # about 1-5 s each on 2 cores (line4 ~4.5 s; 30 s was hit under load); quadratic takes hours
def test_site_markup_reading_stays_linear_on_200_kb_lines(line):
    # Each of these took from 30 s to minutes with the first regular expressions; the text that is
    # not markup must come out as it went in (only roles and target lines change).
    out = blank_site_markup(unwrap_myst(line, myst_labels(line)))
    assert "{ref}" not in out and "(label)=" not in out
    if line.startswith(":::"):
        assert out == line  # "x" after the colons makes it text, not a marker
