"""Under CI nothing skips: a pytest plugin (registered by conftest.py) that fails a skipped test.

CI (``CI=true``) runs ``.ci/run``, which installs every system package a test needs and has
the shared folder beside the checkout, so a skip there means something is missing.
"""
from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome, report.longrepr = "failed", f"skipped under CI, where nothing may skip: {reason}"
