"""English glosses at a term's first use: '官鬼' → '官鬼 (officer-ghost: what overcomes the stem)'.

The glosses are the KB's (``term_gloss`` of kb/core/glossary.dl for the six kin, the generals,
the methods, their sub-names and the 課體; ``pattern_gloss`` for the patterns); docs/glossary.md
lists them.

>>> gloss_first("the initial 午 carries 官鬼; 官鬼 again", {"官鬼": "officer-ghost"})
'the initial 午 carries 官鬼 (officer-ghost); 官鬼 again'
"""
from __future__ import annotations

import re
from typing import Mapping, Optional

RELATIONS = ("term_gloss", "pattern_gloss")  # (term, gloss, …): the first two columns


def glossary(session) -> dict[str, str]:
    """Every glossed term of the session's KB → its English gloss (a term's first gloss wins)."""
    found: dict[str, str] = {}
    for pred in RELATIONS:
        if pred in session.program.preds:
            arity = session.program.preds[pred].arity
            for row in sorted(session.base.query(pred, [None] * arity)):
                found.setdefault(str(row[0]), str(row[1]))
    return found


_QUOTED = re.compile(r"「[^」]*」|«[^»]*»")


def gloss_first(text: str, glosses: Mapping[str, str], seen: Optional[set] = None) -> str:
    """``text`` with each glossed term followed by its gloss at its first use; a longer term is
    matched before a shorter one inside it, and a quoted line (「…」, «…») or a term already
    followed by a parenthesis is left as it is. ``seen``: the terms used before (in earlier
    texts of the same document); the terms used here are added to it."""
    if not glosses:
        return text
    terms = re.compile("|".join(map(re.escape, sorted(glosses, key=len, reverse=True))))
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    seen = set() if seen is None else seen
    out, last = [], 0
    for match in terms.finditer(text):
        term, end = match.group(), match.end()
        if term in seen or any(a <= match.start() < b for a, b in quoted):
            continue
        seen.add(term)
        if text.startswith((" (", "（", "("), end):
            continue
        out += [text[last:end], f" ({glosses[term]})"]
        last = end
    return "".join(out) + text[last:]
