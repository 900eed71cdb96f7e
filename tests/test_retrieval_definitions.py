""""What is …?" questions (issue 23, item 7): a look-up in words the guides use together is answered;
a term the course never uses, or uses only word by word far apart, is still not covered."""

from pathlib import Path

import pytest

from app.bundle.builder import build_bundle
from app.bundle.reader import BundleReader
from app.retrieval.gate import NEAR_TOKENS, undefined_term
from app.retrieval.retriever import Retriever

from .conftest import ROOT
from .fakes import FakeEmbedder

#: (question, what the gate names as missing: () for a question the guides can answer, guide of the answer)
DEMO_CASES = [
    # Look-ups: every word is in the guides, near the others, but never as this exact phrase.
    ("What is the onboard LED pin?", (), "lessons/01-blink/README.md"),
    ("What is the DHT11 data pin?", (), "lessons/03-dht11/README.md"),
    ("What is the OLED I2C address?", (), "lessons/04-oled-i2c/README.md"),
    ("What are the OLED I2C addresses?", (), "lessons/04-oled-i2c/README.md"),
    ("What's the MQTT broker address?", (), "lessons/06-mqtt/README.md"),
    ("Which GPIO pin is the onboard LED on?", (), "lessons/01-blink/README.md"),
    # Not covered: a word the guides never use, or words they never put together.
    ("What is a flux capacitor?", ("flux capacitor",), None),
    ("What is the flux capacitor pin?", ("flux capacitor pin",), None),
    ("What is a digital twin?", ("digital twin",), None),
    ("What is a humidity resistor?", ("humidity resistor",), None),
    ("What is a broker pin?", ("broker pin",), None),
    ("What is the zorblax address?", ("zorblax address",), None),
    ("What is the Zorblax pin?", ("Zorblax", "Zorblax pin"), None),
]


@pytest.fixture(scope="module")
def demo_retriever(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-definitions") / "esp32.sqlite"
    build_bundle(ROOT / "courses" / "esp32-starter", out, FakeEmbedder(), title="ESP32 Starter Lab")
    bundle = BundleReader(out)
    yield Retriever(bundle, FakeEmbedder())
    bundle.close()


@pytest.mark.parametrize(("question", "missing", "source"), DEMO_CASES, ids=[c[0] for c in DEMO_CASES])
def test_what_is_questions_on_the_demo_course(demo_retriever, question, missing, source):
    retrieval = demo_retriever.search(question)
    assert retrieval.unknown_names == missing
    if missing:
        assert not retrieval.has_evidence
    else:
        assert source in {hit.source for hit in retrieval.hits[:3]}, [h.source for h in retrieval.hits[:3]]


def test_words_of_a_term_must_be_near_one_another_in_one_chunk(bundle_path: Path):
    bundle = BundleReader(bundle_path)  # the small test course: "the onboard LED on GPIO 2", "the I2C address: … 0x3C"
    try:
        assert bundle.fts_near(["onboard", "LED", "GPIO"], NEAR_TOKENS, 1)
        assert bundle.fts_near(["I2C", "address"], NEAR_TOKENS, 1)
        assert not bundle.fts_near(["onboard", "address"], NEAR_TOKENS, 1)  # different guides
        assert not bundle.fts_near(["OLED", "scanner"], NEAR_TOKENS, 1)     # one guide, far apart
        assert bundle.fts_near(['"NEAR(', "OR"], NEAR_TOKENS, 1) == []      # user text, never FTS5 syntax
        assert bundle.fts_near([], NEAR_TOKENS, 1) == []
    finally:
        bundle.close()


def test_an_undefined_term_is_known_only_when_its_words_are_near():
    vocabulary = {"onboard", "led", "pin", "digit", "twin", "flux"}.__contains__
    no_phrase = lambda phrase: False  # noqa: E731
    together = [{"onboard", "led", "pin"}, {"oled", "i2c", "address"}]

    def near(words: list[str]) -> bool:
        return any({w.lower() for w in words} <= group for group in together)

    assert undefined_term("What is the onboard LED pin?", vocabulary, no_phrase, near) == ""
    assert undefined_term("What are the onboard LED pins?", vocabulary, no_phrase, near) == ""  # plural
    assert undefined_term("What is a digital twin?", vocabulary, no_phrase, near) == "digital twin"
    assert undefined_term("What is a flux pin?", vocabulary, no_phrase, near) == "flux pin"
    # "What is a/an …?" asks for a term of art: the guides must name it as a phrase, however near its words.
    assert undefined_term("What is a digital twin?", vocabulary, no_phrase, lambda words: True) == "digital twin"
    assert undefined_term("What's an onboard LED pin?", vocabulary, no_phrase, near) == "onboard LED pin"
    # Without the lookup (callers that pass none), the phrase rule alone decides, as before.
    assert undefined_term("What is the onboard LED pin?", vocabulary, no_phrase) == "onboard LED pin"
    # A single unknown word is judged by the vocabulary, never by nearness.
    assert undefined_term("What is a capacitor?", vocabulary, no_phrase, lambda words: True) == "capacitor"
