"""The core cases of the datalog-conformance suite through both engines (see tests/conformance.py).

The case files over 100 KB (po3–po5, ranpo, access1, hmmer, lubm: 2 000 facts or more a case,
41 MB of the 42) are one test a file and engine, in the complete set (``pytest -m complete``):
they are read only when that test runs, so the default run neither parses nor runs them; the
others are under 10 KB, at most 42 facts a case, one test each. ``python tests/conformance.py``
runs all. The cases an engine refuses (REFUSED) must be refused for the reason given.
"""
from __future__ import annotations

import re

import pytest

pytest.importorskip("datalog_conformance", reason="the test extra's datalog-conformance is not installed")
from conformance import ENGINES, HEAVY, cases_in, core_cases, heavy_files, run  # noqa: E402

# What an engine refuses, with the reason (README, "Conformance with ordinary Datalog"): pyDatalog
# finds 1 500 to 12 000 firings a second, and hmmer's points-to analysis makes some 30 million.
REFUSED = {(name, "pydatalog"): r"grew past the limit of 250000 derived tuples \(pyDatalog's"
           for name in ("souffle_hmmer_CPtrLoad", "souffle_hmmer_CPtrStore")}


@pytest.mark.parametrize("case, engine", [pytest.param(case, engine, id=f"{folder}/{case.name}[{engine}]")
                                          for folder, case in core_cases(HEAVY) for engine in ENGINES])
def test_conformance_case(case, engine):
    _check(case, engine)


@pytest.mark.complete
@pytest.mark.parametrize("path, engine", [pytest.param(path, engine, id=f"{path.parent.name}/{path.stem}[{engine}]")
                                          for path in heavy_files() for engine in ENGINES])
def test_every_case_of_a_heavy_file(path, engine):
    for case in cases_in(path):
        _check(case, engine)


def _check(case, engine):
    outcome, detail = run(case, engine)
    if (case.name, engine) in REFUSED:
        assert outcome == "refused" and re.search(REFUSED[(case.name, engine)], detail), (case.name, detail)
    else:
        assert outcome == "pass", (case.name, detail)
