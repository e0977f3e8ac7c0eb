"""Simplified and traditional characters: input is normalised, output can be either.

The table (``simplified.txt``, beside this module) covers every character the KB and the package write
that has a simplified form; any other character passes through unchanged.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[int, str], dict[int, str]]:
    rows = [line.split() for line in Path(__file__).with_name("simplified.txt").read_text("utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    to_trad = {ord(row[0]): row[1] for row in rows if row[2:] != ["out"]}  # an `out` pair is never read back
    to_simp = {ord(row[1]): row[0] for row in rows}
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
