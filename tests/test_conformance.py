"""The core cases of the datalog-conformance suite through both engines (see tests/conformance.py).

The case files over 100 KB (po3–po5, ranpo, access1, hmmer, lubm: 2 000 facts or more a case,
41 MB of the 42) are neither read nor run unless the engines' comparisons are selected alone
(``pytest -m engines``) or LIUREN_CONFORMANCE=all is set, to keep the suite quick; the others
are under 10 KB, at most 42 facts a case. ``python tests/conformance.py`` runs all. The cases an
engine refuses (REFUSED) must be refused for the reason given.
"""
from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("datalog_conformance", reason="the test extra's datalog-conformance is not installed")
from conformance import ENGINES, HEAVY, core_cases, run  # noqa: E402
from conftest import engines_in_full  # noqa: E402

# What an engine refuses, with the reason (README, "Conformance with ordinary Datalog"): pyDatalog
# finds 1 500 to 12 000 firings a second, and hmmer's points-to analysis makes some 30 million.
REFUSED = {(name, "pydatalog"): r"grew past the limit of 250000 derived tuples \(pyDatalog's"
           for name in ("souffle_hmmer_CPtrLoad", "souffle_hmmer_CPtrStore")}


def pytest_generate_tests(metafunc):
    """The cases, each under each engine; the heavy files are not even parsed unless they are
    asked for (an opt-in run, not a skip for want of something, which under CI fails)."""
    every = engines_in_full(metafunc.config) or os.environ.get("LIUREN_CONFORMANCE") == "all"
    metafunc.parametrize("case, engine", [
        pytest.param(case, engine, id=f"{folder}/{case.name}[{engine}]")
        for folder, case in core_cases(None if every else HEAVY) for engine in ENGINES])


@pytest.mark.engines
def test_conformance_case(case, engine):
    outcome, detail = run(case, engine)
    if (case.name, engine) in REFUSED:
        assert outcome == "refused" and re.search(REFUSED[(case.name, engine)], detail), detail
    else:
        assert outcome == "pass", detail
