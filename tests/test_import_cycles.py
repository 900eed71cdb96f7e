"""scripts/import_cycles.py: the import-graph check `make lint` runs on app/."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "import_cycles.py"


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def _check(package: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(package)], capture_output=True, text=True)


def test_a_cycle_through_a_type_checking_import_and_an_import_inside_a_function_fails(tmp_path):
    package = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .sub.b import B\n",
        "sub/__init__.py": "",
        "sub/b.py": "def f():\n    from .. import a\n    return a\n",
        "c.py": "import json\nfrom .sub import b\n",
    })
    result = _check(package)
    assert result.returncode == 1
    assert result.stdout.strip() == "import cycle: pkg.a -> pkg.sub.b -> pkg.a"


def test_imports_in_one_direction_pass(tmp_path):
    package = _package(tmp_path, {"__init__.py": "", "a.py": "from . import b\n", "b.py": "import os\n"})
    result = _check(package)
    assert result.returncode == 0 and result.stdout == ""


def test_config_and_the_course_library_no_longer_import_each_other():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import import_cycles
    finally:
        sys.path.pop(0)
    app = SCRIPT.parent.parent / "app"
    known = import_cycles.module_names(app)
    assert "app.config" in import_cycles.imports_of("app.bundle.library", known["app.bundle.library"], known)
    assert not any(m.startswith("app.bundle") for m in import_cycles.imports_of("app.config", known["app.config"], known))
