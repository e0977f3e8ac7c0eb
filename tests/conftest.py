"""Shared fixtures: one loaded default school, the 720-chart table, the shared case files."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from liuren_logic import Session

# the seeds and cases beside the checkout, or where LIUREN_SHARED says (a worktree elsewhere)
SHARED = Path(os.environ.get("LIUREN_SHARED") or Path(__file__).resolve().parents[2] / "shared")
ENGINE = "materialise"  # the engine the shared session fixture casts with


def shared_file(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not beside the checkout")
    return path


@pytest.fixture(scope="session")
def session() -> Session:
    return Session(engine=ENGINE)


@pytest.fixture(scope="session")
def table(session):
    """The 720 charts of the default school (day charts, hour 午), read in bulk."""
    return session.table()


@pytest.fixture(scope="session")
def seed_cases():
    return json.loads(shared_file("cases", "seed_cases.json").read_text("utf-8"))


@pytest.fixture(scope="session")
def zhinan_cases():
    return json.loads(shared_file("cases", "zhinan_cases.json").read_text("utf-8"))


def _hypothesis_profile() -> None:
    """Under CI, property tests draw the same examples every run; locally they roam."""
    import os

    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")


_hypothesis_profile()
