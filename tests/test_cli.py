import json

from app.cli import main


def test_ask_with_an_empty_question_exits_1_with_a_sentence(capsys, bundle_path):
    assert main(["ask", "--bundle", str(bundle_path), "   "]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: The question is empty") and "Traceback" not in err


def test_missing_or_corrupt_bundle_exits_1(capsys, tmp_path):
    assert main(["search", "--bundle", str(tmp_path / "none.sqlite"), "blink"]) == 1
    assert "does not exist" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not sqlite")
    assert main(["ask", "--bundle", str(junk), "--search-only", "blink"]) == 1
    assert "not a readable course bundle" in capsys.readouterr().err


def test_build_of_a_missing_folder_exits_1(capsys, tmp_path):
    assert main(["build", str(tmp_path / "missing"), "-o", str(tmp_path / "b.sqlite")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "b.sqlite").exists()


def test_search_json_follows_the_contract_in_keyword_only_mode(capsys, bundle_path):
    assert main(["search", "--bundle", str(bundle_path), "--json", "--keyword-only", "--k", "3", "blank display"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["degraded"] == ["keyword-only"]
    assert 1 <= len(doc["hits"]) <= 3
    first = doc["hits"][0]
    assert set(first) == {"rank", "source", "heading", "anchor", "chunk_key", "score"}
    assert first["rank"] == 1 and first["source"] == "lessons/oled.md"
