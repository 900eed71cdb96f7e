"""The frozen installer (issue 6): runs with no Python on PATH, no virtualenv and no network.

Needs `make dist` first; skipped when dist/lantern/ is absent (set LANTERN_REQUIRE_DIST=1,
as CI does after `make dist`, to make a missing build a failure instead).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXE = ROOT / "dist" / "lantern" / ("lantern-cli.exe" if sys.platform == "win32" else "lantern")


def _no_network_prefix() -> list[str]:
    """``unshare -rn`` (a network namespace with no interfaces) when the kernel allows it."""
    unshare = shutil.which("unshare")
    if sys.platform.startswith("linux") and unshare:
        if subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
            return [unshare, "-rn"]
    return []


@pytest.mark.real
def test_frozen_self_test_runs_without_python_or_network(tmp_path):
    if not EXE.is_file():
        if os.environ.get("LANTERN_REQUIRE_DIST") == "1":
            pytest.fail(f"{EXE} is missing: run `make dist` before this test.")
        pytest.skip("the installer is not built (make dist)")
    prefix = _no_network_prefix()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANTERN_CONFIG_DIR": str(tmp_path / "config")}
    if sys.platform == "win32":
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", r"C:\Windows")
    result = subprocess.run(prefix + [str(EXE), "--self-test"], env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    line = result.stdout.strip()
    assert line.startswith("self-test ok: bundle ") and " citing [" in line and "\n" not in line
    assert "llama.cpp CPU features: " in line
    if not prefix:
        pytest.skip("self-test passed, but this machine cannot cut the network off (no unshare -rn)")
