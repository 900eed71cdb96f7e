"""Fusion methods, named folders, the evidence gate, legs, and hostile queries on the fake bundle."""

from dataclasses import replace

import pytest

from app.ranking import diversify_sources
from app.retrieval.folders import FolderIndex
from app.retrieval.fusion import additive_fusion, min_max_normalize, weighted_score_fusion
from app.retrieval.gate import (
    bare_values,
    has_strong_evidence,
    looks_like_name,
    missing_features,
    missing_key_terms,
    outside_embedding_languages,
    undefined_term,
    unknown_names,
)
from app.retrieval.identifiers import extract_identifiers
from app.retrieval.retriever import FUSIONS, RetrievalSettings, Retriever
from app.text.tokenize import written_words

from .fakes import FakeEmbedder


def test_min_max_normalization_and_weighted_fusion():
    assert min_max_normalize({1: 2.0, 2: 4.0, 3: 3.0}) == {1: 0.0, 2: 1.0, 3: 0.5}
    assert min_max_normalize({7: 3.0}) == {7: 1.0} and min_max_normalize({7: 0.0}) == {7: 0.0}
    fused = dict(weighted_score_fusion([{1: 0.9, 2: 0.5}, {1: 0.0, 2: 10.0, 3: 5.0}], [0.7, 0.3]))
    assert fused == pytest.approx({1: 0.7, 2: 0.3, 3: 0.15})
    with pytest.raises(ValueError):
        weighted_score_fusion([{1: 1.0}], [0.5, 0.5])


def test_additive_fusion_adds_scaled_cosine_and_bonus():
    fused = additive_fusion({1: 10.0, 2: 4.0}, {1: 0.1, 2: 0.5, 3: 0.9}, c=20.0, bonus={3: 1.0})
    assert [i for i, _ in fused] == [3, 2, 1]
    assert dict(fused) == pytest.approx({1: 12.0, 2: 14.0, 3: 19.0})


COURSE = [("README.md", "Lab"), ("lessons/01-blink/README.md", "Lesson 1: Blink an LED"),
          ("lessons/03-dht11/README.md", "Lesson 3: Read a DHT11 sensor"),
          ("lessons/03-dht11/extra.md", "Extra"),
          ("2-farm/README.md", "Farm"), ("2-farm/lessons/3-automated-watering/README.md", "Automated plant watering"),
          ("3-city/lessons/3-traffic/README.md", "Traffic"), ("4-home/lessons/3-lights/README.md", "Lights")]


@pytest.mark.parametrize("question, folders", [
    ("In Lesson 3, which resistor do I need?", []),  # five folders are numbered 3: ambiguous
    ("What does 'Read a DHT11 sensor' use?", ["lessons/03-dht11/"]),  # title without the "Lesson 3:" prefix
    ("In the blink lesson, which pin?", ["lessons/01-blink/"]),
    ("What is in 03-dht11?", ["lessons/03-dht11/"]),
    ("In project 2, lesson 3, what pumps the water?", ["2-farm/lessons/3-automated-watering/"]),
    ("Tell me about the automated plant watering pump", ["2-farm/lessons/3-automated-watering/"]),
    ("How do I blink an LED?", ["lessons/01-blink/"]),  # the lesson's title, unquoted (3+ words)
    ("Which resistor for a LED?", []),
])
def test_named_folders(question, folders):
    index = FolderIndex(COURSE)
    assert index.named(question) == folders


def test_lesson_number_names_the_lesson_folder():
    index = FolderIndex(COURSE[:4])
    assert index.named("In Lesson 3, which resistor do I need?") == ["lessons/03-dht11/"]
    assert index.named("In lesson 03?") == ["lessons/03-dht11/"] and index.named("In lesson 9?") == []


def test_a_folder_name_shared_by_many_folders_is_a_topic_not_a_name():
    # IoT keeps one `code/<device>/soil-moisture-sensor/` folder per device: "soil moisture sensor"
    # in a question named all of them, and their code files were ranked before every guide.
    course = [(f"2-farm/lessons/2-detect/code/{device}/soil-moisture-sensor/app.py", "app.py")
              for device in ("pi", "wio-terminal", "virtual-device")]
    course.append(("2-farm/lessons/2-detect/README.md", "Detect soil moisture"))
    index = FolderIndex(course)
    assert index.named("How do I calibrate the soil moisture sensor?") == []
    assert index.named("What does soil-moisture-sensor/app.py print?") == []
    one = FolderIndex(course[:1] + course[3:])
    assert one.named("How do I calibrate the soil moisture sensor?") == [
        "2-farm/lessons/2-detect/code/pi/soil-moisture-sensor/"]


def test_ambiguous_lesson_numbers_are_ignored():
    # Three projects each have a lesson 3: no boost unless the project is named too.
    index = FolderIndex(COURSE[4:])
    assert index.named("What is lesson 3 about?") == []
    assert index.named("What is project 3, lesson 3 about?") == ["3-city/lessons/3-traffic/"]


def test_unknown_names_and_the_gate():
    vocabulary = {"display", "blank", "oled", "esp32", "board"}
    assert looks_like_name("CoAP", False) and looks_like_name("A4988", True) and looks_like_name("Modbus", False)
    assert not looks_like_name("Modbus", True) and not looks_like_name("gadget", False) and not looks_like_name("3.3", False)
    found = unknown_names("Can my ESP32 board talk Modbus to a PLC? Gadgets aside.", vocabulary.__contains__)
    assert found == ["Modbus", "PLC"]
    assert unknown_names("How many readings should I average, and may I skip one?", vocabulary.__contains__) == []
    # The pronoun "I" and its contractions are capitalised mid-sentence too, and are never names
    # ("I'm" once made "Pretend I'm a beginner: what do I need?" not covered).
    for question in ("Pretend I'm a beginner: what do I need?", "Why does it fail when I've uploaded and I'd reset?",
                     "If I’ll wire it later, which pin?"):
        assert unknown_names(question, vocabulary.__contains__, lambda phrase: False) == [], question
    assert not looks_like_name("I'm", False) and not looks_like_name("I", False) and looks_like_name("Im2c", False)


def test_a_definition_question_about_a_term_the_course_never_uses_names_it():
    vocabulary = {"digit", "twin", "relay", "geofenc", "telemetri", "sensor"}.__contains__
    phrases = {"relay", "geofence", "telemetry", "soil moisture", "sensor"}.__contains__
    assert undefined_term("What is a digital twin?", vocabulary, phrases) == "digital twin"
    assert undefined_term("so what's a Digital  Twin", vocabulary, phrases) == "Digital Twin"
    assert undefined_term("What does QoS mean?", vocabulary, phrases) == "QoS"
    for known in ("What is a relay?", "What are geofences?", "What's telemetry?", "What is soil moisture?",
                  "What are sensors?"):
        assert undefined_term(known, vocabulary, phrases) == "", known
    # Not a definition question, or a description rather than a term: left to the other rules.
    for other in ("What is the difference between a relay and a transistor?", "How do I wire a digital twin?",
                  "What is a digital twin used for in farming?"):
        assert undefined_term(other, vocabulary, phrases) == "", other


def test_times_quantities_versions_ordinals_codes_and_calendar_words_are_not_unknown_names():
    # A one-guide course saying the lab "closes at 20:00 on weekdays": none of these is a name.
    vocabulary = {"lab", "open", "close", "until", "time", "weekday", "board", "run", "python"}.__contains__
    nothing = lambda phrase: False  # noqa: E731
    for question in ("Is the lab open until 8pm?", "Does it close at 8:30am?", "Is the lab open on Saturdays?",
                     "Can the board run at 3.3V with 10MB and 2.4GHz?", "Does it need Python v3.11 or v2?",
                     "What about the 21st of May?", "Is the display at 0x3C?", "Do I need a 5kg motor or 100ms delay?"):
        assert unknown_names(question, vocabulary, nothing) == [], question
    # Part numbers and product names stay names.
    assert unknown_names("Does the lab have an A4988 or an ESP32?", vocabulary, nothing) == ["A4988", "ESP32"]
    assert unknown_names("Can I use Modbus on Mondays?", vocabulary, nothing) == ["Modbus"]


def test_a_question_for_a_value_is_not_a_definition_question():
    vocabulary = {"lab", "close", "time", "default", "port", "digit", "twin"}.__contains__
    nothing = lambda phrase: False  # noqa: E731
    assert undefined_term("What is the lab's closing time?", vocabulary, nothing) == ""
    assert undefined_term("What is the closing time?", vocabulary, nothing) == ""
    assert undefined_term("What's the default port?", vocabulary, nothing) == ""
    # A term of art the course never uses is still named, with or without "the".
    assert undefined_term("What is a digital twin?", vocabulary, nothing) == "digital twin"
    assert undefined_term("What is the blockchain?", vocabulary, nothing) == "blockchain"


def test_code_shaped_key_terms_the_course_never_uses_are_missing():
    course = {"digitalWrite", "pinMode", "display.display()", "--baud", "delay"}
    found = lambda phrase: phrase in course  # noqa: E731
    assert missing_key_terms("What does the --frobnicate flag of the uploader do?", found,
                             extract_identifiers) == ["--frobnicate"]
    assert missing_key_terms("Should I call display.clearDisplay() before display.display()?", found,
                             extract_identifiers) == ["display.clearDisplay()"]
    assert missing_key_terms("Is analog_read_resolution needed with `digitalWrite`?", found,
                             extract_identifiers) == ["analog_read_resolution"]
    # Terms the course has, pasted error messages, measures, numbers and abbreviations are not missing.
    for question in ("Why use pinMode before digitalWrite, e.g. in setup?", "Which --baud is right, 115200?",
                     "It says `fatal error: Wire.h: No such file or directory`, why?",
                     "Can the pin take 3.3V or v2.1 firmware?", "Is delay in ms, i.e. 500 = half a second?"):
        assert missing_key_terms(question, found, extract_identifiers) == [], question


def test_a_named_feature_the_course_never_uses_is_missing_and_one_it_uses_is_not():
    vocabulary = {"spread", "justify", "decor", "same"}
    known = lambda token: token in vocabulary  # noqa: E731
    no_phrase = lambda phrase: False  # noqa: E731
    assert missing_features("What does the satisfies operator do?", known, no_phrase) == ["satisfies"]
    assert missing_features("How do I use the justify-content property?", known, no_phrase) == ["justify-content"]
    # the course's own word, a describing word, and a name the course has as a phrase
    for question in ("What does the spread operator do?", "Can I call the same method twice?",
                     "Why does the built-in function fail?"):
        assert missing_features(question, known, no_phrase) == [], question
    assert missing_features("What does the digitalWrite function do?", known, lambda p: p == "digitalWrite") == []


def test_a_question_about_a_feature_the_course_never_mentions_is_not_covered_and_names_it(bundle):
    retriever = Retriever(bundle, FakeEmbedder())
    assert retriever.search("What does the digitalWrite function do?").has_evidence
    missing = retriever.search("What does the analogWriteResolutionX function do?")
    assert not missing.has_evidence and "analogWriteResolutionX" in missing.unknown_names
    plain = retriever.search("What does the frobnicate option of the scanner sketch do?")
    assert not plain.has_evidence and plain.unknown_names == ("frobnicate",)


def test_a_question_that_is_only_a_value_is_judged_by_whether_the_guides_hold_that_value():
    course = {"3.3 V", "0x3C", "20:00", "115200"}
    found = lambda phrase: phrase in course  # noqa: E731
    assert bare_values("What is 42?", found) is None  # a question with words: the other rules judge it
    assert bare_values("v1.2.3", found) == ["v1.2.3"]
    assert bare_values("8:30pm?", found) == ["8:30pm"]
    assert bare_values("3.3V?", found) == []  # written "3.3 V" in the guides
    assert bare_values("115200 0x3C", found) == []


def test_a_bare_version_the_course_never_mentions_is_not_covered_and_a_bare_code_it_holds_is_answered(bundle):
    retriever = Retriever(bundle, FakeEmbedder())
    version = retriever.search("v1.2.3")
    assert not version.has_evidence and version.unknown_names == ("v1.2.3",)
    address = retriever.search("0x3C?")
    assert address.has_evidence and "0x3C" in address.hits[0].text


def test_a_question_about_a_flag_the_course_never_mentions_is_not_covered_and_names_it(bundle):
    retriever = Retriever(bundle, FakeEmbedder())
    known = retriever.search("How do I use `digitalWrite` to blink the LED?")
    assert known.has_evidence and known.unknown_names == ()
    missing = retriever.search("How do I use `digitalWriteFast` to blink the LED?")
    assert not missing.has_evidence and missing.unknown_names == ("digitalWriteFast",)


def test_acronyms_are_looked_up_unstemmed_and_capitalised_runs_as_phrases():
    # "aw" is a stem the course has (from "awe"); "AWS" stems to it but is not in the course.
    vocabulary = {"aw", "regist", "devic", "iot", "core", "azur", "hub", "thing", "network", "lcd", "node"}
    phrases = {"IoT", "Core", "Azure", "Hub", "Azure IoT Hub", "LCD", "Things", "Network"}
    found = unknown_names("How do I register my device with AWS IoT Core instead of Azure IoT Hub?",
                          vocabulary.__contains__, phrases.__contains__)
    assert found == ["AWS"]  # "AWS IoT Core" is not reported twice
    # Two unknown words of one name: the name is said whole, where its first word stood.
    assert unknown_names("Can Zigbee or Bluetooth Low Energy reach the Hub?", {"low", "hub", "reach"}.__contains__,
                         {"Low", "Hub"}.__contains__) == ["Zigbee", "Bluetooth Low Energy"]
    assert unknown_names("How do I add a node to The Things Network?", vocabulary.__contains__,
                         phrases.__contains__) == ["Things Network"]
    assert unknown_names("The LCD on my Azure IoT Hub gadget stays dark.", vocabulary.__contains__,
                         phrases.__contains__) == []
    # Without a phrase lookup, runs are not judged and acronyms fall back to the vocabulary.
    assert unknown_names("Why is The Things Network slow?", vocabulary.__contains__) == []
    assert has_strong_evidence(0.5, 0, 0, 0.3)
    assert not has_strong_evidence(0.2, 0, 0, 0.3)
    assert has_strong_evidence(0.2, 1, 0, 0.3)  # an exact identifier hit
    assert not has_strong_evidence(0.9, 1, 1, 0.3)  # an unknown name outweighs everything
    assert has_strong_evidence(None, 0, 0, 0.3, lexical_coverage=0.7)


@pytest.mark.parametrize("fusion", FUSIONS)
def test_every_fusion_ranks_the_blank_display_section_first(bundle, fake_embedder, fusion):
    retriever = Retriever(bundle, fake_embedder, fusion=fusion)
    result = retriever.search("OLED display stays blank, which I2C address?")
    assert result.hits[0].anchor == "blank-display" and result.has_evidence
    for source in {h.source for h in result.hits}:  # best first within each guide (source crowding)
        scores = [h.score for h in result.hits if h.source == source]
        assert scores == sorted(scores, reverse=True)


def test_a_capitalised_run_made_of_known_parts_is_not_an_unknown_name():
    # Students write component names in title case: "the Wio Terminal Light Sensor" is two known
    # phrases, "the Oceania GDP file" a known word and an acronym; neither was ever a new name.
    vocabulary = {"wio", "termin", "light", "sensor", "oceania", "gdp", "thing", "network", "file", "node", "add"}
    phrases = {"Wio Terminal", "Light Sensor", "Oceania", "GDP", "Things", "Network"}
    assert unknown_names("How do I read the Wio Terminal Light Sensor?", vocabulary.__contains__,
                         phrases.__contains__) == []
    assert unknown_names("How do I plot the Oceania GDP file?", vocabulary.__contains__, phrases.__contains__) == []
    # a plain capitalised word after the first is part of a name the course must hold as a phrase
    assert unknown_names("How do I add a node to The Things Network?", vocabulary.__contains__,
                         phrases.__contains__) == ["Things Network"]
    assert unknown_names("Does the Wio Terminal Light Shield work?", (vocabulary | {"shield"}).__contains__,
                         phrases.__contains__) == ["Wio Terminal Light Shield"]
    # a first word alone before known phrases is a name of its own: "Google Cloud Storage"
    more = vocabulary | {"googl", "cloud", "storag", "upload"}
    assert unknown_names("How do I upload to Google Cloud Storage?", more.__contains__,
                         (phrases | {"Cloud Storage"}).__contains__) == ["Google Cloud Storage"]
    # a run too long to split is a name
    long_run = "Is there a Wio Terminal Light Sensor Light Sensor Network?"
    assert unknown_names(long_run, vocabulary.__contains__, phrases.__contains__) != []


def test_single_legs_run_alone(bundle, fake_embedder):
    retriever = Retriever(bundle, fake_embedder)
    lexical = retriever.search("blank display I2C address", legs=("lexical",))
    assert "embed" not in lexical.timings_ms and lexical.best_similarity is None
    assert all(h.semantic_rank is None for h in lexical.hits)
    semantic = retriever.search("blank display I2C address", legs=("semantic",))
    assert "lexical" not in semantic.timings_ms and all(h.lexical_rank is None for h in semantic.hits)
    assert semantic.hits and semantic.best_similarity is not None
    with pytest.raises(ValueError, match="legs must be"):
        retriever.search("x", legs=("magic",))
    with pytest.raises(ValueError, match="unknown fusion"):
        Retriever(bundle, fake_embedder, fusion="vote")


def test_named_lesson_ranks_its_folder_first(tmp_path, fake_embedder):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader

    course = tmp_path / "course"
    for folder, text in (("01-blink", "# Lesson 1: Blink\n\nThe LED address is GPIO 2.\n"),
                         ("02-oled", "# Lesson 2: OLED\n\nThe OLED I2C address is 0x3C. The address matters; "
                                     "check the address with a scanner.\n")):
        (course / "lessons" / folder).mkdir(parents=True)
        (course / "lessons" / folder / "README.md").write_text(text, encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder, title="t")
    bundle = BundleReader(tmp_path / "b.sqlite")
    try:
        for fusion in FUSIONS:
            retriever = Retriever(bundle, fake_embedder, fusion=fusion)
            plain = retriever.search("what is the address?", legs=("lexical", "semantic", "exact"))
            assert plain.hits[0].source == "lessons/02-oled/README.md"
            named = retriever.search("In Lesson 1, what is the address?")
            assert named.hits[0].source == "lessons/01-blink/README.md"
            assert "folders" in named.timings_ms
    finally:
        bundle.close()


HOSTILE = ["", "   ", "x" * 50_000, "?!.,;:-()[]{}", 'AND OR NOT "', "NEAR(a b) *", "C++", "-v", "--sku",
           "😀🔥 display?", "Дисплей OLED 表示 blank", "'; DROP TABLE chunks; --", "\x00\x01"]


@pytest.mark.parametrize("fusion", FUSIONS)
def test_hostile_queries_never_raise(bundle, fake_embedder, fusion):
    # Their speed is measured by benchmarks/ (a wall-clock limit here would fail on a busy machine).
    retrievers = [Retriever(bundle, fake_embedder, fusion=fusion), Retriever(bundle, None, fusion=fusion)]
    for query in HOSTILE:
        for retriever in retrievers:
            result = retriever.search(query, k=5)
            assert len(result.hits) <= 5
            assert all(h.source.startswith("lessons/") for h in result.hits)
        if not query.strip(" ?!.,;:-()[]{}*\"'\x00\x01"):
            assert not retrievers[1].search(query).has_evidence
    long = retrievers[0].search("blank display " * 5000)  # cut to MAX_QUERY_CHARS, still ranked
    assert long.hits and long.hits[0].source == "lessons/oled.md"


def test_source_crowding_moves_a_guides_extra_chunks_after_the_others():
    fused = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5)]
    source = {1: 10, 2: 10, 3: 10, 4: 20, 5: 10}
    assert diversify_sources(fused, source, 2) == [(1, 0.9), (2, 0.8), (4, 0.6), (3, 0.7), (5, 0.5)]
    assert diversify_sources(fused, source, 1) == [(1, 0.9), (4, 0.6), (2, 0.8), (3, 0.7), (5, 0.5)]
    assert diversify_sources(fused, source.get, 0) == fused


def test_soft_crowding_keeps_a_guides_chunk_far_ahead_of_the_other_guides_in_its_place():
    fused = [(1, 0.95), (2, 0.94), (3, 0.88), (4, 0.53), (5, 0.52), (6, 0.50)]
    source = {1: 10, 2: 10, 3: 10, 4: 20, 5: 30, 6: 10}
    # 0.8 x 0.88 = 0.70 is still above every other guide's chunk: chunk 3 keeps its place; 0.8 x 0.50
    # is below them all: chunk 6 waits, as with hard crowding.
    assert diversify_sources(fused, source, 2, 0.8) == [(1, 0.95), (2, 0.94), (3, 0.88), (4, 0.53), (5, 0.52), (6, 0.50)]
    assert diversify_sources(fused, source, 2) == [(1, 0.95), (2, 0.94), (4, 0.53), (5, 0.52), (3, 0.88), (6, 0.50)]
    close = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6), (5, 0.5)]
    assert diversify_sources(close, {1: 1, 2: 1, 3: 1, 4: 2, 5: 3}, 2, 0.8) == [
        (1, 0.9), (2, 0.8), (4, 0.6), (3, 0.7), (5, 0.5)]  # 0.56 < 0.6: waits for the close one only
    negative = [(1, 0.2), (2, 0.1), (3, -0.40), (4, -0.45)]  # additive fusion can score below 0
    assert diversify_sources(negative, {1: 1, 2: 1, 3: 1, 4: 2}, 2, 0.8) == [(1, 0.2), (2, 0.1), (4, -0.45), (3, -0.40)]


def test_cjk_text_is_indexed_as_bigrams():
    assert list(written_words("请问苏黎世温室？ Zürich温室-2 度")) == [
        "请问", "问苏", "苏黎", "黎世", "世温", "温室", "Zürich", "温室", "2", "度"]
    assert outside_embedding_languages("请问苏黎世那个温室的风扇开关到多少度会启动？")
    assert not outside_embedding_languages("What does 温室 mean in the Zürich notes?")


def test_a_chinese_question_finds_its_passage_and_has_lexical_evidence(tmp_path, fake_embedder):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader

    course = tmp_path / "course"
    course.mkdir()
    (course / "greenhouse.md").write_text(
        "# Greenhouse notes\n\nThe vent relay switches on at 28 °C.\n\n## 中文\n\n"
        "苏黎世温室的通风继电器在 28 °C 时接通，在 24 °C 时断开。\n", encoding="utf-8")
    (course / "pump.md").write_text("# Pump\n\nThe pump runs for ten minutes at most.\n", encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder)
    retriever = Retriever(BundleReader(tmp_path / "b.sqlite"), fake_embedder)
    # Different wording from the passage (风扇开关 vs 通风继电器): whole runs never match.
    found = retriever.search("请问苏黎世那个温室的风扇开关到多少度会启动？")
    assert found.hits[0].source == "greenhouse.md" and found.hits[0].lexical_rank == 1
    assert found.best_similarity < 0.25 and found.has_evidence
    assert not retriever.search("请写一首关于秋天落叶的诗").has_evidence  # no bigram of it is in the course


def test_a_question_naming_a_guide_with_no_text_is_not_covered(tmp_path, fake_embedder):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader
    from app.ingest.chunker import front_matter_title

    course = tmp_path / "course"
    course.mkdir()
    stub = "---\ntitle: Sensor maintenance schedule\ntags: [monthly]\n---\n"
    (course / "schedule.md").write_text(stub, encoding="utf-8")
    (course / "probe.md").write_text("# Soil probe\n\nEach month, wipe the sensor and check the schedule "
                                     "of readings against the maintenance log.\n", encoding="utf-8")
    assert front_matter_title(stub) == "Sensor maintenance schedule"
    assert front_matter_title("---\ntitle: [unclosed\n---\n") == "" and front_matter_title("# T\n") == ""
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder)
    bundle = BundleReader(tmp_path / "b.sqlite")
    assert bundle.empty_sources() == [("schedule.md", "Sensor maintenance schedule")]
    retriever = Retriever(bundle, fake_embedder)
    named = retriever.search("What does the sensor maintenance schedule say I should do each month?")
    assert not named.has_evidence and named.empty_guides == ("schedule.md",)
    assert named.hits and named.hits[0].source == "probe.md"  # the nearest sections are still listed
    other = retriever.search("How often should I wipe the soil probe sensor each month?")
    assert other.has_evidence and other.empty_guides == ()


def test_a_link_only_section_brings_the_guide_it_links_to(tmp_path, fake_embedder):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader
    from app.retrieval.links import link_only_target

    known = {"lesson/README.md", "lesson/assignment.md"}
    assert link_only_target("## Assignment\n\n[Build a lamp](assignment.md)\n", "lesson/README.md", known) \
        == "lesson/assignment.md"
    assert link_only_target("[Docs](https://example.org/a.md)", "lesson/README.md", known) is None
    # A link to another lesson's folder is navigation ("## Next"), not the section's content.
    lessons = {"lessons/03-dht11/README.md", "lessons/04-oled/README.md", "lessons/03-dht11/sub/extra.md"}
    assert link_only_target("## Next\n\n[Lesson 4](../04-oled/README.md) shows these readings.\n",
                            "lessons/03-dht11/README.md", lessons) is None
    assert link_only_target("## More\n\n[Extra](sub/extra.md)\n", "lessons/03-dht11/README.md", lessons) \
        == "lessons/03-dht11/sub/extra.md"
    assert link_only_target("Read [this](assignment.md) and [that](README.md).", "lesson/README.md", known) is None
    assert link_only_target("A paragraph of real prose that explains the wiring, with [a link](assignment.md).",
                            "lesson/README.md", known) is None
    course = tmp_path / "course"
    (course / "lesson").mkdir(parents=True)
    (course / "lesson" / "README.md").write_text(
        "# Night lamp\n\nWire an LED to pin 5 and switch it on when the room gets dark.\n\n"
        "## Assignment\n\n[Build a lamp](assignment.md)\n", encoding="utf-8")
    (course / "lesson" / "assignment.md").write_text(
        "# Build a lamp\n\nMake the lamp fade in slowly using PWM instead of switching on at once.\n",
        encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder)
    hits = Retriever(BundleReader(tmp_path / "b.sqlite"), fake_embedder).search("What is the assignment?").hits
    first = [(h.source, h.heading) for h in hits[:2]]
    assert first == [("lesson/README.md", "Night lamp › Assignment"), ("lesson/assignment.md", "Build a lamp")]
    assert hits[1].score == hits[0].score


def test_navigation_sections_rank_after_sections_with_content(tmp_path, fake_embedder, monkeypatch):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader
    from app.retrieval.links import is_navigation

    known = {"lessons/04-oled/README.md", "lessons/05-wifi/README.md", "lessons/04-oled/assignment.md"}
    assert is_navigation("## Next\n\n[Lesson 5](../05-wifi/README.md) connects the board to Wi-Fi.\n",
                         "lessons/04-oled/README.md", known)
    assert not is_navigation("## Assignment\n\n[Draw a clock](assignment.md)\n", "lessons/04-oled/README.md", known)
    assert not is_navigation("## Next\n\nLesson 5 connects the board to Wi-Fi, using the OLED from this lesson to "
                             "show the address. [Lesson 5](../05-wifi/README.md)\n", "lessons/04-oled/README.md", known)

    course = tmp_path / "course"
    for folder, text in (
            ("04-oled", "# OLED display\n\nThe OLED display shows text over I2C at address 0x3C.\n\n"
                        "## Wiring\n\nConnect the OLED display: SDA to GPIO 21, SCL to GPIO 22, and power it from 3V3.\n\n"
                        "## Next\n\n[OLED display on Wi-Fi](../05-wifi/README.md) next.\n"),
            ("05-wifi", "# Wi-Fi\n\nJoin a network with WiFi.begin and print the IP address.\n")):
        (course / "lessons" / folder).mkdir(parents=True)
        (course / "lessons" / folder / "README.md").write_text(text, encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder)
    retriever = Retriever(BundleReader(tmp_path / "b.sqlite"), fake_embedder)
    headings = [h.heading.split(" › ")[-1] for h in retriever.search("OLED display", k=5).hits]
    assert "Next" in headings and headings.index("Next") > headings.index("Wiring"), headings
    plain = Retriever(retriever.bundle, fake_embedder,
                      settings=replace(RetrievalSettings(), demote_navigation=False))
    before = [h.heading.split(" › ")[-1] for h in plain.search("OLED display", k=5).hits]
    assert before.index("Next") < before.index("Wiring"), before  # what the demotion changes


def test_a_guide_holding_the_answer_in_three_sections_is_not_crowded_out_by_weaker_guides(tmp_path, fake_embedder):
    from app.bundle.builder import build_bundle
    from app.bundle.reader import BundleReader

    course = tmp_path / "course"
    course.mkdir()
    (course / "consent.md").write_text(
        "# Consent forms\n\n## Writing consent forms\n\nConsent forms list what participants agree to.\n\n"
        "## Signing consent forms\n\nParticipants sign consent forms before the study.\n\n"
        "## Storing consent forms\n\nStore signed consent forms in a locked cabinet, apart from the data.\n",
        encoding="utf-8")
    (course / "other.md").write_text("# Field trips\n\nParticipants bring a signed permission slip.\n", encoding="utf-8")
    build_bundle(course, tmp_path / "b.sqlite", fake_embedder)
    reader = BundleReader(tmp_path / "b.sqlite")
    question = "Where do I keep signed consent forms?"
    soft = [h.heading.split(" › ")[-1] for h in Retriever(reader, fake_embedder).search(question, k=3).hits]
    hard = [h.heading.split(" › ")[-1] for h in Retriever(
        reader, fake_embedder, settings=replace(RetrievalSettings(), crowding_factor=0.0)).search(question, k=3).hits]
    # The guide's third section scores far above the permission slip: it keeps its place among the
    # three hits; hard crowding (factor 0) put the unrelated guide there instead.
    assert soft[0] == "Storing consent forms" and "Field trips" not in soft, soft
    assert "Field trips" in hard, hard
