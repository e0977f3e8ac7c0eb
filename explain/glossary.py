"""English glosses at a term's first use: '官鬼' → '官鬼 (officer-ghost: what overcomes the stem)'
(on the board, where space is short, the gloss's head: '官鬼 (officer-ghost)').

The glosses are the KB's (``term_gloss`` of kb/core/glossary.dl for the six kin, the generals,
the methods, their sub-names, the 課體 and 斷's kinds of finding; ``pattern_gloss`` for the
patterns; ``matter_en`` for the matters); docs/glossary.md lists them. A gloss goes after a
whole term only: never inside a longer name the KB knows (a 課體, a pattern, a reading).

>>> gloss_first("the initial 午 carries 官鬼; 官鬼 again", {"官鬼": "officer-ghost"})
'the initial 午 carries 官鬼 (officer-ghost); 官鬼 again'
>>> gloss_first("比用格 (the 大全) takes 比用", {"比用": "comparing"}, known={"比用格 (the 大全)"})
'比用格 (the 大全) takes 比用 (comparing)'
>>> gloss_first("未（用神之絕）; the 用神 未", {"用神": "the operative spirit"})
'未（用神之絕）; the 用神 (the operative spirit) 未'
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Collection, Mapping, Optional

from liuren_logic.domain.school import names, reading_name

RELATIONS = ("term_gloss", "pattern_gloss", "matter_en")  # (term, gloss, …): the first two columns


def glossary(session) -> dict[str, str]:
    """Every glossed term of the session's KB → its English gloss (a term's first gloss wins)."""
    found: dict[str, str] = {}
    for pred in RELATIONS:
        if pred in session.program.preds:
            arity = session.program.preds[pred].arity
            for row in sorted(session.base.query(pred, [None] * arity)):
                found.setdefault(str(row[0]), str(row[1]))
    return found


def short(gloss: str) -> str:
    """A gloss's head, for a compact display (the board): its words before the first ': '.

    >>> short("officer-ghost: what overcomes the stem")
    'officer-ghost'
    """
    return gloss.partition(": ")[0]


def known_terms(session) -> frozenset[str]:
    """The names a gloss must not break into: every name of two characters or more of the KB's
    kinds, and each disputed topic's and reading's name (kb/variants/names.json) as shown."""
    found = {str(m) for members in session.program.members.values() for m in members or ()}
    for topic, entry in names().items():
        for lang in ("zh", "en"):
            found.add(entry[lang])
            for reading, named in entry["readings"].items():
                found.update((named[lang], reading_name(topic, reading, lang)))
    return frozenset(t for t in found if len(t) > 1)


@lru_cache(maxsize=8)
def _terms(terms: frozenset) -> re.Pattern:
    """One pattern matching any of the terms, a longer one before a shorter one it starts with."""
    return re.compile("|".join(map(re.escape, sorted(terms, key=lambda t: (-len(t), t)))))


def glossed_lines(session, lines: list[str], seen: Optional[set] = None) -> list[str]:
    """English lines read as one text, each term glossed at its first use in them (a why-not's answer)
    or, with ``seen``, since the texts before them (:func:`gloss_first`)."""
    return gloss_first("\n".join(lines), glossary(session), seen, known_terms(session)).split("\n")


_CJK = re.compile(r"[\u3400-\u9fff]")
_QUOTED = re.compile(r"「[^」]*」|«[^»]*»|《[^》]*》[:：][^)）\n]*")  # a line quoted, or cited from a book


def gloss_first(text: str, glosses: Mapping[str, str], seen: Optional[set] = None,
                known: Collection[str] = ()) -> str:
    """``text`` with each glossed term followed by its gloss at its first use on its own; a longer
    term is matched before a shorter one inside it, and a ``known`` name (:func:`known_terms`) is
    passed over whole. Not a use on its own: a term within a Chinese phrase (a CJK character next
    to it: 用神之絕) or in a quoted line (「…」, «…», 《book》: line). A term already followed by a
    parenthesis is used but left as it is.
    ``seen``: the terms used before (in earlier texts of the same document); the terms used here
    are added to it."""
    if not glosses:
        return text
    terms = _terms(frozenset(glosses) | frozenset(known))
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    seen = set() if seen is None else seen
    out, last = [], 0
    for match in terms.finditer(text):
        (start, end), term = match.span(), match.group()
        if term not in glosses or term in seen or any(a <= start < b for a, b in quoted) \
                or _CJK.match(text[start - 1:start]) or _CJK.match(text[end:end + 1]):
            continue
        seen.add(term)
        if text.startswith((" (", "（", "("), end):
            continue
        out += [text[last:end], f" ({glosses[term]})"]
        last = end
    return "".join(out) + text[last:]
