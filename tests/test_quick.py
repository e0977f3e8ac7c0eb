"""The default engine's path does only what the answer needs: no pyDatalog compile on any
command; on a warm start no KB file parsed, checked or evaluated again (the school is read
whole from the cache), so lark is not imported; networkx only where a derivation graph is
handed out (``--format json|graphml|dot|svg|png``), not for text (its import costs 0.2 s);
no pyDatalog, matplotlib or calendar for a cast (timings are in benchmarks/, not here)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import sys
from liuren_logic.datalog import pydatalog_backend as engine
from liuren_logic.domain import school
def refuse(*_):
    raise AssertionError("the pyDatalog logic was compiled")
def reparse(*_):
    raise AssertionError("a warm start parsed the KB files")
engine.PyDatalog._compile = refuse
if {warm!r}:
    school._load_afresh = reparse
from liuren_logic.faces.cli import main
code = main({argv!r})
print(code, ' '.join(sorted(m for m in {watched!r} if m in sys.modules)))
"""
CHART = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
WATCHED = ("networkx", "matplotlib", "tyme4py", "lark", "liuren_logic.datalog.parser", "pyDatalog")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """A cache directory of this module's own, warmed by one cast."""
    folder = tmp_path_factory.mktemp("quick") / "cache"
    loaded(["cast", *CHART], folder, warm=False)
    return folder


def loaded(argv: list[str], cache, warm: bool = True) -> tuple[int, set[str]]:
    probe = PROBE.format(argv=argv, warm=warm, watched=WATCHED)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LIUREN_CACHE": str(cache)})
    assert done.returncode == 0, done.stderr[-2000:]
    code, *modules = done.stdout.strip().splitlines()[-1].split(" ")
    return int(code), set(filter(None, modules))


def test_a_warm_cast_parses_nothing_and_imports_no_networkx_lark_pydatalog_matplotlib_or_calendar(cache_dir):
    assert loaded(["cast", *CHART], cache_dir) == (0, set())
    assert loaded(["cast", *CHART, "--json"], cache_dir) == (0, set())


@pytest.mark.parametrize("argv", [["why", "initial", *CHART], ["why-not", "initial", "丑", *CHART],
                                  ["teach", *CHART], ["table"]])
def test_no_command_compiles_the_pydatalog_logic_or_parses_on_a_warm_start(argv, cache_dir):
    code, modules = loaded(argv, cache_dir)
    assert code == 0 and not modules & {"matplotlib", "networkx", "lark", "liuren_logic.datalog.parser", "pyDatalog"}


def test_a_derivation_handed_out_imports_networkx_and_nothing_else_heavy(cache_dir):
    code, modules = loaded(["why", "initial", *CHART, "--format", "graphml"], cache_dir)
    assert code == 0 and "networkx" in modules
    assert not modules & {"matplotlib", "lark", "liuren_logic.datalog.parser", "pyDatalog"}
