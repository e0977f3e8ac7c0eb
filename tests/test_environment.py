"""What the tests need from the machine: under CI everything, and no test skips there."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ci_policy import IN_CI
from conftest import CHROMIUM, has_cjk_font, shared_dir

SKIPPING = """
import pytest

def test_needs_something():
    pytest.skip("a system package is missing")
"""


def _run_skipping_test(tmp_path: Path, ci: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    env = {**os.environ, "CI": ci, "PYTHONPATH": str(Path(__file__).parent)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "ci_policy", "-p", "no:cacheprovider",
                           str(tmp_path / "test_skipping.py")], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)


def test_a_skip_fails_under_ci_and_only_there(tmp_path):
    done = _run_skipping_test(tmp_path, "true")
    assert done.returncode == 1 and "1 failed" in done.stdout and "a system package is missing" in done.stdout
    done = _run_skipping_test(tmp_path, "")
    assert done.returncode == 0 and "1 skipped" in done.stdout


@pytest.mark.skipif(not IN_CI, reason="only CI promises every system package (.ci/run installs them)")
def test_under_ci_every_system_package_and_the_seed_texts_are_there():
    found = {"Graphviz dot": shutil.which("dot"), "a CJK font": has_cjk_font(), "chromium": CHROMIUM,
             "shared/seeds": shared_dir()}
    missing = [name for name, there in found.items() if not there]
    assert not missing, f"under CI these must be installed: {', '.join(missing)}"
