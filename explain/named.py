"""Why-not of a named conclusion (a 課體, a pattern, a 畢法 line, a spirit): from the rule that defines the name.

A rule *defines* a name when its head carries the name, or when the name reaches the head
from a table row of the rule's body (``trine_name(火, 炎上)``, ``month_forward(天虎, 寅)``), or
through a chart relation of the body whose own rules define it (``spirit(C, S, B) :-
month_spirit(C, S, B)`` → the month spirit's rule). The answer names the closest defining
rule by its label and book (its id is in ``Answer.rules``), then the condition of it that fails
on this chart, or the input the chart lacks (``--month``); when only another shipped reading of a
disputed topic defines the name (比用格: kb/variants/shehai_biyong/daquan.dl), that reading and its
rule; when no rule defines the name, that the KB leaves it out.

>>> from liuren_logic import Session
>>> s = Session()
>>> print("\\n".join(answer(s.cast("辛巳", "寅", "午"), "keti", "斬關", "en").lines))
The 課體 斬關: not on this chart.
斬關 is defined by the rule “魁罡 any stands over the stem or the branch: 斬關” (《大六壬心鏡》: 日辰上見魁罡立，此卦名為是斬關).
On this chart it fails at: 丑 is 魁 (戌) or 罡 (辰).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from liuren_logic.datalog import syntax as S
from liuren_logic.datalog.digraph import Digraph
from liuren_logic.datalog.labels import defined, number
from liuren_logic.datalog.provenance import arguments, ground
from liuren_logic.domain.books import cite

from .answers import Answer
from .view import ordered_children

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart

# The named conclusions, each with the page that lists every name and its rule (or why it has none).
COVERAGE = {"keti": "docs/coverage_keti.md", "pattern": "docs/coverage_patterns.md",
            "bifa": "docs/coverage_bifa.md", "spirit": "docs/coverage_spirits.md"}

# The options that give a chart's optional inputs (a chart always has its day, 月將 and hour).
OPTIONS = {"month": "--month", "given_month": "--month", "qi": "--at", "days_to_li": "--at",
           "lunar_month": "--at", "year": "--year", "chart_year": "--year", "birth_year": "--born",
           "birth_pillar": "--born", "sex": "--sex"}

# Chart relations a why-not answers on their own (``why-not method 涉害``): a name reaching one is defined there.
ANSWERED = {"chosen": "method"}

WORDS = {
    "zh": {"absent": "{kind}{name}：此盤不見。", "defined": "{name}之定義：{label}{cite}。",
           "cite": "，見{source}", "fails": "此盤不合：{literal}。", "holds": "此盤不合：{literal}，此則成立。",
           "needs": "此盤未給{what}：需 {options}。", "or": " 或 ", "unencoded": "知識庫未編此名，見 {doc}。",
           "elsewhere": "本派不定此名；{reading}定之：{label}{cite}。見 {doc}。",
           "more": "（另有{n}條規則亦定義此名）", "one_more": "（另有一條規則亦定義此名）"},
    "en": {"absent": "The {kind} {name}: not on this chart.", "defined": "{name} is defined by the rule “{label}”{cite}.",
           "cite": " ({source})", "fails": "On this chart it fails: {literal}.",
           "holds": "On this chart it fails because {literal}.", "needs": "This chart lacks {what}: needs {options}.",
           "or": " or ", "unencoded": "Not encoded (see {doc}).", "more": " ({n} more rules define it)",
           "elsewhere": "The school does not define it; the reading {reading} does, by the rule “{label}”{cite}. "
                        "See {doc}.",
           "one_more": " (one more rule defines it)"},
}
KINDS = {"keti": ("課體", "課體"), "pattern": ("課格", "pattern"), "bifa": ("畢法", "畢法 line"),
         "spirit": ("神煞", "spirit")}
WHAT = {"--month": ("月份", "the month"), "--at": ("時刻", "the moment"), "--year": ("年份", "the year"),
        "--born": ("本命", "the querent's birth"), "--sex": ("性別", "the querent's sex")}


def names(chart: "Chart", pred: str) -> list:
    """Every name a named conclusion can take, sorted."""
    decl = chart.session.program.preds[pred]
    return sorted(chart.session.program.members[decl.params[1][1]], key=str)


def answer(chart: "Chart", pred: str, name: str, lang: str = "zh", reason: Optional[Callable] = None):
    """The why-not of ``pred(chart, name)`` (it must not hold) from the name's defining rule; None when
    every defining rule fails only above a relation that holds (the caller asks the closest rule).
    ``reason(chart, pred, value, lang)`` answers a failing relation's own why-not (the contrastive
    answer's), whose last line the answer then gives."""
    w, session = WORDS[lang], chart.session
    pattern = (chart.id, name) + (None,) * (session.program.preds[pred].arity - 2)
    head = w["absent"].format(kind=KINDS[pred][lang != "zh"], name=name)
    question = f"why not {pred} {name}"
    found, via = definers(session, pred, pattern)
    if not found:
        return Answer(question, [head] + (_defined_under(chart, pred, pattern, lang)
                                          or [w["unencoded"].format(doc=COVERAGE[pred])]))
    explainer = session.explainer(chart.id)
    best = _closest(explainer, pred, found) or _closest(explainer, pred, via)
    if best is None:  # no defining rule fails on this chart: the closest rule of the asked relation answers
        return None
    graph, fail = best
    rule = graph.nodes[fail]["rule"]
    deep = graph.nodes[graph.graph["root"]]
    compiled = next(c for c in explainer.kb.rules_for[deep["pred"]] if c.rule.id == rule)
    source = cite(compiled.rule.source, lang)
    more = sum(len(r) for r in found.values()) - any(rule in r for r in found.values())
    label = definition(session, compiled, tuple(arguments(deep)), lang)
    lines = [head, w["defined"].format(name=name, label=label,
                                       cite=w["cite"].format(source=source) if source else "")
             + (w["more" if more > 1 else "one_more"].format(n=number(more, lang)) if more else "")]
    failed = ordered_children(graph, fail)[:1]
    keep = {graph.graph["root"], fail, *failed}
    if failed:
        lines.append(_failing(chart, graph, failed[0], lang))
        literal = graph.nodes[failed[0]]
        asked = ANSWERED.get(literal.get("pred"))
        if asked and reason and name in arguments(literal):  # the reason that relation gives, as its own why-not says it
            lines.append(reason(chart, asked, name, lang).lines[-1])
        keep.update(ordered_children(graph, failed[0]))
    why_not = graph.graph["why_not"]  # the same question, drawn afresh as the graph type asked
    return Answer(question, lines, [], [rule],
                  lambda graph_type: explainer.why_not(*why_not, depth=2, graph_type=graph_type).subgraph(keep).copy())


def _defined_under(chart: "Chart", pred: str, pattern: tuple, lang: str) -> list[str]:
    """A line for each other shipped reading of the chart's school whose own file defines the name
    (the reading by its name in kb/variants/names.json, its defining rule's id, label and book)."""
    from liuren_logic.domain.disputes import module, other_readings, session_under
    from liuren_logic.domain.school import reading_name
    from liuren_logic.domain.school import kb_root, reading_file

    w, school, lines = WORDS[lang], chart.session.kb.school, []
    for topic, reading in other_readings(school) if school is not None else ():
        path = reading_file(kb_root(), topic, reading)
        if str(pattern[1]) not in path.read_text("utf-8"):
            continue  # a file that never writes the name cannot define it
        own = {rule.id for rule in module(path).rules}
        other = session_under(chart.session, school.with_readings({topic: reading}))
        defined = [(deep, at, rule) for (deep, at), ids in definers(other, pred, pattern)[0].items()
                   for rule in ids if rule in own]
        if defined:
            deep, at, rule = defined[0]
            compiled = next(c for c in other.source().rules_for[deep] if c.rule.id == rule)
            source = cite(compiled.rule.source, lang)
            lines.append(w["elsewhere"].format(reading=reading_name(topic, reading, lang),
                                               label=definition(other, compiled, at, lang),
                                               cite=w["cite"].format(source=source) if source else "",
                                               doc=COVERAGE[pred]))
    return lines


def _closest(explainer, pred: str, rules_at: dict) -> Optional[tuple]:
    """(the why-not graph, the fail node) of the defining rule that got furthest before failing
    (ties: the asked relation's own rule, then file order); a relation that holds is passed over
    (the name fails further up)."""
    best = None
    for (deep, pattern), rules in rules_at.items():
        if explainer.kb.holds(deep, pattern):
            continue
        graph = explainer.why_not(deep, pattern, depth=2, graph_type=Digraph)  # read, not handed out
        graph.graph["why_not"] = (deep, pattern)
        for order, fail in enumerate(ordered_children(graph, graph.graph["root"])):
            if graph.nodes[fail]["rule"] in rules:
                key = (graph.nodes[fail].get("reached", 0), deep == pred, -order)
                if best is None or key > best[0]:
                    best = (key, graph, fail)
    return best[1:] if best else None


def definition(session, compiled, pattern: tuple, lang: str) -> str:
    """The rule's label for the name in ``pattern``: its slots filled from the name and the first row
    of each of its tables that has it (``month_forward(天虎, 寅)``); a slot the chart fills is left out,
    as a definition says it (「魁罡臨日辰」)."""
    rule = compiled.rule
    binding = {t.name: v for t, v in zip(rule.head.args[1:], pattern[1:])
               if isinstance(t, S.Var) and v not in (None, "_")}  # "_": a graph node's open value
    for atom in rule.body:
        named = isinstance(atom, S.Atom) and any(isinstance(a, S.Var) and a.name in binding for a in atom.args)
        if named and atom.pred not in session.program.moving():
            rows = session.base.query(atom.pred, list(ground(atom, binding)))
            if rows:
                binding.update({a.name: v for a, v in zip(atom.args, rows[0]) if isinstance(a, S.Var)})
    return defined(rule.label(lang), binding, lang)


def _failing(chart: "Chart", graph, node: str, lang: str) -> str:
    """The line for the first condition of the defining rule that fails: the input it lacks, or the condition."""
    w, attrs = WORDS[lang], graph.nodes[node]
    pred = attrs.get("pred")
    if attrs["kind"] == "absent" and _charted(chart, pred) and not chart.rows(pred):
        options = missing_inputs(chart, pred)
        if options:
            said = [WHAT[o][lang != "zh"] for o in options if o != "--at"] or [WHAT["--at"][lang != "zh"]]
            what = "、".join(said) if lang == "zh" else " and ".join(said)
            return w["needs"].format(what=what, options=w["or"].join(options))
    said = attrs.get(lang) or attrs.get("text", "")
    if attrs["kind"] == "holds":
        return w["holds"].format(literal=said)
    return w["fails"].format(literal=negated(said, lang))


def negated(label: str, lang: str) -> str:
    """A condition said as failing: 「丑為魁罡」 → 「丑非魁罡」 where the label says it with one 為;
    else 「…」不成立, "it is not so that …".

    >>> negated("丑為魁罡", "zh"), negated("第一課上剋下", "zh")
    ('丑非魁罡', '「第一課上剋下」不成立')
    """
    if lang == "zh":
        return label.replace("為", "非") if label.count("為") == 1 else f"「{label}」不成立"
    return f"it is not so that {label}"


def _charted(chart: "Chart", pred: str) -> bool:
    """True when ``pred`` is a chart relation (its first argument the chart id)."""
    decl = chart.session.program.preds.get(pred or "")
    return bool(decl and decl.params and decl.params[0][1] == "text" and pred in chart.session.program.moving())


def missing_inputs(chart: "Chart", pred: str) -> list[str]:
    """The options for the optional inputs ``pred`` rests on, when the chart has none of them and
    ``pred`` cannot hold without one: it rests on no other input, or each of its rules needs one or
    stands in for its absence (``season`` from the 月將 under ``not has_month``); any other relation
    of the day, the 月將 and the hour fails for a reason of its own."""
    program = chart.session.program
    seen = _below(program, pred)
    optional = [p for p in seen if p in OPTIONS]
    core = [p for p in seen if p not in OPTIONS and getattr(program.preds.get(p), "input", False)]
    if not optional or any(chart.rows(p) for p in optional) or core and not _needs_optional(program, pred, {}):
        return []
    options = {OPTIONS[p] for p in optional}
    if options & {"--month", "--year"}:
        options.add("--at")  # a moment gives the month and the year
    return sorted(options, key=list(WHAT).index)


def _below(program, pred: str) -> set[str]:
    """``pred`` and every relation it rests on."""
    seen, todo = {pred}, [pred]
    while todo:
        for body in program.dependencies.predecessors(todo.pop()):
            if body not in seen:
                seen.add(body)
                todo.append(body)
    return seen


def _needs_optional(program, pred: str, known: dict) -> bool:
    """Whether every rule of ``pred`` has a body atom that needs an optional input (OPTIONS), or a
    negated one resting on optional inputs alone (``not has_month(C)``: it holds only in their absence)."""
    if pred in OPTIONS or pred in known:
        return pred in OPTIONS or known[pred]
    if getattr(program.preds.get(pred), "input", False):
        return False  # given with the chart (the 月將 a moment also derives)
    known[pred] = False  # a cycle needs nothing through itself
    rules = [r for r in program.rules if r.head.pred == pred]

    def only_optional(atom: S.Atom) -> bool:
        inputs = [p for p in _below(program, atom.pred) if getattr(program.preds.get(p), "input", False)]
        return bool(inputs) and all(p in OPTIONS for p in inputs)

    known[pred] = bool(rules) and all(
        any(isinstance(l, S.Atom) and _needs_optional(program, l.pred, known)
            or isinstance(l, S.Negation) and only_optional(l.atom) for l in rule.body) for rule in rules)
    return known[pred]


def definers(session, pred: str, pattern: tuple, at: int = 1, seen: frozenset = frozenset()) -> tuple[dict, dict]:
    """(relation, pattern) → the ids of the rules that define the name ``pattern[at]`` there; and, the
    same way, the rules through which the name reaches a defining rule below (``spirit.month``)."""
    name, found, via = pattern[at], {}, {}
    moving, program = session.program.moving(), session.program
    for compiled in session.source(pattern[0]).rules_for.get(pred, ()):
        rule = compiled.rule
        term = rule.head.args[at]
        if isinstance(term, S.Const):
            if term.value == name:
                found.setdefault((pred, pattern), []).append(rule.id)
            continue
        atoms = [l for l in rule.body if isinstance(l, S.Atom) and term in l.args]
        tables = [a for a in atoms if a.pred not in moving]
        if tables:
            if any(session.base.query(a.pred, _bound(a, term, name)) for a in tables):
                found.setdefault((pred, pattern), []).append(rule.id)
            continue
        for atom in atoms:
            where = atom.args.index(term)
            members = program.members.get(program.preds[atom.pred].params[where][1])
            if atom.pred in seen or atom.args[0] != rule.head.args[0] or members is not None and name not in members:
                continue
            if atom.pred in ANSWERED:  # its own why-not answers for it: this rule defines the name
                found.setdefault((pred, pattern), []).append(rule.id)
                continue
            deeper = tuple(pattern[0] if i == 0 else name if i == where else None for i in range(len(atom.args)))
            below, passed = definers(session, atom.pred, deeper, where, seen | {pred})
            if below:
                via.setdefault((pred, pattern), []).append(rule.id)
            for mine, theirs in ((found, below), (via, passed)):
                for key, ids in theirs.items():
                    mine.setdefault(key, []).extend(i for i in ids if i not in mine.get(key, ()))
    return found, via


def _bound(atom: S.Atom, term, name) -> list:
    """The atom's pattern with ``term`` set to ``name`` and everything else open."""
    return [name if a == term else (a.value if isinstance(a, S.Const) else None) for a in atom.args]
