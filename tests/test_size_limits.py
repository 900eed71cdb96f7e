"""scripts/size_limits.py: the module and function length limits `make lint` keeps on app/ (issue 25)."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "size_limits.py"


def _check(package: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(package), *extra], capture_output=True, text=True)


def test_a_long_module_and_a_long_function_are_named_and_fail(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(6))
    (package / "long_function.py").write_text("def short():\n    return 1\n\n\ndef long():\n" + body, encoding="utf-8")
    (package / "long_module.py").write_text("A = 1\n" * 21, encoding="utf-8")
    result = _check(package, "--module-lines", "20", "--function-lines", "6")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{package / 'long_function.py'}:5 long: 7 lines (limit 6)",
                                          f"{package / 'long_module.py'}: 21 lines (limit 20)"]


def test_code_within_the_limits_passes(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "ok.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    result = _check(package, "--module-lines", "8", "--function-lines", "6")
    assert result.returncode == 0 and result.stdout == ""


def test_app_keeps_the_limits():
    result = _check(SCRIPT.parent.parent / "app")
    assert result.returncode == 0, result.stdout
