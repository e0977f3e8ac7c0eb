"""A mapping that makes each missing key's value when first asked."""
from __future__ import annotations

from typing import Callable
from weakref import WeakMethod


class LazyDict(dict):
    """``made[key]`` is ``make(key)``, made once; a hit is one C call (``map(made.__getitem__, keys)``).

    ``make`` is a method of the object that holds the dict, held weakly so that the two make no
    reference cycle: the object is freed as soon as it is dropped, not at the cyclic collector's next
    full pass (a long audit drops a batch of charts every few hundred; a batch's evaluation pauses the
    collector). Whoever keeps the dict to read it later keeps its object too."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable):
        super().__init__()
        self._make = WeakMethod(make)

    def __missing__(self, key):
        value = self[key] = self._make()(key)
        return value
