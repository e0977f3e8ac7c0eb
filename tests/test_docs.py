"""The examples in the docstrings run as written."""
from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["liuren_logic", "liuren_logic.domain.session", "liuren_logic.explain.lesson",
                                  "liuren_logic.explain.picture", "liuren_logic.explain.view", "liuren_logic.datalog.labels", "liuren_logic.datalog.digraph",
                                  "liuren_logic.datalog.script", "liuren_logic.domain.matter"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
