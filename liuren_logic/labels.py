"""Label templates: ``"{U}剋{L}"`` filled with a rule's bindings or a predicate's arguments.

Slots are plain names in braces; nothing else in a template is interpreted, so a
label from a user's KB file stays text.
"""
from __future__ import annotations

import re
from typing import Mapping

_SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fill(template: str, values: Mapping[str, object], missing: str = "？") -> str:
    """Fill a template's slots; an unbound slot reads ``？``.

    >>> fill("{a}沖{b}", {"a": "子", "b": "午"})
    '子沖午'
    >>> fill("第{N}課", {"N": None})
    '第？課'
    """

    def value(match: re.Match) -> str:
        found = values.get(match.group(1))
        return missing if found is None else str(found)

    return _SLOT.sub(value, template)


def atom_label(decl, args, lang: str) -> str:
    """A predicate's label for these arguments, or '' when it has none in that language."""
    template = decl.label(lang) if decl is not None else ""
    if not template:
        return ""
    return fill(template, {name: value for (name, _), value in zip(decl.params, args)})
