"""One error family for everything a user can get wrong: its root, the KB's errors and the input
error are the Datalog layer's (:mod:`liuren_logic.datalog.errors`); the chart's calendar adds its own,
and :class:`Notice` says what a user should know of an input that is not wrong.
"""
from __future__ import annotations

import errno
from dataclasses import dataclass

from ..datalog.errors import DatalogError as LiurenError  # noqa: F401 (the family's root)
from ..datalog.errors import (  # noqa: F401 (the family, in one place)
    SHOWN, InputError, KBError, Position, Problem, render, shown)


@dataclass(frozen=True)
class Notice:
    """What a user should know of an input that is not wrong (a coordinate that changes nothing, the
    zone assumed): ``kind`` (warning or note), the message, the same in Chinese, the input it is about.
    The command line says it on standard error; the app shows it with its answer."""

    kind: str
    message: str
    zh: str
    field: str = ""

    def said(self, lang: str) -> str:
        """The message in ``lang``."""
        return self.zh if lang == "zh" else self.message

    def __str__(self) -> str:
        return f"liuren: {self.kind}: {self.message}"


class CalendarError(InputError):
    """A date, time zone or place that the calendar cannot turn into a chart."""




# What the system said when it refused a file, in Chinese (its strerror is English).
_REFUSED_ZH = {errno.ENOENT: "無此檔案", errno.EACCES: "無權存取", errno.EPERM: "不許此操作",
               errno.EISDIR: "此為資料夾", errno.ENOTDIR: "路徑中有一段不是資料夾", errno.ENOSPC: "磁碟已滿",
               errno.EROFS: "檔案系統唯讀", errno.ENAMETOOLONG: "名稱過長", errno.ELOOP: "符號連結繞圈",
               errno.EIO: "讀寫出錯", errno.EDQUOT: "超出磁碟配額", errno.EBUSY: "正被佔用",
               errno.EADDRINUSE: "此位址已被佔用", errno.EADDRNOTAVAIL: "此位址不可用"}
# What a file's mode says it is (school.file_kind's words), in Chinese.
FILE_KINDS_ZH = {"a regular file": "一般檔案", "a directory": "資料夾", "a FIFO": "具名管道（FIFO）",
                 "a device": "裝置", "a socket": "通訊端（socket）", "some other kind of file": "他類檔案"}


def refused_zh(error: OSError) -> str:
    """The reason the system refused a file, in Chinese (its error name where no word is known)."""
    return _REFUSED_ZH.get(error.errno, errno.errorcode.get(error.errno or 0, "系統拒絕"))
