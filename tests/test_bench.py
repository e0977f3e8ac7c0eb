"""Smoke test of benchmarks/bench.py: three charts, JSON out, in a subprocess."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"

KEYS = ("cast_ratio", "why_ms_median", "table_s", "audit_s", "startup_s", "peak_mb",
        "kinliuren_disagreements", "kinliuren_ms_median", "cast_ms_median", "disagreeing_charts")


def test_bench_smoke(tmp_path):
    if importlib.util.find_spec("kinliuren") is None:
        pytest.skip("kinliuren is not installed (pip install '.[bench]'); the benchmark compares against it")
    out = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, str(BENCH), "--charts", "3", "--json", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text("utf-8"))
    for key in KEYS:
        assert key in figures, key
    assert figures["charts"] == 3
    assert isinstance(figures["kinliuren_disagreements"], int)
    assert figures["cast_ratio"] > 0 and figures["why_ms_median"] > 0 and figures["peak_mb"] > 0
    assert "三傳" in done.stdout
