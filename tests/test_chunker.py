from app.ingest.chunker import ChunkerSettings, chunk_document
from app.ingest.slug import Slugger, slugify
from app.records import SourceDoc

from .conftest import LED_GUIDE, OLED_GUIDE


def doc(text: str, path: str = "lessons/guide.md", kind: str = "markdown") -> SourceDoc:
    return SourceDoc(path=path, text=text, sha256="x", size_bytes=len(text.encode()), kind=kind,
                     language="python" if kind == "code" else "")


def test_spans_are_offsets_into_the_original_text():
    text = OLED_GUIDE.replace("\n", "\r\n")  # CRLF must not shift spans
    chunked = chunk_document(doc(text), ChunkerSettings())
    assert chunked.chunks
    for chunk in chunked.chunks:
        assert text[chunk.start:chunk.end] == chunk.text


def test_heading_stays_with_its_prose_and_keys_follow_the_contract():
    chunked = chunk_document(doc(OLED_GUIDE), ChunkerSettings())
    blank = [c for c in chunked.chunks if c.anchor == "blank-display"]
    assert len(blank) == 1
    assert blank[0].text.startswith("### Blank display")
    assert "0x3C" in blank[0].text
    assert blank[0].heading == "Lesson 4: OLED display › Troubleshooting › Blank display"
    assert blank[0].key == "lessons/guide.md#blank-display:0"
    # The repeated heading gets the GitHub-style numbered anchor.
    assert any(c.anchor == "blank-display-1" for c in chunked.chunks)
    assert chunked.title == "Lesson 4: OLED display"
    # The title and heading path are part of the indexed text, not of the shown text.
    assert "Troubleshooting" in blank[0].indexed_text and "Troubleshooting" not in blank[0].text


def test_code_block_stays_with_the_paragraph_that_introduces_it():
    chunked = chunk_document(doc(LED_GUIDE), ChunkerSettings(min_chars=40, max_chars=200))
    code = next(c for c in chunked.chunks if "```cpp" in c.text)
    assert "Upload this sketch:" in code.text


def test_long_line_and_big_table_are_split_without_losing_text():
    long_line = "# Log\n\n" + " ".join(f"reading{i}=42" for i in range(20000)) + "\n"
    table = "# Table\n\n| a | b |\n|---|---|\n" + "".join(f"| row{i} | {i} |\n" for i in range(2000))
    settings = ChunkerSettings()
    for text in (long_line, table):
        chunks = chunk_document(doc(text), settings).chunks
        assert all(len(c.text) <= settings.max_chars + 100 for c in chunks)
        joined = "".join(c.text for c in chunks)
        assert "reading19999=42" in joined or "| row1999 | 1999 |" in joined
    rows = chunk_document(doc(table), settings).chunks
    for chunk in rows[1:]:
        assert chunk.text.startswith("| row") and chunk.text.rstrip().endswith("|")  # never mid-row


def test_code_sample_is_chunked_with_its_language():
    code = "import time\n\n" + "\n\n".join(f"def f{i}():\n    return {i}" for i in range(200))
    chunked = chunk_document(doc(code, "app/main.py", kind="code"), ChunkerSettings())
    assert len(chunked.chunks) > 1
    assert chunked.title == "main.py (python code sample)"
    assert chunked.chunks[0].key == "app/main.py#:0" and chunked.chunks[1].key == "app/main.py#:1"


def test_github_slugs():
    assert slugify("Task - program the light sensor") == "task---program-the-light-sensor"
    assert slugify("What's `ledcAttach`?") == "whats-ledcattach"
    slugger = Slugger()
    assert [slugger.slug("Setup"), slugger.slug("Setup"), slugger.slug("Setup")] == ["setup", "setup-1", "setup-2"]


def test_front_matter_is_not_indexed_as_guide_text():
    text = "---\ntitle: Sensor maintenance schedule\ntags: [monthly]\n---\n"
    assert chunk_document(doc(text), ChunkerSettings()).chunks == ()
    with_body = text + "\n# Schedule\n\nClean the probe every month.\n"
    chunks = chunk_document(doc(with_body), ChunkerSettings()).chunks
    assert chunks and all("tags:" not in c.text for c in chunks)
