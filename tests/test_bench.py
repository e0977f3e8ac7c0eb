"""Smoke tests of the benchmarks (bench.py: three charts; dated_audit.py; datalog_workloads.py: tiny sizes), in subprocesses."""
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


@pytest.mark.parametrize("report", ["text", "json", "html"])
def test_dated_audit_benchmark_smoke(tmp_path, report):
    """benchmarks/dated_audit.py over a day and two days of hourly moments, read from either report."""
    out = tmp_path / "dated.json"
    script = BENCH.with_name("dated_audit.py")
    done = subprocess.run([sys.executable, str(script), "--moments", "48", "24", "--json", str(out),
                           "--report", report], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text("utf-8"))
    assert [row["moments"] for row in rows] == [24, 48]
    assert all(row["peak_kib"] > 0 and 0 < row["charts"] <= row["moments"] for row in rows)
    assert rows[0]["charts"] < rows[1]["charts"] and "KiB/moment" in done.stdout


def test_datalog_workloads_smoke(tmp_path):
    """benchmarks/datalog_workloads.py at tiny sizes: every engine answers every workload, alike."""
    if importlib.util.find_spec("clingo") is None:
        pytest.skip("clingo is not installed (pip install '.[bench]'); the benchmark compares against it")
    out = tmp_path / "workloads.json"
    done = subprocess.run([sys.executable, str(BENCH.with_name("datalog_workloads.py")), "--chain", "20",
                           "--random", "30:40", "--samegen", "20", "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(out.read_text("utf-8"))
    assert [(r["workload"], r["engine"]) for r in rows] == [
        (w, e) for w in ("chain", "random", "samegen") for e in ("ours", "pydatalog", "clingo")]
    assert all(r["cpu_s"] >= 0 and r["peak_mb"] >= 0 for r in rows)
    assert {r["tuples"]["t"] for r in rows if r["workload"] == "chain"} == {20 * 21 // 2}
    assert "| chain | 20 | 210 |" in done.stdout
