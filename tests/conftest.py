"""Shared fixtures and markers: one loaded default school, the 720-chart table, the case files.

A check too heavy for every run takes a sample by default and the whole under ``-m complete``
(tests/scopes.py): the one sampling mechanism. The two engines (bottom-up and pyDatalog) are
compared so too: on a sample of charts stratified by method, and every chart under ``-m complete``.

The case files are test data in the repo (tests/data/cases, copied from the project's shared
folder with their README). The seed texts are not: the checks that quote them look for a
``shared/seeds`` folder beside the checkout or beside one of its parents (``LIUREN_SHARED``
names another). A test skips only for what pip cannot install (Graphviz, a CJK font,
Chromium, the seed texts), saying why; under CI (``CI=true``, where ``.ci/run`` installs
them) a skip is a failure.
"""
from __future__ import annotations

import json
import os
import shutil
from functools import cache
from pathlib import Path

import pytest

from ci_policy import IN_CI, pytest_runtest_makereport  # noqa: F401 (the hook, registered here)
from liuren_logic import Session

CHECKOUT = Path(__file__).resolve().parents[1]
CASES = CHECKOUT / "tests" / "data" / "cases"
ENGINE = "materialise"  # the engine the shared session fixture casts with
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def shared_dir() -> Path | None:
    """The shared folder with the seed texts: ``$LIUREN_SHARED``, or ``shared`` beside the checkout
    or beside one of its parents (a git worktree lies deeper)."""
    named = os.environ.get("LIUREN_SHARED")
    candidates = [Path(named)] if named else [parent / "shared" for parent in CHECKOUT.parents]
    return next((c for c in candidates if (c / "seeds").is_dir()), None)


def shared_file(*parts: str) -> Path:
    folder = shared_dir()
    if folder is None or not folder.joinpath(*parts).exists():
        pytest.skip(f"{'/'.join(parts)}: no shared/ folder with the seed texts beside the checkout "
                    "(or set LIUREN_SHARED)")
    return folder.joinpath(*parts)


@cache
def seed_text(key: str) -> str:
    """A seed text with all white space removed (``000`` or ``003``)."""
    import re

    name = {"000": "000_72959f619fe34002.txt", "003": "003_334936d57d3f14b2.txt"}[key]
    return re.sub(r"\s+", "", shared_file("seeds", name).read_text("utf-8"))


@cache
def has_cjk_font() -> bool:
    """True when matplotlib finds a CJK font (it is not a pip package: apt-get install fonts-noto-cjk)."""
    from liuren_logic.explain.picture import RenderError, cjk_font

    try:
        cjk_font()
    except (RenderError, ImportError):
        return False
    return True


def stratified(charts: list, key) -> list:
    """The first chart of each value of ``key``, in the charts' order: a sample that meets every stratum."""
    firsts: dict = {}
    for chart in charts:
        firsts.setdefault(key(chart), chart)
    return list(firsts.values())


needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed (apt-get install graphviz)")
needs_cjk_font = pytest.mark.skipif(not has_cjk_font(), reason="matplotlib finds no CJK font (apt-get install fonts-noto-cjk)")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


@pytest.fixture(scope="session")
def session() -> Session:
    return Session(engine=ENGINE)


@pytest.fixture(scope="session")
def table(session):
    """The 720 charts of the default school (day charts, hour 午), read in bulk."""
    return session.table()


@pytest.fixture(scope="session")
def seed_cases():
    return json.loads((CASES / "seed_cases.json").read_text("utf-8"))


@pytest.fixture(scope="session")
def zhinan_cases():
    return json.loads((CASES / "zhinan_cases.json").read_text("utf-8"))


def _hypothesis_profile() -> None:
    """Under CI, property tests draw the same examples every run; locally they roam."""
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    if IN_CI:
        settings.load_profile("ci")


_hypothesis_profile()
