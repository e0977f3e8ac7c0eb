"""The core cases of the datalog-conformance suite through both engines (see tests/conformance.py).

Cases over more than 1500 facts (po3–po5, ranpo, access1, hmmer, lubm) run only when the
engines' comparisons are selected alone (``pytest -m engines``), to keep the suite quick;
``python tests/conformance.py`` runs all. The cases an engine refuses (REFUSED) must be refused
for the reason given.
"""
from __future__ import annotations

import re

import pytest

pytest.importorskip("datalog_conformance", reason="the test extra's datalog-conformance is not installed")
from conformance import ENGINES, core_cases, run  # noqa: E402
from conftest import engines_in_full  # noqa: E402

HEAVY = 1500


# What an engine refuses, with the reason (README, "Conformance with ordinary Datalog"): pyDatalog
# finds 1 500 to 12 000 firings a second, and hmmer's points-to analysis makes some 30 million.
REFUSED = {(name, "pydatalog"): r"grew past the limit of 250000 derived tuples \(pyDatalog's"
           for name in ("souffle_hmmer_CPtrLoad", "souffle_hmmer_CPtrStore")}


def pytest_generate_tests(metafunc):
    """The cases, each under each engine; heavy ones only under ``-m engines`` (not collected
    otherwise: an opt-in run, not a skip for want of something, which under CI fails)."""
    every = engines_in_full(metafunc.config)
    metafunc.parametrize("case, engine", [
        pytest.param(case, engine, id=f"{folder}/{case.name}[{engine}]")
        for folder, case in core_cases() for engine in ENGINES
        if every or sum(map(len, case.program.facts.values())) <= HEAVY])


@pytest.mark.engines
def test_conformance_case(case, engine):
    outcome, detail = run(case, engine)
    if (case.name, engine) in REFUSED:
        assert outcome == "refused" and re.search(REFUSED[(case.name, engine)], detail), detail
    else:
        assert outcome == "pass", detail
