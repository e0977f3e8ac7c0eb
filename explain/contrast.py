"""The contrastive why-not: the reason that decides, first, in at most three lines.

``why-not initial 丑`` answers with the method that decides the chart and the reason 丑
drops out: the first rule of ``kb/methods/contrast.dl`` (in file order) that derives
``rejected(C, 丑)``. ``why-not method 涉害`` answers with the first rule that derives
``outranked`` or ``unmet`` for it (``kb/methods/unmet.dl``). Any other question (``pattern
天網``, ``spirit 天目``, an atom) answers with the rule that came closest to deriving it and
the first of its conditions that fails. docs/why_not.md writes the rule down. The lines
come from rule firings; the derivation behind them (``graph``) is built when asked for, and
its picture (``picture``) keeps what the answer says: the question, the decisive rule, what
that rule rests on and the rules below those, a negation left as it reads (``--full`` draws all).

>>> from liuren_logic import Session
>>> s = Session()
>>> print("\\n".join(answer(s.cast("辛巳", "寅", "午"), "initial", "丑", "en").lines))
賊剋 decides this chart; its candidates are 午 alone.
丑: in lesson 3, 丑 over 巳 has no 剋, so it is no candidate.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from liuren_logic.datalog.digraph import Digraph

from liuren_logic.domain.inputs import members
from liuren_logic.datalog.provenance import Derivable, Firing, atom_text, firing_label

from . import named
from .answers import Answer
from .view import ordered_children

if TYPE_CHECKING:
    import networkx as nx

    from liuren_logic.domain.chart import Chart

WORDS = {
    "zh": {"decided": "此課以{method}定", "candidates": "，用神候選{found}", "alone": "惟{branch}", "end": "。",
           "reason": "{value}：{reason}。", "initial_by": "初傳{branch}：{how}。", "undecided": "此課無定法",
           "absent": "{atom}：不成立。", "closest": "最接近的規則：{label}；所缺：{missing}。", "sep": "、"},
    "en": {"decided": "{method} decides this chart", "candidates": "; its candidates are {found}",
           "alone": "{branch} alone", "end": ".", "reason": "{value}: {reason}.",
           "initial_by": "The initial is {branch}: {how}.", "undecided": "no method decides this chart",
           "absent": "{atom}: does not hold.", "closest": "The closest rule, “{label}”, fails at: {missing}.",
           "sep": " and "},
}


class _Asker:
    """Builds the answers for one chart in one language."""

    def __init__(self, chart: "Chart", lang: str):
        self.chart, self.lang, self.w = chart, lang, WORDS[lang]
        self.explainer = chart.session.explainer(chart.id)

    def first(self, pred: str, value: str) -> Optional[Firing]:
        """The decisive firing: the first of the atom's rules, in file order, that fires."""
        firings = self.explainer.firings((pred, (self.chart.id, value)))
        return firings[0] if firings else None

    def derivation(self, pred: str, value: str, firing: Firing) -> Callable[[Optional[type]], "nx.DiGraph"]:
        return lambda graph_type: self.explainer.why(pred, (self.chart.id, value), firing=firing, graph_type=graph_type)

    def decided(self, candidates: bool) -> tuple[str, list[str]]:
        """The first line: which method decides, and the candidates when the initial comes from them."""
        chart, w = self.chart, self.w
        if chart.method is None:
            return w["undecided"] + w["end"], []
        atoms = [atom_text("chosen", [chart.id, chart.method])]
        line = w["decided"].format(method=chart.method)
        if candidates and chart.rows("from_candidates"):
            order = members(chart.session.base, "branch")
            found = sorted((u for (u,) in chart.rows("candidate")), key=order.index)
            atoms += [atom_text("candidate", [chart.id, u]) for u in found]
            shown = w["alone"].format(branch=found[0]) if len(found) == 1 else w["sep"].join(found)
            line += w["candidates"].format(found=shown)
        return line + w["end"], atoms

    def contrast(self, question: str, pred: str, value: str, candidates: bool) -> Answer:
        """The deciding method, then the first rule that derives ``pred(chart, value)``."""
        firing = self.first(pred, value)
        line, atoms = self.decided(candidates)
        lines = [line, self.w["reason"].format(value=value, reason=firing_label(firing, self.lang))]
        rules = [firing.rule.rule.id]
        if firing.rule.rule.id == "contrast.elsewhere":  # say how the deciding method takes its initial
            branch = self.chart.transmissions[0].branch
            how = self.deciding(branch)
            lines.append(self.w["initial_by"].format(branch=branch, how=firing_label(how, self.lang)))
            rules.append(how.rule.rule.id)
        atoms.append(atom_text(pred, [self.chart.id, value]))
        return Answer(question, lines, atoms, rules, self.derivation(pred, value, firing))

    def deciding(self, branch: str) -> Firing:
        """The rule that makes ``branch`` the initial; one step further when it quotes no seed line."""
        firing = self.explainer.firings(("initial", (self.chart.id, branch)))[0]
        if not firing.rule.rule.source:
            inner = next((p for p in firing.premises if p[0] != "chosen" and branch in p[1]
                          and self.explainer.firings(p)), None)
            if inner is not None:
                return self.explainer.firings(inner)[0]
        return firing

    def closest(self, pred: str, args: tuple) -> Answer:
        """The rule that came closest to deriving the atom, and the first of its conditions that fails."""
        def derive(graph_type: Optional[type], keep=None):
            graph = self.explainer.why_not(pred, args, depth=2, graph_type=graph_type)
            return graph if keep is None else graph.subgraph(keep).copy()

        graph = derive(Digraph)  # read for the lines (no networkx import); drawn afresh when asked
        root = graph.graph["root"]
        attrs = graph.nodes[root]
        said = attrs.get(self.lang) or attrs["text"]
        question = f"why not {attrs['text']}"
        fails = ordered_children(graph, root)
        if not fails:  # a relation given by facts alone
            reason = attrs.get("reason_zh" if self.lang == "zh" else "reason")
            lines = [self.w["absent"].format(atom=said)] + ([reason + self.w["end"]] if reason else [])
            return Answer(question, lines, [], [], derive)
        best = graph.nodes[fails[0]]
        missing = ordered_children(graph, fails[0])[:1]
        words = "".join(graph.nodes[m].get(self.lang) or graph.nodes[m].get("text", "") for m in missing)
        lines = [self.w["absent"].format(atom=said),
                 self.w["closest"].format(label=best.get(self.lang, ""), missing=words)]
        keep = {root, fails[0], *missing, *(n for m in missing for n in ordered_children(graph, m))}
        return Answer(question, lines, [], [best["rule"]], lambda graph_type: derive(graph_type, keep))


def answer(chart: "Chart", question: str, value: Optional[str] = None, lang: str = "zh") -> Answer:
    """The short why-not of ``question`` (``initial``, ``method``, any chart relation or an atom)."""
    session = chart.session
    pred, args = session.resolve(chart, question, value)
    if session.source(chart.id).holds(pred, args):
        raise Derivable(f"{atom_text(pred, args)} holds; ask why")
    asker = _Asker(chart, lang)
    ours = len(args) == 2 and args[0] == chart.id and args[1] is not None
    if ours and pred == "initial" and asker.first("rejected", args[1]):
        return asker.contrast(f"why not initial {args[1]}", "rejected", args[1], candidates=True)
    if pred in named.COVERAGE and args[0] == chart.id and args[1] is not None:  # a 課體, pattern, 畢法 line or spirit
        short = named.answer(chart, pred, args[1], lang, answer)  # from the rule that defines the name
        if short is not None:
            return short
    if ours and pred == "chosen":
        reason = "outranked" if asker.first("outranked", args[1]) else "unmet"
        if asker.first(reason, args[1]):
            return asker.contrast(f"why not method {args[1]}", reason, args[1], candidates=False)
    return asker.closest(pred, tuple(args))
