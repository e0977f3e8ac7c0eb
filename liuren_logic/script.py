"""Simplified and traditional characters: input is normalised, output can be either.

The table (``data/simplified.txt``) covers the characters of this domain's terms;
any other character passes through unchanged.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[int, str], dict[int, str]]:
    pairs = []
    for line in (Path(__file__).parent / "data" / "simplified.txt").read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            simplified, traditional = line.split()
            pairs.append((simplified, traditional))
    to_trad = {ord(s): t for s, t in pairs}
    to_simp = {ord(t): s for s, t in pairs}
    return to_trad, to_simp


def traditional(text: str) -> str:
    """
    >>> traditional("贼克")
    '賊剋'
    """
    return text.translate(_tables()[0])


def simplified(text: str) -> str:
    """
    >>> simplified("賊剋")
    '贼克'
    """
    return text.translate(_tables()[1])
