"""A mapping that makes each missing key's value when first asked."""
from __future__ import annotations

from typing import Callable


class Memo(dict):
    """``memo[key]`` is ``make(key)``, made once; a hit is one C call (``map(memo.__getitem__, keys)``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value
