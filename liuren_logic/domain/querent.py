"""Given facts beyond a chart's own inputs: the querent's birth and sex (本命, 行年), and the
year or month of a chart cast from pillars. Each becomes an input fact with its origin.

    >>> from liuren_logic import Session
    >>> s = Session()
    >>> [f[:2] for f in given_facts(s.base, born="1970", sex="m").facts]
    [('birth_year', [1970]), ('sex', ['男'])]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from .errors import CalendarError, InputError
from .inputs import field_named, parse_pillar, parse_symbol
from .matter import matter_fact
from ..datalog.script import traditional

SEXES = {"m": "男", "male": "男", "man": "男", "男": "男", "f": "女", "female": "女", "woman": "女", "女": "女"}
_YEAR = re.compile(r"\s*-?\d{1,4}\s*")
_DATE = re.compile(r"\s*\d{1,4}-\d{1,2}-\d{1,2}\s*")


@dataclass(frozen=True)
class Given:
    """Facts as (relation, arguments after the chart id, origin), a tag for the chart id, and
    the numbers a cast checks against its own year (the birth year, the chart's year)."""

    facts: tuple = ()
    tag: str = ""
    birth_year: Optional[int] = None
    chart_year: Optional[int] = None

    def check(self, chart_year: Optional[int] = None) -> None:
        """Refuse a birth after the chart's year (no 虛歲 below 1)."""
        year = chart_year if chart_year is not None else self.chart_year
        if self.birth_year is not None and year is not None and self.birth_year > year:
            raise InputError(f"born in {self.birth_year}, after the chart's year {year}: no 虛歲 to count",
                             f"生於 {self.birth_year} 年，晚於課之年 {year}：無虛歲可數", "born")


Year = Union[int, str, None]


# The options (of the command line; the app's fields share their names) that give each input relation of a chart.
GIVEN_BY = {"birth_year": "--born", "birth_pillar": "--born", "sex": "--sex", "life_given": "--natal or --xingnian",
            "chart_year": "--year (or --at)", "year": "--year (or --at)", "month": "--month (or --at)",
            "given_month": "--month", "matter": "--matter", "qi": "--at", "lunar_month": "--at", "days_to_li": "--at",
            "sun_up": "--at", "sun_down": "--at"}


def options_giving(relations: Iterable[str], lang: str = "en") -> str:
    """The options that give these input relations, each once: ``--born, --sex`` (zh: ``--born、--sex``)."""
    given = ", ".join(dict.fromkeys(GIVEN_BY.get(r, r) for r in relations))
    if lang != "zh":
        return given
    return given.replace(", ", "、").replace(" (or ", "（或 ").replace(")", "）").replace(" or ", " 或 ")


def still_needed(missing: Iterable[str], present: Iterable[str]) -> list[str]:
    """The ``missing`` input relations whose option gave none of the ``present`` ones (--born gave
    birth_year: birth_pillar, which it could have given, is not asked for), in order."""
    given = {GIVEN_BY.get(r) for r in present}
    return sorted(r for r in missing if GIVEN_BY.get(r, r) not in given)


def given_facts(kb, born: Year = None, sex: Optional[str] = None, tz: str = "Asia/Shanghai",
                year: Year = None, month: Optional[str] = None, matter: Optional[str] = None,
                natal: Optional[str] = None, xingnian: Optional[str] = None, question: Optional[str] = None) -> Given:
    """Read ``born`` (1990, 庚午 or a birth date), ``sex`` (m/f, 男/女), for charts cast from
    pillars ``year`` (1998 or 戊寅) and ``month`` (亥 or 癸亥), and the ``matter`` asked (天時, weather).
    ``natal`` and ``xingnian``: the 本命 or 行年 branch itself, where a text names it and not the
    birth (a 本命 with ``born``, or a 行年 with ``sex``, which derive them, is refused)."""
    facts, tags = [], []
    birth_year = chart_year = None
    for role, branch, rival, what in (("本命", natal, born, "born"), ("行年", xingnian, sex, "sex")):
        if branch is not None:
            if rival is not None:
                raise InputError(f"the {role} {branch} and {what} both given: give one "
                                 f"(the {role} follows from {what})",
                                 f"{role} {branch} 與 --{what} 只可給其一（{role}由 --{what} 推得）", what)
            value = parse_symbol(kb, branch, "branch", f"the {role}")
            facts.append(("life_given", [role, value], f"given: the {role} {value}"))
            tags.append(f"{role}{value}")
    if born is not None:
        fact, birth_year = _born(kb, born, tz)
        facts.append(fact)
        tags.append(f"生{born}".replace(" ", "T"))
    if sex is not None:
        if born is None:
            raise InputError("--sex needs --born (the 行年 counts from the year of birth)",
                             "須並給生年或生日（行年自生年起算）", "sex")
        value = SEXES.get(traditional(str(sex).strip().lower()))
        if value is None:
            raise InputError(f"unknown sex {sex!r}; expected m or f (男 or 女)", f"「{sex}」不識：應為男或女", "sex")
        facts.append(("sex", [value], f"given: sex {sex} ({value})"))
        tags.append(value)
    if year is not None:
        year_facts, chart_year = _year(kb, year)
        facts += year_facts
        tags.append(f"{year}年")
    if month is not None:
        facts.append(_month(kb, month))
        tags.append(f"{month}月")
    if matter is not None:
        fact = matter_fact(kb, matter)
        facts.append(fact)
        tags.append(f"占{fact[1][0]}")
        words = asked_words(kb, fact[1][0], question)
        facts += [("asked_word", [w], f"given: the question has the word 「{w}」") for w in words]
        tags += [f"問{''.join(words)}"] if words else []
    given = Given(tuple(facts), " ".join(tags), birth_year, chart_year)
    given.check()
    return given


def asked_words(kb, matter: str, question: Optional[str]) -> list[str]:
    """The words of the KB's word tables for ``matter`` (``question_word``: the question asked;
    ``side_word``: the querent's side in a lawsuit) that the querent's ``question`` contains, in
    the tables' order; a question with none of them names no question (the matter's default
    stands, which is no error)."""
    if not question:
        return []
    text = traditional(str(question))
    tables = [t for t in ("question_word", "side_word") if t in kb.program.preds]
    return list(dict.fromkeys(str(w) for t in tables for _, w, _ in kb.query(t, [matter, None, None]) if str(w) in text))


def _is_year(value, what: str = "the year") -> bool:
    """Whether ``value`` is a year number (-9999 to 9999); a longer number is an InputError naming ``what``."""
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value) and not _YEAR.fullmatch(value):
        raise InputError(f"{what} {value.strip()} is out of range: a year number has at most four digits "
                         f"(-9999 to 9999); or give a pillar such as 戊寅",
                         f"{value.strip()} 超出年份之範圍（-9999 至 9999）；或給干支，如戊寅", field_named(what))
    return isinstance(value, int) and not isinstance(value, bool) or isinstance(value, str) and _YEAR.fullmatch(value)


def _born(kb, born, tz: str) -> tuple[tuple, Optional[int]]:
    from .calendar import moment

    if _is_year(born, "the birth year"):
        value = int(born)
        return ("birth_year", [value], f"given: born in {value} (the year from its 立春)"), value
    text = str(born).strip()
    if len(traditional(text)) == 2:
        stem, branch = parse_pillar(kb, text, "the birth year")
        return ("birth_pillar", [stem, branch], f"given: born in a {stem}{branch} year"), None
    try:
        if _DATE.fullmatch(text):  # a date alone: the year is certain unless 立春 falls on that day
            first, last = moment(f"{text} 00:00", tz), moment(f"{text} 23:59", tz)
            if first.year != last.year:
                raise InputError(f"born {text}: 立春 falls on that day ({last.reasons()['year_pillar']}); give the hour",
                                 f"{text}：是日交立春，須給時辰", "born")
            m = first
        else:
            m = moment(text, tz)
    except CalendarError as error:
        raise InputError(f"cannot read the birth {born!r}: {error} (or give a year such as 1990, or a pillar such as 庚午)",
                         f"「{born}」讀不出：應為年份（如 1990）、干支（如庚午）或日期（如 1970-02-03 08:00）",
                         "born") from None
    return ("birth_year", [m.year], f"born {text} ({tz}): {m.reasons()['year_pillar']}, so the year {m.year}"), m.year


def _year(kb, year) -> tuple[list, Optional[int]]:
    """A year number gives the number and its pillar (the KB's sixty pillars, 甲子 = year 4); a
    pillar gives the pillar alone."""
    if _is_year(year):
        value = int(year)
        (stem, branch, _), = kb.query("pillar_index", [None, None, (value - 4) % 60])
        return [("chart_year", [value], f"given: the chart's year {value}"),
                ("year", [stem, branch], f"given: the year {value}, whose pillar is {stem}{branch}")], value
    stem, branch = parse_pillar(kb, str(year), "the year")
    return [("year", [stem, branch], f"given: year pillar {stem}{branch}")], None


def _month(kb, month: str) -> tuple:
    text = traditional(str(month).strip())
    if len(text) == 2:
        stem, branch = parse_pillar(kb, text, "the month")
        return ("month", [stem, branch], f"given: month pillar {stem}{branch}")
    branch = parse_symbol(kb, text, "branch", "the month")
    return ("given_month", [branch], f"given: month branch {branch}")
