"""The matter asked (占事) as a chart input: one of the KB's ``matter`` kind, given in Chinese
(traditional or simplified) or by its English name (``matter_en``).

    >>> from liuren_logic import Session
    >>> s = Session()
    >>> matter_fact(s.base, "weather")[:2], matter_fact(s.base, "天时")[:2]
    (('matter', ['天時']), ('matter', ['天時']))
"""
from __future__ import annotations

from .errors import InputError
from .inputs import members
from ..datalog.script import traditional


def parse_matter(kb, text: str) -> str:
    """The matter ``text`` names; an unknown one is refused naming the twelve."""
    value = traditional(str(text).strip())
    known = members(kb, "matter")
    if value in known:
        return value
    english = {str(en).lower(): m for m, en in kb.query("matter_en", [None, None])}
    if value.lower() in english:
        return english[value.lower()]
    names = " ".join(f"{m} ({en})" for m, en in sorted(kb.query("matter_en", [None, None]), key=lambda r: known.index(r[0])))
    raise InputError(f"unknown matter {text!r} for --matter; expected one of {names}",
                     f"「{text}」非占事：應為{'、'.join(map(str, known))}之一", "matter")


def matters(kb) -> list[tuple[str, str]]:
    """The twelve matters with their English names, in the order ``--matter``'s message names them."""
    known = members(kb, "matter")
    return sorted(((str(m), str(en)) for m, en in kb.query("matter_en", [None, None])), key=lambda r: known.index(r[0]))


def matter_fact(kb, text: str) -> tuple:
    """The input fact (relation, arguments after the chart id, origin) of a matter given as ``text``."""
    value = parse_matter(kb, text)
    shown = "" if value == str(text).strip() else f" ({value})"
    return ("matter", [value], f"given: the matter asked is {text}{shown}")
