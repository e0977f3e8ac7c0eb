"""The default engine's path does only what the answer needs: no pyDatalog compile on any
command, and no networkx or matplotlib for a cast (timings are in benchmarks/, not here)."""
from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from liuren_logic import engine
def refuse(self):
    raise AssertionError("the pyDatalog logic was compiled")
engine.KnowledgeBase._compile = refuse
from liuren_logic.cli import main
code = main({argv!r})
print(code, ' '.join(sorted(m for m in ('networkx', 'matplotlib', 'tyme4py') if m in sys.modules)))
"""
CHART = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]


def loaded(argv: list[str]) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    code, *modules = done.stdout.strip().splitlines()[-1].split(" ")
    return int(code), set(filter(None, modules))


def test_a_cast_imports_neither_networkx_nor_matplotlib_nor_the_calendar():
    assert loaded(["cast", *CHART]) == (0, set())
    assert loaded(["cast", *CHART, "--json"]) == (0, set())


@pytest.mark.parametrize("argv", [["why", "initial", *CHART], ["why-not", "initial", "丑", *CHART],
                                  ["teach", *CHART], ["table"]])
def test_no_command_compiles_the_pydatalog_logic(argv):
    code, modules = loaded(argv)
    assert code == 0 and "matplotlib" not in modules
