"""The user's files, read and written without surprises.

:func:`read_regular` reads only a regular file up to a size limit (never a FIFO, a device
or ``/dev/zero``); :func:`write_replacing` writes beside the target and renames, so a full
disk or a crash leaves the old file whole, and never writes over one of the inputs.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable

from .errors import InputError


def read_regular(path: Path, what: str, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; else one InputError naming ``what``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    except OSError as error:
        raise InputError(f"{what}: cannot read {path}: {error.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"{what}: {path} is not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{what}: {path} is larger than {limit:,} bytes")
    return data


def write_replacing(path: Path, data: "bytes | Iterable[bytes]", inputs: Iterable[Path] = (), what: str = "--output") -> None:
    """Write ``data`` (bytes, or pieces of them written as they come) to ``path`` through a temporary
    file and a rename, refusing any of ``inputs``."""
    target = os.path.realpath(path)
    for source in inputs:
        if _same(target, source):
            raise InputError(f"{what}: {path} is one of the files read; give another file")
    try:
        info = os.stat(target)
    except OSError:
        info = None
    try:
        if info is not None and not stat.S_ISREG(info.st_mode):  # a device or FIFO (/dev/stdout): write through
            with open(target, "wb") as handle:
                _write_all(handle, data)
            return
        _replace(target, data, stat.S_IMODE(info.st_mode) if info else _default_mode())
    except OSError as error:
        raise InputError(f"{what}: cannot write {path}: {error.strerror or error}") from None


def _write_all(handle, data: "bytes | Iterable[bytes]") -> None:
    if isinstance(data, bytes):
        handle.write(data)
    else:
        handle.writelines(data)


def _replace(target: str, data: "bytes | Iterable[bytes]", mode: int) -> None:
    folder, name = os.path.split(target)
    fd, temporary = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _same(target: str, source: Path) -> bool:
    try:
        return os.path.samefile(target, source)
    except (OSError, ValueError):
        return False


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
