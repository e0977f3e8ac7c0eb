"""The user's files, read and written without surprises.

:func:`read_regular` reads only a regular file up to a size limit (never a FIFO, a device
or ``/dev/zero``); :func:`write_replacing` writes beside the target and renames, so a full
disk or a crash leaves the old file whole, and never writes over one of the inputs, the
package's own files, a read-only file or anything but a regular file.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable

from ..domain.errors import InputError


def read_regular(path: Path, what: str, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; else one InputError naming ``what``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    except OSError as error:
        raise InputError(f"{what}: cannot read {path}: {error.strerror}") from None
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind != "a regular file":
            raise InputError(f"{what}: {path} is not a regular file but {kind}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as error:  # a disk error while reading
        raise InputError(f"{what}: cannot read {path}: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"{what}: {path} is larger than {limit:,} bytes")
    return data


def _kind(mode: int) -> str:
    """What a file's mode says it is, in words."""
    for test, kind in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "some other kind of file"


def write_replacing(path: Path, data: "bytes | Iterable[bytes]", inputs: Iterable[Path] = (),
                    what: str = "--output") -> None:
    """Write ``data`` (bytes, or pieces of them written as they come) to ``path`` through a temporary
    file and a rename, once :func:`check_target` allows it."""
    target, info = check_target(path, inputs, what)
    try:
        _replace(target, data, stat.S_IMODE(info.st_mode) if info else _default_mode())
    except OSError as error:
        raise InputError(f"{what}: cannot write {path}: {error.strerror or error}") from None


def check_target(path: Path, inputs: Iterable[Path] = (), what: str = "--output") -> tuple[str, "os.stat_result | None"]:
    """``path`` resolved, and what is there now (None: nothing), when a command may replace it.
    Refused, in one InputError naming ``what``: any of ``inputs``, anything the package ships (its
    modules, KB files and schools), the process's standard streams, a file without write
    permission (0444), and anything but a regular file (a FIFO, a device, a directory)."""
    target = os.path.realpath(path)
    for source in inputs:
        if _same(target, source):
            raise InputError(f"{what}: {path} is one of the files read; give another file")
    if any(_within(target, folder) for folder in shipped()):
        raise InputError(f"{what}: {path} is one of the package's own files; give another file")
    try:
        info = os.stat(path)  # what the name leads to (/dev/stdout: a FIFO or a terminal)
    except (OSError, ValueError):
        return target, None
    if _standard_stream(info):
        raise InputError(f"{what}: {path} is one of this command's standard streams; leave out {what} to print")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{what}: {path} is {_kind(info.st_mode)}, not a regular file; give a file to write")
    if not stat.S_IMODE(info.st_mode) & 0o222 or not os.access(target, os.W_OK):
        raise InputError(f"{what}: {path} is read-only; make it writable or give another file")
    return target, info


def _standard_stream(info: os.stat_result) -> bool:
    """Whether the file is open as standard input, output or error (``/dev/stdout`` redirected to a file)."""
    for fd in (0, 1, 2):
        try:
            if os.path.samestat(info, os.fstat(fd)):
                return True
        except OSError:
            pass
    return False


def shipped() -> list[str]:
    """The folders the package's files live in (resolved: the KB folder may be a link to elsewhere)."""
    package = Path(__file__).parents[1]
    return sorted({os.path.realpath(package), os.path.realpath(package / "kb")})


def _within(target: str, folder: str) -> bool:
    return target == folder or target.startswith(folder.rstrip(os.sep) + os.sep)


def _replace(target: str, data: "bytes | Iterable[bytes]", mode: int) -> None:
    import tempfile  # only to write: most commands write to standard output

    folder, name = os.path.split(target)
    fd, temporary = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines([data] if isinstance(data, bytes) else data)
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
