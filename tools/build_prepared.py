"""The build step that ships the packaged schools prepared (``[tool.setuptools.cmdclass]`` in
pyproject.toml): after the package's files are copied, each school is loaded afresh from the
copy and written whole into ``liuren_logic/prepared/`` (:func:`liuren_logic.domain.prepared.prepare_schools`),
so that a new user's first command reads it instead of parsing every KB file.

Run by hand, it prepares the checkout itself (an editable install): ``python tools/build_prepared.py``.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from setuptools.command.build_py import build_py


def prepare(package_parent: Path) -> list[Path]:
    """Prepare the schools of the liuren_logic under ``package_parent``, with a throw-away cache directory."""
    sys.path.insert(0, str(package_parent))
    before = os.environ.get("LIUREN_CACHE")
    try:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["LIUREN_CACHE"] = cache  # the build leaves nothing in the builder's own cache
            from liuren_logic.domain.prepared import prepare_schools
            from liuren_logic.domain.school import prepared_root

            return prepare_schools(prepared_root())
    finally:
        sys.path.remove(str(package_parent))
        if before is None:
            os.environ.pop("LIUREN_CACHE", None)
        else:
            os.environ["LIUREN_CACHE"] = before


class BuildPy(build_py):
    """``build_py``, then the schools prepared in the built package (not in an editable one)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            for path in prepare(Path(self.build_lib)):
                print(f"prepared {path}")


if __name__ == "__main__":
    for written in prepare(Path(__file__).resolve().parents[1]):
        print(written)
