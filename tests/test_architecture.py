"""The house: folders as layers whose imports point down, no import circle, a small top.

The layers and the engines' independence are import-linter contracts in pyproject.toml
(docs/architecture.md draws them); these tests hold them, so a change cannot quietly break them.
"""
from __future__ import annotations

from pathlib import Path

import grimp
import networkx as nx
import pytest

CHECKOUT = Path(__file__).resolve().parents[1]


def test_the_import_linter_contracts_are_kept(capsys):
    from importlinter.cli import lint_imports

    status = lint_imports(config_filename=str(CHECKOUT / "pyproject.toml"), no_cache=True, no_logo=True)
    said = capsys.readouterr().out
    assert status == 0 and "2 kept, 0 broken" in said, said


@pytest.fixture(scope="module")
def imports() -> nx.DiGraph:
    """Module → module it imports, every import counted (inside functions and type-checking blocks too)."""
    graph = grimp.build_graph("liuren_logic")
    return nx.DiGraph((m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m))


def test_no_module_of_the_package_is_in_an_import_circle(imports):
    circles = [sorted(c) for c in nx.strongly_connected_components(imports) if len(c) > 1]
    assert circles == []


def test_the_datalog_package_imports_nothing_of_liuren(imports):
    above = [(m, i) for m, i in imports.edges if m.startswith("liuren_logic.datalog")
             and not i.startswith("liuren_logic.datalog")]
    assert above == []


def test_the_top_of_the_package_holds_at_most_15_modules():
    top = sorted(p.name for p in (CHECKOUT / "liuren_logic").glob("*.py"))
    assert 0 < len(top) <= 15, top
