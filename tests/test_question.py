"""The question parsed once (issue 25): one table of questions and the record's expected fields."""

from __future__ import annotations

import pytest

from app.question import Question, parse_question

HISTORY = [{"role": "user", "content": "How do I wire the OLED display?"}, {"role": "assistant", "content": "…"}]

# question, expected fields (those not named keep their defaults: kind "other", no count, outline,
# term, code tokens or reference back).
TABLE = [
    ("How do I blink the LED?", {"kind": "how", "shape": "how"}),
    ("After adding LED_PIN, how do I upload it?", {"kind": "how", "code_tokens": ("LED_PIN",), "refers_back": True,
                                                   "context": "How do I wire the OLED display?"}),
    ("How many lessons are there?", {"kind": "value", "counting": True, "outline": True, "shape": "outline",
                                     "refers_back": True, "context": "How do I wire the OLED display?"}),  # "there"
    ("How many steps does the setup take?", {"kind": "value", "counting": True, "shape": "how-many"}),
    ("What does the course cover?", {"outline": True, "shape": "outline"}),
    ("What is a digital twin?", {"defined_term": "digital twin", "shape": "definition"}),
    ("What does QoS mean?", {"kind": "name", "defined_term": "QoS", "shape": "definition"}),
    ("What is the onboard LED pin?", {"defined_term": "onboard LED pin", "definite": True}),
    ("Which pin is the default I2C SDA?", {"kind": "value", "shape": "value", "code_tokens": ("I2C",)}),
    ("What is MQTT short for, what is the protocol called?", {"kind": "name"}),
    ("What does df.pivot_table() return when x === y?",
     {"code_tokens": ("df.pivot_table()", "==="), "shape": "other"}),
    ("Which socket does it plug into?", {"kind": "value", "refers_back": True,
                                         "context": "How do I wire the OLED display?"}),
    ("And what about the buzzer?", {"refers_back": True, "context": "How do I wire the OLED display?"}),
]


@pytest.mark.parametrize("text, fields", TABLE, ids=[q for q, _ in TABLE])
def test_parse_question(text, fields):
    parsed = parse_question(text, HISTORY)
    expected = {"kind": "other", "counting": False, "outline": False, "defined_term": "", "definite": False,
                "code_tokens": (), "refers_back": False, "context": ""}
    expected.update(fields)
    got = {name: getattr(parsed, name) for name in expected}
    assert got == expected


def test_the_language_is_read_when_asked():
    assert parse_question("Wie schließe ich den Sensor an den Mikrocontroller an?").language == "de"
    assert isinstance(parse_question("How?"), Question)
