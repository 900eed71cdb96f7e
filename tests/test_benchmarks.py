"""The benchmarks run and report what they promise (real models; ../shared corpora).

Only that they work and agree with the harness is tested here: their timings are the
benchmarks' business, never asserted (this machine is shared and noisy).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from .conftest import ROOT, shared_dir

pytestmark = pytest.mark.real


def test_scale_benchmark_builds_a_subset_and_reports_startup_latency_and_memory(tmp_path):
    if not (shared_dir() / "corpora" / "large-docs").is_dir():
        pytest.skip("../shared/corpora/large-docs is not present")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "retrieval_scale.py"), "--sizes", "30", "--queries", "5",
           "--startup-runs", "2", "--no-chat-model", "--out-dir", str(tmp_path)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600).stdout
    row = next(line for line in out.splitlines() if re.match(r"\| \d+ \|", line))
    cells = [c.strip() for c in row.strip("|").split("|")]
    chunks, startup, worst, p50, p95, rss = int(cells[0]), cells[1], cells[2], float(cells[3]), float(cells[4]), float(cells[-1])
    assert chunks >= 30 and (tmp_path / "large-docs-30.sqlite").is_file()
    parts = re.fullmatch(r"(\d+) \((\d+) \+ (\d+) \+ (\d+) \+ (\d+)\)", startup)
    assert parts is not None and int(parts.group(1)) > 0 and worst.endswith("(of 2)")
    assert 0 < p50 <= p95 and rss > 100  # the embedding model alone takes more than 100 MB


def test_fusion_comparison_agrees_with_the_harness_for_the_default(capsys, iot_bundle_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import fusion_compare
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from app.cli import main

    questions = shared_dir() / "corpora" / "iot-for-beginners.eval.jsonl"
    assert fusion_compare.main([str(iot_bundle_path), str(questions)]) == 0
    table = capsys.readouterr().out
    names = [name for name, _, _ in fusion_compare.SETTINGS]
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ")}
    assert set(names) <= set(rows)
    assert main(["eval", "--bundle", str(iot_bundle_path), str(questions), "--json"]) == 0
    mrr = json.loads(capsys.readouterr().out)["ranking"]["hybrid"]["source"]["overall"]["mrr@10"]
    default_row = [c.strip() for c in rows["weighted 0.7/0.3"].strip().strip("|").split("|")]
    assert float(default_row[3]) == pytest.approx(mrr, abs=5e-4)  # the default setting is what `eval` measures
