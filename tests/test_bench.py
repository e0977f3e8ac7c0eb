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
    """benchmarks/datalog_workloads.py: a 12-edge chain's closure through our engine, pyDatalog and
    clingo, each in its own process; the three agree on the 78 answers."""
    if importlib.util.find_spec("clingo") is None:
        pytest.skip("clingo is not installed (pip install '.[bench]'); the benchmark compares against it")
    out = tmp_path / "workloads.json"
    script = BENCH.with_name("datalog_workloads.py")
    done = subprocess.run([sys.executable, str(script), "--workloads", "chain", "--sizes", "12", "--timeout", "60",
                           "--json", str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [row] = json.loads(out.read_text("utf-8"))
    assert (row["workload"], row["size"], row["answers"], row["disagreement"]) == ("chain", 12, 78, None)
    for engine in ("ours", "pydatalog", "clingo"):
        run = row["runs"][engine]
        assert run["outcome"] == "answered" and run["counts"] == {"rpath": 78}, engine
        assert run["cpu_s"] > 0 and run["peak_mb"] >= run["base_mb"] > 0
    assert row["ours/clingo"]["cpu_s"] > 0 and "| 12 | 78 |" in done.stdout


def test_datalog_workloads_timeout(tmp_path):
    """A run past --timeout is killed and reported as such, not waited for."""
    out = tmp_path / "workloads.json"
    script = BENCH.with_name("datalog_workloads.py")
    done = subprocess.run([sys.executable, str(script), "--workloads", "tree", "--sizes", "5", "--timeout", "0.01",
                           "--engines", "ours", "clingo", "--json", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [row] = json.loads(out.read_text("utf-8"))
    assert [run["outcome"] for run in row["runs"].values()] == ["timeout", "timeout"]
    assert row["answers"] is None and row["ours/clingo"] is None and "> 0.01 s wall" in done.stdout


def test_datalog_workloads_from_saved_runs(tmp_path):
    """--from merges earlier --json files (an answered run wins; a missing engine is 'not run'),
    recomputes the ratios, and a disagreement between engines makes the exit status 1."""
    answered = {"outcome": "answered", "seconds": 2.0, "cpu_s": 1.0, "peak_mb": 40.0, "base_mb": 35.0}
    timeout = {"outcome": "timeout", "timeout_s": 1}
    first = [{"workload": "chain", "size": 5, "facts": 5, "expected": None,
              "runs": {"ours": timeout, "clingo": {**answered, "counts": {"rpath": 15}}}}]
    second = [{"workload": "chain", "size": 5, "facts": 5, "expected": None,
               "runs": {"ours": {**answered, "cpu_s": 3.0, "counts": {"rpath": 15}}}}]
    paths = [tmp_path / "first.json", tmp_path / "second.json"]
    for path, rows in zip(paths, (first, second)):
        path.write_text(json.dumps(rows), "utf-8")
    script = BENCH.with_name("datalog_workloads.py")
    done = subprocess.run([sys.executable, str(script), "--from", *map(str, paths), "--json", str(tmp_path / "m.json")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    [row] = json.loads((tmp_path / "m.json").read_text("utf-8"))
    assert list(row["runs"]) == ["ours", "clingo"] and row["ours/clingo"]["cpu_s"] == 3.0
    assert "| 5 | 15 | 3.00 / 40 | 1.00 / 40 | 3.00 |" in done.stdout
    second[0]["runs"]["ours"]["counts"] = {"rpath": 14}
    paths[1].write_text(json.dumps(second), "utf-8")
    done = subprocess.run([sys.executable, str(script), "--from", *map(str, paths)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1 and "answers differ on chain 5" in done.stderr


@pytest.mark.parametrize("text", [None, "[1]", "not json", '[{"workload": "chain", "size": 1, "runs": {"ours": '
                                  '{"outcome": "answered"}}}]'])
def test_datalog_workloads_from_bad_file(tmp_path, text):
    """A --from file that is missing, or not the rows of a --json run: one line naming it, status 2."""
    path = tmp_path / "run.json"
    if text is not None:
        path.write_text(text, "utf-8")
    done = subprocess.run([sys.executable, str(BENCH.with_name("datalog_workloads.py")), "--from", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"datalog_workloads: --from {path}: ")
