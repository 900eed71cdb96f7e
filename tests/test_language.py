"""The course's language (issue 12): the guess from the guides' prose, and the tags an instructor gives."""

from __future__ import annotations

import pytest

from app.errors import LanternError
from app.ingest.language import check_language, detect_language, language_name

SAMPLES = {
    "en": "The display stays dark. First check the wiring and the address of the display. If that does not help, "
          "run the scanner and read its output in the serial monitor. The sensor is connected to the board and "
          "the LED is on pin 2. It is important that the voltage is right for the circuit to work.",
    "de": "Die Anzeige bleibt dunkel. Prüfe zuerst die Verkabelung und die Adresse des Displays. Wenn das nicht hilft, "
          "führe den Scanner aus und lies die Ausgabe im seriellen Monitor. Der Sensor wird mit dem Mikrocontroller "
          "verbunden, und die LED ist an Pin 2 angeschlossen. Es ist wichtig, dass die Spannung stimmt.",
    "fr": "L'écran reste noir. Vérifiez d'abord le câblage et l'adresse de l'afficheur. Si cela ne suffit pas, lancez "
          "le scanner et lisez la sortie dans le moniteur série. Le capteur est relié au microcontrôleur et la LED est "
          "sur la broche 2. Il est important que la tension soit correcte pour que le montage fonctionne.",
    "es": "La pantalla se queda en negro. Primero comprueba el cableado y la dirección de la pantalla. Si no funciona, "
          "ejecuta el escáner y lee la salida en el monitor serie. El sensor se conecta al microcontrolador y el LED "
          "está en el pin 2. Es importante que la tensión sea correcta para que el montaje funcione.",
    "ru": "Экран остаётся тёмным. Сначала проверьте подключение и адрес дисплея. Если это не помогает, запустите "
          "сканер и прочитайте вывод в мониторе порта. Датчик подключается к микроконтроллеру, а светодиод к выводу "
          "2. Важно, чтобы напряжение было правильным, и что плата работает от USB или от батареи.",
    "ja": "ディスプレイが真っ暗なままです。まず配線とアドレスを確認してください。それでも解決しない場合は、"
          "スキャナーを実行してシリアルモニターの出力を確認します。",
    "zh": "显示屏一直是黑的。首先检查接线和显示器的地址。如果还是不行，运行扫描程序并在串口监视器中查看输出。",
    "ko": "디스플레이가 계속 검은색입니다. 먼저 배선과 주소를 확인하세요. 그래도 안 되면 스캐너를 실행하세요.",
    "el": "Η οθόνη παραμένει σκοτεινή. Ελέγξτε πρώτα την καλωδίωση και τη διεύθυνση της οθόνης.",
}


@pytest.mark.parametrize("tag", sorted(SAMPLES))
def test_the_language_of_a_guide_is_guessed(tag):
    assert detect_language([SAMPLES[tag]]) == tag


def test_code_links_and_identifiers_are_not_prose_and_the_guides_prose_wins():
    code = "```cpp\nvoid setup() { pinMode(2, OUTPUT); }\n```\n" * 50
    assert detect_language([code]) == ""  # no prose: unknown
    russian_with_code = SAMPLES["ru"] + "\n" + code + " `digitalWrite(2, HIGH)` see https://example.org/the/and/of"
    assert detect_language([russian_with_code]) == "ru"  # Latin identifiers don't make it English
    german_guide_with_english_links = SAMPLES["de"] + " [the guide of the board](https://example.org/the-and-of)"
    assert detect_language([german_guide_with_english_links]) == "de"
    english_markup = ('<div class="note">The board and the sensor are connected with the wires of the kit.</div>\n\n'
                      "| Part | What it is for |\n|---|---|\n" + "| sensor | reads the temperature of the room |\n" * 40)
    assert detect_language([english_markup + "\n\n" + SAMPLES["de"]]) == "de"  # HTML and tables are not prose


def test_unsure_is_unknown():
    assert detect_language([]) == "" and detect_language([""]) == ""
    assert detect_language(["Check the wiring."]) == ""  # too few words to tell
    # A guide with a German and a French section, and two guides that disagree: neither language holds 2/3.
    assert detect_language([SAMPLES["de"] + "\n\n## Français\n\n" + SAMPLES["fr"]]) == ""
    assert detect_language([SAMPLES["de"], SAMPLES["fr"]]) == ""
    grades = "| a | b | i | w | z | o |\n" * 500  # one-letter cells say nothing
    assert detect_language([grades]) == ""


def test_one_huge_file_does_not_speak_for_the_whole_course():
    table = "| team | gh | amber | red | green |\n" * 20_000
    assert detect_language([table] + [SAMPLES["en"]] * 3) == "en"


def test_language_tags_are_checked_and_written_in_their_usual_case():
    assert [check_language(t) for t in ("EN", "pt-br", "zh-hant", "en_US", " de ")] == [
        "en", "pt-BR", "zh-Hant", "en-US", "de"]
    for bad in ("english!", "e", "", "german language", "1234"):
        with pytest.raises(LanternError, match="not a language tag.*--language en"):
            check_language(bad)
    assert language_name("de") == "German" and language_name("pt-BR") == "Portuguese (BR)"
    assert language_name("qya") == "qya" and language_name("") == ""
