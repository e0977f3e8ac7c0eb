"""A cache of parsed KB files, keyed by their bytes, so start-up does not re-parse unchanged files.

Entries live in memory for the process and on disk (``$LIUREN_CACHE`` or
``~/.cache/liuren-logic``) as pickles of this package's own syntax objects, one file per
key; the key covers the file's bytes, its shown path, the grammar and this package's
version, so any change misses. A cache that cannot be read or written is simply not used.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
_memory: dict[str, object] = {}


def directory() -> Path:
    return Path(os.environ.get("LIUREN_CACHE") or Path.home() / ".cache" / "liuren-logic")


def key(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def cached(name: str, compute: Callable[[], T]) -> T:
    """The value stored under ``name``, computing and storing it when absent."""
    if name in _memory:
        return _memory[name]  # type: ignore[return-value]
    path = directory() / f"{name}.pickle"
    try:
        value = pickle.loads(path.read_bytes())
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        value = compute()
        _store(path, value)
    _memory[name] = value
    return value


def _store(path: Path, value: object) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(handle.name, path)
    except OSError:
        pass
