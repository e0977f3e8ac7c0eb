"""The packaged schools loaded whole at build time, so that a new user's first command parses nothing.

``prepare_schools(folder)`` loads every school of kb/schools afresh, and every school one shipped
reading away from it (what a cast weighs, :mod:`.disputes`), and writes them into ``folder`` as
:func:`~liuren_logic.datalog.snapshot.prepare` ships them. The package's build step
(tools/build_prepared.py) writes them into :func:`~.school.prepared_root`, where
:func:`~.school.load_files` reads them before the user's cache.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..datalog import snapshot
from .disputes import other_readings
from .school import _load_afresh, kb_root, read_school, sources_of


def prepare_schools(folder: Path) -> list[Path]:
    """Write the packaged schools and those a reading away into ``folder`` (the entries of an earlier
    build there removed first); the paths written."""
    for old in folder.glob("*.json"):
        old.unlink()
    return snapshot.prepare(folder, _schools())


def _schools() -> Iterator[tuple[str, list, snapshot.Loaded]]:
    """(entry name, files, loaded afresh) of each school to ship, once each, loaded as it is written."""
    root, seen = kb_root(), set()
    for path in sorted((root / "schools").glob("*.toml")):
        school = read_school(path.stem)
        for chosen in [school, *(school.with_readings({t: r}) for t, r in other_readings(school))]:
            sources = sources_of(chosen, root)
            name = snapshot.key(sources)
            if name not in seen:
                seen.add(name)
                yield name, sources, _load_afresh(sources)
