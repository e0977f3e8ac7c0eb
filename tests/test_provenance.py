"""Derivations: minimal, acyclic, grounded in facts, stable byte for byte; why-not names the failure."""
from __future__ import annotations

import json

import networkx as nx
import pytest

from liuren_logic.datalog.checker import check
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.provenance import Derivable, Explainer, NotDerivable, bindings

LEAVES = {"fact", "compare", "absent"}


def explainer(text: str) -> Explainer:
    return Explainer(Materialisation(KnowledgeBase(check([parse(text, "t.dl")]))))


def node_link(graph: nx.DiGraph) -> dict:
    return nx.node_link_data(graph, edges="edges")


def leaves(graph: nx.DiGraph) -> set[str]:
    return {graph.nodes[n]["kind"] for n in graph if graph.out_degree(n) == 0}


AGGREGATES = ("@kind b: 子 丑 寅 卯.\n@pred idx(x: b, n: int).\n@pred top(n: int).\n@pred low(x: b, n: int).\n"
              "idx(子, 0). idx(丑, 1). idx(寅, 2). idx(卯, 1).\n"
              "top(M) :- M = max I : { idx(_, I) }.\n"
              "low(X, M) :- idx(X, _), M = min I : { idx(Y, I), Y != X }.\n")


@pytest.mark.parametrize("engine", ["materialise", "pydatalog"])
@pytest.mark.parametrize("question, value, counted", [
    (("top", (2,)), 2, {"idx(子, 0)": "0", "idx(丑, 1)": "1", "idx(寅, 2)": "2", "idx(卯, 1)": "1"}),
    (("low", ("子", 1)), 1, {"idx(丑, 1)": "1", "idx(寅, 2)": "2", "idx(卯, 1)": "1"})])
def test_an_aggregates_children_are_the_atoms_it_rests_on_under_both_engines(engine, question, value, counted):
    """A max or min, with a group or without: one child per witness, the winners marked chosen."""
    kb = KnowledgeBase(check([parse(AGGREGATES, "t.dl")]))
    graph = Explainer(Materialisation(kb) if engine == "materialise" else PyDatalog(kb)).why(*question)
    (agg,) = [n for n in graph if graph.nodes[n]["kind"] == "aggregate"]
    assert graph.nodes[agg]["value"] == value
    children = {graph.nodes[c]["text"]: graph.edges[agg, c] for c in graph.successors(agg)}
    assert {text: edge["counted"] for text, edge in children.items()} == counted
    assert {text for text, edge in children.items() if edge["chosen"]} == {t for t, c in counted.items() if c == str(value)}
    assert all(graph.nodes[c]["kind"] == "fact" for c in graph.successors(agg))


def test_proofs_of_recursive_closure_have_minimal_height():
    ex = explainer("@kind b: 子 丑 寅 卯.\n@pred e(x: b, y: b).\n@pred t(x: b, y: b).\n"
                   "e(子, 丑). e(丑, 寅). e(寅, 卯). e(子, 卯).\n"
                   "t(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n")
    graph = ex.why("t", ("子", "卯"))
    assert nx.is_directed_acyclic_graph(graph)
    root = graph.graph["root"]
    assert graph.nodes[root]["height"] == 1  # the direct edge, not the three-step path
    assert leaves(graph) == {"fact"}


def test_the_proof_chosen_over_a_cyclic_graph_is_of_least_height_and_the_first_in_firing_order():
    """Reachability over a graph with cycles, left and right recursion both: each why's height is the
    shortest path's length (counted here by breadth-first search), the last step the least node before
    the target at that distance, and a question asked after others draws what a fresh explainer draws."""
    import random
    from collections import deque

    rng = random.Random(7)
    edges = sorted({(a, b) for a in range(10) for b in range(10) if a != b and rng.random() < 0.17})
    text = ("@pred e(x: int, y: int).\n@pred r(x: int, y: int).\n" + "".join(f"e({a}, {b}).\n" for a, b in edges)
            + "r(X, Y) :- e(X, Y).\nr(X, Z) :- r(X, Y), e(Y, Z).\nr(X, Z) :- e(X, Y), r(Y, Z).\n")
    kb = Materialisation(KnowledgeBase(check([parse(text, "t.dl")])))
    left = f"t.dl:{text.splitlines().index('r(X, Z) :- r(X, Y), e(Y, Z).') + 1}"
    shared, asked = Explainer(kb), 0
    for start in range(10):
        distance, queue = {start: 0}, deque([start])
        while queue:
            node = queue.popleft()
            for a, b in edges:
                if a == node and b not in distance:
                    distance[b] = distance[node] + 1
                    queue.append(b)
        for target, d in sorted(distance.items()):
            if target == start:  # a cycle back to the start is not a breadth-first distance
                continue
            graph = shared.why("r", (start, target))
            root = graph.nodes[graph.graph["root"]]
            assert root["height"] == d, (start, target)
            if d > 1:  # the left recursion, rule 2, comes before the right one: the least Y at distance d − 1
                rule = graph.nodes[next(iter(graph.successors(graph.graph["root"])))]
                before = min(y for y, k in distance.items() if k == d - 1 and (y, target) in edges)
                assert bindings(rule)["Y"] == before and rule["where"] == left, (start, target, rule)
            if asked % 7 == 0:
                fresh = Explainer(kb).why("r", (start, target))
                assert json.dumps(node_link(graph), sort_keys=True) == json.dumps(node_link(fresh), sort_keys=True)
            asked += 1
    assert asked > 40


def test_negation_is_explained_by_why_not_and_every_leaf_is_a_fact_a_check_or_an_absence(session):
    chart = session.cast("辛巳", "寅", "午")
    graph = session.why(chart, "initial")
    assert nx.is_directed_acyclic_graph(graph)
    assert leaves(graph) <= LEAVES
    kinds = {graph.nodes[n]["kind"] for n in graph}
    assert {"atom", "rule", "fact", "not", "compare", "aggregate", "absent", "fail"} <= kinds


def test_same_question_same_json_byte_for_byte(session):
    chart = session.cast("丁卯", "子", "寅")

    def dump():
        fresh = Explainer(session.kb)
        return json.dumps(node_link(fresh.why("initial", (chart.id, chart.transmissions[0].branch))),
                          ensure_ascii=False, sort_keys=True)

    assert dump() == dump()


def test_why_of_a_fact_is_the_fact_with_its_file_and_line(session):
    graph = session.why(None, "punishes(申, 寅)")
    (node,) = graph.nodes
    assert graph.nodes[node]["kind"] == "fact"
    assert graph.nodes[node]["where"].startswith("kb/variants/punishment/common.dl:")


def test_why_and_why_not_refuse_the_wrong_question(session):
    with pytest.raises(NotDerivable):
        session.why(None, "clashes(子, 丑)")
    with pytest.raises(Derivable):
        session.why_not(None, "clashes(子, 午)")


def test_why_not_names_the_rule_and_the_failing_literal():
    ex = explainer("@kind b: 子 丑.\n@pred e(x: b, y: b).\n@pred f(x: b).\n@pred p(x: b).\n"
                   'e(子, 丑). f(丑).\n@rule p.one zh "{X}".\np(X) :- e(X, Y), f(X).\n')
    graph = ex.why_not("p", ("子",))
    fails = [n for n in graph if graph.nodes[n]["kind"] == "fail"]
    assert [graph.nodes[n]["rule"] for n in fails] == ["p.one"]
    (dead,) = graph.successors(fails[0])
    assert graph.nodes[dead]["text"] == "f(子)" and graph.edges[fails[0], dead]["position"] == 1


def test_why_not_puts_the_rule_that_came_closest_first(session):
    chart = session.cast("辛巳", "寅", "午")
    graph = session.why_not(chart, "initial", "丑")
    root = graph.graph["root"]
    first = min(graph.successors(root), key=lambda n: graph.edges[root, n]["order"])
    assert graph.nodes[first]["rule"] == "method.zeike_initial"  # the chosen method's rule, not 八專's
    assert graph.nodes[first]["zh"] == "取賊剋，丑發用"
    reached = [graph.nodes[n]["reached"] for n in sorted(graph.successors(root), key=lambda n: graph.edges[root, n]["order"])]
    assert reached == sorted(reached, reverse=True)


def test_a_fact_of_a_table_shows_its_source_at_the_leaf(session):
    """The generals' palace verses are @facts tables: the derivation's leaf quotes the verse."""
    chart = session.cast("辛巳", "寅", "午")
    states = {s for g, s in chart.rows("general_state") if g == "勾陳"}
    graph = session.why(None, f"general_state({chart.id}, 勾陳, {sorted(states)[0]})")
    (leaf,) = [graph.nodes[n] for n in graph if graph.nodes[n].get("pred") == "palace_state"]
    assert leaf["kind"] == "fact" and leaf["table"] == "pattern.palace_gouchen"
    assert leaf["source"].startswith("000: 子丑之宮皆被辱")
    from liuren_logic.explain.tree import describe
    from liuren_logic.datalog.labels import showing_ids
    assert "«《福山堂》：子丑之宮" in describe(leaf) and "pattern." not in describe(leaf)  # the book by name
    assert "«《福山堂》: 子丑之宮" in describe(leaf, "en")
    with showing_ids():  # the table's id for a developer
        assert "pattern.palace_gouchen" in describe(leaf)
