"""What terms, comparisons, arithmetic and aggregates mean, defined once.

Both engines (bottom-up :mod:`~liuren_logic.datalog.evaluate` and pyDatalog through
:mod:`~liuren_logic.datalog.compiler`) and the explainer call these functions, so they cannot
drift apart. Values are whole numbers and texts:

- ``=`` and ``!=`` compare values: a number never equals a text (``1 != "1"``);
- ``< <= > >=`` order two numbers, or two texts by code point; between a number and a
  text none of them holds;
- ``+ - * mod`` take two numbers; anything else, or ``mod 0``, has no value (the
  binding is dropped); a result of 2**63 or more in size is an :class:`IntegerLimit`;
- ``count`` counts the distinct values of the aggregated variable, ``sum`` adds the
  distinct numbers among them (a text adds nothing; no number, no sum; a sum of 2**63 or more in
  size is an :class:`IntegerLimit`), ``max`` and
  ``min`` take them in :func:`sort_key` order (numbers before texts). An empty group has a count of 0 and
  no sum, max or min.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from .errors import DatalogError

Value = Union[str, int]
INTEGER_BITS = 63  # arithmetic results stay within ±2**63

_ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "mod": operator.mod}
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class IntegerLimit(DatalogError):
    """Arithmetic produced a number too large to keep (the rule is named by the caller)."""


@dataclass(frozen=True)
class Limits:
    """How much one evaluation may do before it stops with :class:`EvaluationLimit`."""

    tuples: int = 5_000_000  # rows added to the store (relations, helper and non-recursive fire relations)
    rounds: int = 10_000  # rounds of one recursive stratum
    firings: int = 50_000_000  # firings found by recursive rules (not kept: found again when a why asks)
    step_bytes: int = 800_000_000  # memory the bindings one step of a body builds may take (estimated first)


class EvaluationLimit(DatalogError):
    """An evaluation went past one of its bounds; names the rule and the relation that grew."""

    def __init__(self, rule, what: str):
        super().__init__(f"rule {rule.id} ({rule.pos}): {what}")


def arithmetic(op: str, left, right) -> Optional[int]:
    """``left op right``, or None when it has no value."""
    if type(left) is not int or type(right) is not int or (op == "mod" and right == 0):
        return None
    return _within(_ARITHMETIC[op](left, right), f"{left} {op} {right}")


def _within(value: int, what: str) -> int:
    """``value``, or an :class:`IntegerLimit` saying ``what`` made it if it is 2**63 or more in size."""
    if value.bit_length() > INTEGER_BITS:
        raise IntegerLimit(f"{what} is {'larger' if value > 0 else 'smaller'} than {'' if value > 0 else '−'}"
                           f"(2**{INTEGER_BITS} − 1), the bound of whole numbers")
    return value


def compare(op: str, left, right) -> bool:
    """Whether ``left op right`` holds."""
    if op == "=":
        return left == right and type(left) is type(right)
    if op == "!=":
        return left != right or type(left) is not type(right)
    return type(left) is type(right) and _ORDER[op](left, right)


def aggregate(func: str, values: Iterable[Value]) -> Optional[Value]:
    """The value of an aggregate over a group's distinct values (None when it has none)."""
    values = set(values)
    if func == "count":
        return len(values)
    if func == "sum":
        numbers = [v for v in values if type(v) is int]
        return _within(sum(numbers), f"the sum of {len(numbers)} numbers") if numbers else None
    if not values:
        return None
    return (max if func == "max" else min)(values, key=value_key)


def value_key(value: Value) -> tuple:
    """Numbers first, by size; then texts, by code point."""
    return (0, value, "") if type(value) is int else (1, 0, value)


def sort_key(row: tuple) -> tuple:
    return tuple(map(value_key, row))
