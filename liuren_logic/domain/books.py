"""The books the rules cite: a rule's source starts with a key (``000``, ``指南卷三``) that names its
book (``data/sources.txt``); these functions show the book by name, never by key."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def books() -> dict[str, tuple[str, str]]:
    """The key a rule's source starts with → the book's name in Chinese and in English (data/sources.txt)."""
    rows = (Path(__file__).parents[1] / "data" / "sources.txt").read_text("utf-8").splitlines()
    return {key: (zh, en) for key, zh, en in (r.split("\t") for r in rows if r.strip() and not r.startswith("#"))}


def book(source: str, lang: str) -> str:
    """The book a rule's source cites, by name: ``'指南卷三: 將神之司…'`` → ``'《六壬指南》卷三'``; a
    source of no known book stays as its key.

    >>> book("003: 課得天網，正是被纏之象", "en")
    '《註解大六壬指南》 vol. 16'
    """
    key = source.partition(": ")[0].strip()
    return books().get(key, (key, key))[lang != "zh"]


def cite(source: str, lang: str) -> str:
    """A rule's source with its book by name: ``'大全: 凡卦…'`` → ``'《六壬大全》：凡卦…'``; '' stays ''.

    >>> cite("000: 取課先從下賊呼", "zh")
    '《福山堂》：取課先從下賊呼'
    """
    key, sep, line = source.partition(": ")
    book = books().get(key.strip())
    if not sep or book is None:
        return source
    return f"{book[0]}：{line}" if lang == "zh" else f"{book[1]}: {line}"
