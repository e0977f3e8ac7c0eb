"""The user's files, read and written without surprises.

:func:`read_regular` reads only a regular file up to a size limit (never a FIFO, a device
or ``/dev/zero``); :func:`write_replacing` writes beside the target and renames, so a full
disk or a crash leaves the old file whole, and never writes over one of the inputs, the
package's own files, a read-only file or anything but a regular file; nor, unless forced, over
what is installed (the interpreter's prefix, site-packages), an executable, or a file whose
content is of another kind than the output's (:func:`sniffed`).
"""
from __future__ import annotations

import os
import re
import site
import stat
import sys
from pathlib import Path
from typing import Iterable, Optional

from ..domain.errors import FILE_KINDS_ZH, InputError, refused_zh
from ..domain.school import file_kind


def read_regular(path: Path, what: str, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; else one InputError naming ``what``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting for a writer
    except OSError as error:
        raise InputError(f"{what}: cannot read {path}: {error.strerror}",
                         f"{what} 讀不了 {path}：{refused_zh(error)}") from None
    try:
        kind = file_kind(os.fstat(fd).st_mode)
        if kind != "a regular file":
            raise InputError(f"{what}: {path} is not a regular file but {kind}",
                             f"{what} 之 {path} 不是一般檔案，而是{FILE_KINDS_ZH[kind]}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as error:  # a disk error while reading
        raise InputError(f"{what}: cannot read {path}: {error.strerror or error}",
                         f"{what} 讀不了 {path}：{refused_zh(error)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"{what}: {path} is larger than {limit:,} bytes", f"{what} 之 {path} 大於 {limit:,} 字節")
    return data


def write_replacing(path: Path, data: "bytes | Iterable[bytes]", inputs: Iterable[Path] = (),
                    what: str = "--output", kind: Optional[str] = None, force: bool = False) -> None:
    """Write ``data`` (bytes, or pieces of them written as they come) to ``path`` through a temporary
    file and a rename, once :func:`check_target` allows it."""
    target, info = check_target(path, inputs, what, kind, force)
    try:
        _replace(target, data, stat.S_IMODE(info.st_mode) if info else _default_mode())
    except OSError as error:
        raise InputError(f"{what}: cannot write {path}: {error.strerror or error}",
                         f"{what} 寫不了 {path}：{refused_zh(error)}") from None


def check_target(path: Path, inputs: Iterable[Path] = (), what: str = "--output", kind: Optional[str] = None,
                 force: bool = False) -> tuple[str, "os.stat_result | None"]:
    """``path`` resolved, and what is there now (None: nothing), when a command may replace it.
    Refused, in one InputError naming ``what``: any of ``inputs``, anything the package ships (its
    modules, KB files and schools), the process's standard streams, a file without write
    permission (0444), and anything but a regular file (a FIFO, a device, a directory); unless
    ``force``, anything under the interpreter's prefixes or site-packages, an executable, and an
    existing file that :func:`sniffed` finds of another kind than ``kind`` (an empty one is any kind)."""
    target = os.path.realpath(path)
    for source in inputs:
        if _same(target, source):
            raise InputError(f"{what}: {path} is one of the files read; give another file",
                             f"{what} 之 {path} 是本命令所讀之檔，請另給一檔")
    if any(_within(target, folder) for folder in shipped()):
        raise InputError(f"{what}: {path} is one of the package's own files; give another file",
                         f"{what} 之 {path} 是本套件自己的檔案，請另給一檔")
    installed = next((folder for folder in installed_folders() if _within(target, folder)), None)
    if installed is not None and not force:
        raise InputError(f"{what}: {path} is inside {installed}, where Python and its packages are installed; "
                         "give another file (or --force)",
                         f"{what} 之 {path} 在 {installed} 之內，是 Python 及其套件安裝之處；請另給一檔（或加 --force）")
    try:
        info = os.stat(path)  # what the name leads to (/dev/stdout: a FIFO or a terminal)
    except (OSError, ValueError):
        return target, None
    if _standard_stream(info):
        raise InputError(f"{what}: {path} is one of this command's standard streams; leave out {what} to print",
                         f"{what} 之 {path} 是本命令的標準輸出入；要印出，不給 {what} 即可")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{what}: {path} is {file_kind(info.st_mode)}, not a regular file; give a file to write",
                         f"{what} 之 {path} 是{FILE_KINDS_ZH[file_kind(info.st_mode)]}，不是一般檔案；請給一個可寫的檔案")
    if not stat.S_IMODE(info.st_mode) & 0o222 or not os.access(target, os.W_OK):
        raise InputError(f"{what}: {path} is read-only; make it writable or give another file",
                         f"{what} 之 {path} 唯讀；請令其可寫，或另給一檔")
    if not force and stat.S_IMODE(info.st_mode) & 0o111:
        raise InputError(f"{what}: {path} is an executable; give another file (or --force)",
                         f"{what} 之 {path} 是可執行檔；請另給一檔（或加 --force）")
    found = sniffed(target) if kind is not None and not force else kind
    if found not in (kind, "empty"):
        raise InputError(f"{what}: {path} holds {KIND_NAMES.get(found, found)}, not {KIND_NAMES[kind]}; "
                         "give another file (or --force)",
                         f"{what} 之 {path} 所存是{KIND_NAMES_ZH.get(found, found)}，不是{KIND_NAMES_ZH[kind]}；"
                         "請另給一檔（或加 --force）")
    return target, info


# What each kind of content is called in a refusal.
KIND_NAMES = {"text": "text", "json": "JSON", "graphml": "GraphML", "dot": "a Graphviz graph", "svg": "an SVG picture",
              "png": "a PNG picture", "html": "an HTML page", "pdf": "a PDF document", "xml": "other XML",
              "program": "a program", "archive": "an archive", "binary": "binary data"}
KIND_NAMES_ZH = {"text": "文字", "json": "JSON", "graphml": "GraphML", "dot": "Graphviz 圖", "svg": "SVG 圖",
                 "png": "PNG 圖", "html": "HTML 網頁", "pdf": "PDF 文件", "xml": "他種 XML", "program": "程式",
                 "archive": "壓縮檔", "binary": "二進位資料"}
# The first bytes that say what a file is, whatever its name.
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "png"), (b"%PDF-", "pdf"), (b"\x7fELF", "program"), (b"MZ", "program"),
          (b"#!", "program"), (b"\xca\xfe\xba\xbe", "program"), (b"\xcf\xfa\xed\xfe", "program"),
          (b"PK\x03\x04", "archive"), (b"\x1f\x8b", "archive"), (b"BZh", "archive"), (b"\xfd7zXZ", "archive"))


def sniffed(path: str, size: int = 4096) -> str:
    """What the file's first ``size`` bytes say it holds: ``empty``, one of the outputs' kinds
    (``text``, ``json``, ``graphml``, ``dot``, ``svg``, ``png``, ``html``), or another
    (``pdf``, ``xml``, ``program``, ``archive``, ``binary``); an unreadable file is ``binary``."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(size)
    except OSError:
        return "binary"
    if not head:
        return "empty"
    kind = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if kind is not None:
        return kind
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 3:  # not merely a character cut at the end of the head
            return "binary"
        text = head[:error.start].decode("utf-8")
    if "\0" in text:
        return "binary"
    start = text.lstrip("\ufeff \t\r\n").lower()
    if start.startswith("<?xml") or start.startswith("<svg") or start.startswith("<!doctype svg"):
        return next((kind for tag, kind in (("<svg", "svg"), ("<graphml", "graphml"), ("<html", "html"))
                     if tag in start), "xml")
    if start.startswith(("<!doctype html", "<html")):
        return "html"
    if start.startswith(("{", "[")):
        return "json"
    if re.match(r"(strict\s+)?(di)?graph\b", start):
        return "dot"
    return "text"


def installed_folders() -> list[str]:
    """Where the running interpreter and its packages live (resolved): its prefixes and every
    site-packages folder. A prefix that is the root or the home folder is left out (it would
    hold every file), its site-packages are not."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots = {os.path.realpath(os.sep), os.path.realpath(os.path.expanduser("~"))}
    found = {os.path.realpath(f) for f in folders if f} - roots
    packages = list(getattr(site, "getsitepackages", list)()) + [site.getusersitepackages()]
    found |= {os.path.realpath(f) for f in packages if f}
    return sorted(found)


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
