"""Label templates: ``"{U}剋{L}"`` filled with a rule's bindings or a predicate's arguments.

Slots are plain names in braces; nothing else in a template is interpreted, so a
label from a user's KB file stays text.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Mapping

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


NUMERALS = "一二三四五六七八九十"

_IDS = ContextVar("ids shown", default=False)


def ids_shown() -> bool:
    """Whether a reader sees the internal ids (rule ids, relation names, reading ids, KB paths) beside
    the names: off unless a developer asked (``--ids``, the app's toggle)."""
    return _IDS.get()


@contextmanager
def showing_ids(on: bool = True):
    """Within the block, every surface shows internal ids (``on``) or names alone."""
    token = _IDS.set(on)
    try:
        yield
    finally:
        _IDS.reset(token)


def with_id(text: str, id_: str, sep: str = " · ") -> str:
    """``text`` as a reader sees it; under :func:`showing_ids`, the internal id before it.

    >>> with_id("《福山堂》", "zeike.upper")
    '《福山堂》'
    >>> with showing_ids():
    ...     with_id("《福山堂》", "zeike.upper")
    'zeike.upper · 《福山堂》'
    """
    if not ids_shown() or not id_:
        return text
    return f"{id_}{sep}{text}" if text else id_

# What an unbound slot reads (a why-not asks about any value there).
ANY = {"zh": "某", "en": "any"}


def number(n: int, lang: str) -> str:
    """``number(11, "zh")`` → ``'十一'``; in English the digits."""
    if lang != "zh" or not 0 <= n < 100:
        return str(n)
    if n == 0:
        return "零"
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("十" if tens == 1 else NUMERALS[tens - 1] + "十")
    return head + (NUMERALS[ones - 1] if ones else "")


ASIDE = re.compile(r"（\{(\w+)\}）| \(\{(\w+)\}\)")  # 「（{a}）」, " ({a})"


def fill(template: str, values: Mapping[str, object], missing: str = ANY["en"], lang: str = "en") -> str:
    """Fill a template's slots; an unbound slot reads ``missing`` (default ``any``); numbers in ``lang``.

    >>> fill("{a}沖{b}", {"a": "子", "b": "午"})
    '子沖午'
    >>> fill("第{N}課", {"N": None}, ANY["zh"])
    '第某課'
    >>> fill("第{N}課", {"N": 3}, lang="zh")
    '第三課'

    A slot that stands alone in brackets is an aside: unbound, it is left out with them.

    >>> fill("斷：{v}（{a}）", {"v": "晴", "a": None}, ANY["zh"])
    '斷：晴'
    """
    template = ASIDE.sub(lambda m: "" if values.get(m.group(1) or m.group(2)) is None else m.group(0), template)

    def value(match: re.Match) -> str:
        found = values.get(match.group(1))
        if found is None:
            return missing
        return number(found, lang) if isinstance(found, int) and not isinstance(found, bool) else str(found)

    filled = _SLOT.sub(value, template)
    return agree(filled) if lang == "en" and 1 in values.values() else filled


_ORDINAL = re.compile(r"第\{([A-Za-z_][A-Za-z0-9_]*)\}")  # 「第{n}課」: unbound, 「課」
_LEFT = "\x00"  # where an unbound slot was, while the words around it are tidied
_TIDY = ((re.compile(r"([,，、]) ?\x00 ?([,，、])"), r"\2"),  # an aside of nothing: 「x, {b}, y」
         (re.compile(r"「\x00」|“\x00”"), ""),  # a word quoted: nothing
         (re.compile(r"\x00"), ""), (re.compile(r"  +"), " "), (re.compile(r" +([,.;:)])"), r"\1"),
         (re.compile(r"^\s*[,，、:：;；]|[,，、:：;；]\s*$"), ""))


def defined(template: str, values: Mapping[str, object], lang: str) -> str:
    """A label read as a definition: its unbound slots left out, not read as 某 or "any", with an
    ordinal's 第 and a separator that would stand next to nothing.

    >>> defined("三光：用神{a}、日干{b}、日支{c}皆旺相", {}, "zh")
    '三光：用神、日干、日支皆旺相'
    >>> defined("魁罡 {b} stands over the stem", {}, "en")
    '魁罡 stands over the stem'
    >>> defined("第{n}傳{b}為所問之類神（{r}）", {}, "zh")
    '傳為所問之類神'
    >>> defined("transmission {n}, {b}, stands for the question ({r})", {}, "en")
    'transmission, stands for the question'
    >>> defined("{V}，格凶定當以凶斷", {}, "zh")
    '格凶定當以凶斷'
    >>> defined("a rescue: {r} ({a})", {}, "en")
    'a rescue'
    >>> defined("所問有「{w}」字", {}, "zh"), defined("for {q}, look at the {k}", {"q": "病"}, "en")
    ('所問有字', 'for 病, look at the')
    """
    template = _ORDINAL.sub(lambda m: m.group(0) if values.get(m.group(1)) is not None else "{%s}" % m.group(1),
                            template)
    text = fill(template, values, _LEFT, lang)
    for pattern, replacement in _TIDY:
        text = pattern.sub(replacement, text)
    return text.strip()


_ONE_ARE = re.compile(r"\bare 1 ")
_ONE_PLURAL = re.compile(r"\b1 ((?:\S+ )?)(?!does\b)([a-z]{2,}[^s])s\b")


def agree(text: str) -> str:
    """English number agreement after a count of one: 'there are 1 candidates' → 'there is 1 candidate'.

    >>> agree("there are 1 candidates; heaven turns 1 places; 1 遙剋 candidates; 1 has")
    'there is 1 candidate; heaven turns 1 place; 1 遙剋 candidate; 1 has'
    """
    return _ONE_PLURAL.sub(r"1 \1\2", _ONE_ARE.sub("is 1 ", text))


def atom_label(decl, args, lang: str) -> str:
    """A predicate's label for these arguments, or '' when it has none in that language; an argument
    left open (None, a why-not's pattern) is left out, as a definition reads it (:func:`defined`).

    >>> from types import SimpleNamespace as Decl
    >>> rescue = Decl(params=[("c", "text"), ("r", "text"), ("a", "any")], label=lambda lang: "救神{r}（{a}）")
    >>> atom_label(rescue, ("c", None, None), "zh"), atom_label(rescue, ("c", "日上制之", "午"), "zh")
    ('救神', '救神日上制之（午）')
    """
    template = decl.label(lang) if decl is not None else ""
    if not template:
        return ""
    values = {name: value for (name, _), value in zip(decl.params, args)}
    return defined(template, values, lang) if None in args else fill(template, values, lang=lang)
