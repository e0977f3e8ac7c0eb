"""A chart's derivation told as a teacher tells it, in numbered steps.

The order is the classroom's: 天盤 (which general sits over which hour) → 四課 → which
lessons have a 剋 → the method that decides (and why the methods tried before it did
not) → the initial → middle and final → the generals. Each step is one or two sentences
from the templates in ``TEXT`` (one dict per language), filled with the chart's values
and with the labels of the rule applications in its derivation graphs; each names the
rules it rests on and quotes their seed lines (node attribute ``source``).

>>> from liuren_logic import Session
>>> steps = lesson_steps(Session().cast("辛巳", "寅", "午"))
>>> [s.key for s in steps]
['plate', 'lessons', 'ke', 'method', 'initial', 'sequence', 'generals']
>>> steps[4].rules
['method.zeike_initial', 'zeike.yuanshou']
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Optional

import networkx as nx

from liuren_logic.inputs import members
from liuren_logic.provenance import atom_text

from .view import ordered_children

if TYPE_CHECKING:
    from liuren_logic.chart import Chart

NUMERALS = "一二三四五六七八九十"

TEXT = {
    "zh": {
        "header": "{day}日 {jiang}將 {hour}時　{when}　{decided}　三傳{sanchuan}",
        "day": "晝占", "night": "夜占",
        "number": "{numeral}、{title}",
        "cite": "〔規則 {rules}{sources}〕",
        "source": "｜歌訣 {seed}「{verse}」",
        "rule_sep": "、", "list_sep": "、", "clause_sep": "；", "end": "。", "space": "",
        "titles": {"plate": "天盤", "lessons": "四課", "ke": "察剋", "method": "定法",
                   "initial": "初傳", "sequence": "中傳、末傳", "generals": "天將"},
        "plate": "以月將{jiang}加於占時{hour}之上，天盤順轉{offset_n}位。地盤十二宮上所見：{pairs}。",
        "pair": "{earth}上{heaven}",
        "lessons": ("日干{stem}寄{lodge}，{lodge}上見{u1}為第一課，{u1}上見{u2}為第二課；"
                    "日支{branch}上見{u3}為第三課，{u3}上見{u4}為第四課。"),
        "lessons_count": "第{repeats}課與前課相同，實有{count_n}課。",
        "lessons_counts": "第{repeats}課與前課相同，實有{count_n}課。",
        "ke_some": "{found}",
        "ke_item": "第{n_n}課{x}剋{y}（{kind}）",
        "ke_lower": "下賊", "ke_upper": "上剋",
        "ke_mode_lower": "有下賊，先取下賊。",
        "ke_mode_upper": "四課無下賊，乃取上剋。",
        "ke_none": "四課{pairs}，上下俱不相剋：無剋。",
        "ke_pair": "{upper}加{lower}",
        "method_tried": "依次相試：{reasons}。",
        "method_first": "{method}居諸法之首。",
        "method_chosen": "{method}可用（{because}），且無先取之法，故以{method}定課。",
        "method_outranks": "{others}雖亦可用，然{method}先取。",
        "reason": {
            "fuyin": "月將{jiang}與占時{hour}不同位，非{methods}",
            "fanyin": "{jiang}{hour}亦不相沖，非{methods}",
            "no_ke": "四課無剋，{methods}皆無從取用",
            "many": "剋者{count}神，{methods}不能獨取",
            "bi": "與日比者{bi}神，{methods}不能決",
            "bi_none": "候選無一與日比，{methods}不能決",
            "generic": "{methods}不可用，因「{needed}」不成立",
        },
        "initial": "{label}。初傳{branch}，是為{names}課。",
        "sequence": "{middle}；{final}。三傳{sanchuan}。",
        "generals": "{noble}；{direction}。三傳所乘：{riders}。",
        "rider": "{position}{branch}乘{general}",
        "positions": ("初傳", "中傳", "末傳"),
    },
    "en": {
        "header": "{day} day (日), general (月將) {jiang} over the hour (時) {hour}, {when}: {decided}, "
                  "three transmissions (三傳) {sanchuan}",
        "day": "a day chart (晝占)", "night": "a night chart (夜占)",
        "number": "{numeral}. {title}",
        "cite": "[rule {rules}{sources}]",
        "source": " | seed {seed}: 「{verse}」",
        "rule_sep": ", ", "list_sep": ", ", "clause_sep": "; ", "end": ".", "space": " ",
        "titles": {"plate": "Heaven's plate (天盤)", "lessons": "The four lessons (四課)",
                   "ke": "Overcoming (剋) in the lessons", "method": "The deciding method (法)",
                   "initial": "The initial transmission (初傳)",
                   "sequence": "The middle (中傳) and final (末傳) transmissions",
                   "generals": "The generals (天將)"},
        "plate": ("The monthly general (月將) {jiang} is set over the hour (占時) {hour}, so heaven's plate "
                  "turns {offset_n} places forward. Over earth's palaces (地盤) stand: {pairs}."),
        "pair": "{heaven} over {earth}",
        "lessons": ("The day stem {stem} lodges in {lodge}; {u1} over {lodge} is lesson 1, {u2} over {u1} "
                    "is lesson 2; {u3} over the day branch {branch} is lesson 3, {u4} over {u3} is lesson 4."),
        "lessons_count": "Lesson {repeats} repeats an earlier one: there are {count_n} distinct lessons.",
        "lessons_counts": "Lessons {repeats} repeat earlier ones: there are {count_n} distinct lessons.",
        "ke_some": "{found}",
        "ke_item": "in lesson {n_n} {x} overcomes {y} ({kind})",
        "ke_lower": "the lower overcomes the upper, 下賊", "ke_upper": "the upper overcomes the lower, 上剋",
        "ke_mode_lower": "There is a 下賊, so the 下賊 lessons are taken first.",
        "ke_mode_upper": "There is no 下賊, so the 上剋 lessons are taken.",
        "ke_none": "In the lessons {pairs} neither upper nor lower overcomes the other: no 剋.",
        "ke_pair": "{upper} over {lower}",
        "method_tried": "The methods are tried in order: {reasons}.",
        "method_first": "{method} is the first method tried.",
        "method_chosen": "{method} applies ({because}) and no method tried earlier does, so {method} decides the chart.",
        "method_outranks": "{others} would also apply, but {method} is tried first.",
        "reason": {
            "fuyin": "the general {jiang} and the hour {hour} differ, so heaven does not lie on earth: not {methods}",
            "fanyin": "nor do {jiang} and {hour} face each other: not {methods}",
            "no_ke": "no lesson has a 剋, so {methods} have nothing to take",
            "many": "{count} candidates overcome, so {methods} alone cannot decide",
            "bi": "{bi} candidates share the day's polarity, so {methods} cannot decide",
            "bi_none": "no candidate shares the day's polarity, so {methods} cannot decide",
            "generic": "{methods} does not apply, as “{needed}” does not hold",
        },
        "initial": "{label}. The initial transmission is {branch}; the chart is named {names}.",
        "sequence": "{middle}; {final}. The three transmissions are {sanchuan}.",
        "generals": "{noble}; {direction}. On the transmissions: {riders}.",
        "rider": "the {position} {branch} carries {general}",
        "positions": ("initial", "middle", "final"),
    },
}

# The rule that makes each method applicable; its failure is the reason a method was passed over.
METHOD_RULES = {"伏吟": "method.fuyin", "返吟": "method.fanyin", "賊剋": "method.zeike_family",
                "比用": "method.zeike_family", "涉害": "method.zeike_family", "八專": "method.bazhuan",
                "遙剋": "method.yaoke", "昴星": "method.maoxing", "別責": "method.bieze"}

# Which steps explain which conclusion of the page.
CONCLUSION_STEPS = {"initial": ("initial",), "middle": ("sequence",), "final": ("sequence",),
                    "method": ("ke", "method"), "lesson1": ("lessons", "ke"), "lesson2": ("lessons", "ke"),
                    "lesson3": ("lessons", "ke"), "lesson4": ("lessons", "ke")}


@dataclass
class Step:
    """One numbered step: what it says and the rules and seed lines it rests on."""

    key: str
    title: str
    text: str
    rules: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


# reading the graphs ------------------------------------------------------------
def rule_below(graph: nx.DiGraph, atom: Optional[str] = None) -> Optional[str]:
    """The rule application that derived an atom node (default: the root)."""
    atom = atom or graph.graph["root"]
    return next((c for c in ordered_children(graph, atom) if graph.nodes[c]["kind"] == "rule"), None)


def premise(graph: nx.DiGraph, rule: str, pred: str) -> Optional[str]:
    """The premise of a rule application that is an atom of ``pred``."""
    return next((c for c in ordered_children(graph, rule) if graph.nodes[c].get("pred") == pred), None)


class _Teacher:
    """Builds the steps of one chart in one language."""

    def __init__(self, chart: "Chart", lang: str):
        self.chart, self.lang, self.t = chart, lang, TEXT[lang]
        self.session = chart.session

    def why(self, question: str) -> nx.DiGraph:
        return self.session.why(self.chart, question)

    def why_atom(self, pred: str, *args) -> nx.DiGraph:
        """The derivation of ``pred(chart, args…)``; ``None`` stands for any value."""
        return self.session.why(self.chart, self.atom(pred, args))

    def atom(self, pred: str, args) -> str:
        return atom_text(pred, [self.chart.id, *args])

    def step(self, key: str, text: str, rules: list[dict], quoted: Optional[list[dict]] = None) -> Step:
        """A step resting on these rule applications, quoting the seed lines of ``quoted`` (default: all)."""
        ids = list(dict.fromkeys(r["rule"] for r in rules))
        sources = list(dict.fromkeys(r["source"] for r in (rules if quoted is None else quoted) if r.get("source")))
        return Step(key, self.t["titles"][key], text, ids, sources)

    def label(self, attrs: dict, capital: bool = False) -> str:
        text = attrs.get(self.lang) or attrs.get("text", "")
        return text[:1].upper() + text[1:] if capital and self.lang == "en" else text

    def num(self, n: int) -> str:
        return number(n, self.lang)

    def sentences(self, *parts: str) -> str:
        """Sentences one after the other (a space between them in English)."""
        return self.t["space"].join(p for p in parts if p)

    def sep(self, items, key: str = "list_sep") -> str:
        return self.t[key].join(items)

    def series(self, items) -> str:
        """A short list as a sentence has it: 賊剋、比用、涉害 / 賊剋, 比用 and 涉害."""
        items = list(items)
        if self.lang == "en" and len(items) > 1:
            return ", ".join(items[:-1]) + " and " + items[-1]
        return self.sep(items)

    # the steps ----------------------------------------------------------------
    def plate(self) -> Step:
        graph = self.why("offset")
        rule = graph.nodes[rule_below(graph)]
        heaven = self.chart.heaven
        pairs = self.sep(self.t["pair"].format(earth=e, heaven=heaven.get(e, "？")) for e in members(self.session.base, "branch"))
        text = self.t["plate"].format(jiang=self.chart.jiang, hour=self.chart.hour,
                                      offset_n=self.num(self.chart.offset), pairs=pairs)
        return self.step("plate", text, [rule])

    def lessons(self) -> Step:
        chart = self.chart
        rules = []
        for n in (1, 2, 3, 4):
            graph = self.why(f"lesson{n}")
            rules.append(graph.nodes[rule_below(graph)])
        upper = {l.number: l.upper for l in chart.lessons}
        lodge = dict(chart.rows("seat")).get(1, "？")
        text = self.t["lessons"].format(stem=chart.inputs.stem, branch=chart.inputs.branch, lodge=lodge,
                                        u1=upper.get(1), u2=upper.get(2), u3=upper.get(3), u4=upper.get(4))
        repeats = sorted(row[0] for row in chart.rows("repeats"))
        if repeats:
            count = chart.rows("lesson_count")[0][0]
            template = self.t["lessons_count" if len(repeats) == 1 else "lessons_counts"]
            text = self.sentences(text, template.format(repeats=self.series(map(self.num, repeats)), count_n=self.num(count)))
            graph = self.why_atom("lesson_count", count)
            rules.append(graph.nodes[rule_below(graph)])
        return self.step("lessons", text, rules)

    def ke(self) -> Step:
        chart, t = self.chart, self.t
        found, rules = [], []
        lessons = {l.number: l for l in chart.lessons}
        for pred, kind in (("lower_overcomes", "ke_lower"), ("upper_overcomes", "ke_upper")):
            for (n,) in sorted(chart.rows(pred)):
                graph = self.why_atom(pred, n)
                rules.append(graph.nodes[rule_below(graph)])
                l = lessons[n]
                x, y = (l.lower, l.upper) if kind == "ke_lower" else (l.upper, l.lower)
                found.append((n, t["ke_item"].format(n_n=self.num(n), x=x, y=y, kind=t[kind])))
        if not found:
            pairs = self.sep(t["ke_pair"].format(upper=l.upper, lower=l.lower) for l in chart.lessons)
            for pred in ("lower_overcomes", "upper_overcomes"):
                graph = self.session.why_not(chart, self.atom(pred, [None]), depth=1)
                rules += [a for _, a in graph.nodes(data=True) if a["kind"] == "fail"]
            return self.step("ke", t["ke_none"].format(pairs=pairs), rules)
        text = self.sep((item for _, item in sorted(found)), "clause_sep") + t["end"]
        text = text[:1].upper() + text[1:]
        modes = [row[0] for row in chart.rows("ke_mode")]
        if modes:
            mode = modes[0]
            graph = self.why_atom("ke_mode", mode)
            rules.append(graph.nodes[rule_below(graph)])
            text = self.sentences(text, t["ke_mode_lower" if mode == "下賊" else "ke_mode_upper"])
        return self.step("ke", text, rules)

    def method(self) -> Step:
        chart, t = self.chart, self.t
        method = chart.method
        graph = self.why("method")
        chosen = rule_below(graph)
        applied = graph.nodes[rule_below(graph, premise(graph, chosen, "applicable"))]
        order = dict(self.session.source(chart.id).query("method_order", [None, None]))
        earlier = sorted((m for m in order if order[m] < order[method]), key=order.get)
        reasons, rules = [], []
        for m in earlier:
            key, values, rule = self.passed_over(m)
            rules.append(rule)
            if reasons and reasons[-1][0] == key and key != "generic":
                reasons[-1][1]["methods"].append(m)
            else:
                reasons.append((key, {**values, "methods": [m]}))
        text = ""
        if reasons:
            clauses = [t["reason"][key].format(**{**values, "methods": self.series(values["methods"])})
                       for key, values in reasons]
            text = t["method_tried"].format(reasons=self.sep(clauses, "clause_sep"))
        else:
            text = t["method_first"].format(method=method)
        text = self.sentences(text, t["method_chosen"].format(method=method, because=self.label(applied)))
        others = sorted((m for (m,) in chart.rows("applicable") if m != method), key=order.get)
        if others:
            text = self.sentences(text, t["method_outranks"].format(others=self.series(others), method=method))
        return self.step("method", text, rules + [applied, graph.nodes[chosen]], quoted=[applied])

    def passed_over(self, method: str) -> tuple[str, dict, dict]:
        """Why a method tried earlier was not taken: a reason key, its values, the failing rule."""
        chart = self.chart
        graph = self.session.why_not(chart, "method", method)
        fails = [n for n, a in graph.nodes(data=True) if a["kind"] == "fail" and a["rule"] != "method.chosen"]
        wanted = METHOD_RULES.get(method)
        fail = next((n for n in fails if graph.nodes[n]["rule"] == wanted), fails[0] if fails else None)
        rule = graph.nodes[fail] if fail else {"rule": "method.chosen", "source": ""}
        values = {"jiang": chart.jiang, "hour": chart.hour}
        if rule["rule"] == "method.fuyin":
            return "fuyin", values, rule
        if rule["rule"] == "method.fanyin":
            return "fanyin", values, rule
        if rule["rule"] == "method.zeike_family":
            if not chart.rows("has_ke"):
                return "no_ke", values, rule
            count = chart.rows("candidate_count")
            if method == "賊剋" and count and count[0][0] > 1:
                return "many", {**values, "count": self.num(count[0][0])}, rule
            bi = chart.rows("bi_count")
            if method == "比用" and bi:
                return ("bi", {**values, "bi": self.num(bi[0][0])}, rule) if bi[0][0] else ("bi_none", values, rule)
        needed = "？"
        if fail is not None:
            kids = ordered_children(graph, fail)
            if kids:
                needed = self.label(graph.nodes[kids[0]])
        return "generic", {**values, "needed": needed}, rule

    def initial(self) -> Step:
        chart = self.chart
        graph = self.why("initial")
        rule = rule_below(graph)
        rules = [graph.nodes[rule]]
        inner = premise(graph, rule, "zeike_initial")
        if inner is not None:
            rules.append(graph.nodes[rule_below(graph, inner)])
        text = self.t["initial"].format(label=self.label(rules[-1], True), branch=chart.transmissions[0].branch,
                                        names="·".join(chart.subnames) or "—")
        return self.step("initial", text, rules)

    def sequence(self) -> Step:
        middle, final = self.why("middle"), self.why("final")
        rules = [middle.nodes[rule_below(middle)], final.nodes[rule_below(final)]]
        text = self.t["sequence"].format(middle=self.label(rules[0], True), final=self.label(rules[1]),
                                         sanchuan=self.chart.sanchuan)
        return self.step("sequence", text, rules)

    def generals(self) -> Step:
        noble, direction = self.why("noble"), self.why("direction")
        rules = [noble.nodes[rule_below(noble)], direction.nodes[rule_below(direction)]]
        riders = self.sep(self.t["rider"].format(position=self.t["positions"][tr.position - 1], branch=tr.branch,
                                                 general=tr.general or "？")
                          for tr in self.chart.transmissions)
        text = self.t["generals"].format(noble=self.label(rules[0], True), direction=self.label(rules[1]), riders=riders)
        return self.step("generals", text, rules)


def lesson_steps(chart: "Chart", lang: str = "zh") -> list[Step]:
    """The steps of the lesson for a chart (the transmissions need a decided chart)."""
    teacher = _Teacher(chart, lang)
    steps = [teacher.plate(), teacher.lessons(), teacher.ke()]
    if chart.method is not None:
        steps.append(teacher.method())
    if chart.transmissions:
        steps += [teacher.initial(), teacher.sequence(), teacher.generals()]
    return steps


def header(chart: "Chart", lang: str = "zh") -> str:
    """The chart in one line: day, general, hour, day or night, method and name, 三傳."""
    t = TEXT[lang]
    names = "·".join(n for n in chart.subnames if n != chart.method)
    decided = " ".join(part for part in (chart.method or "—", names) if part)
    return t["header"].format(day=chart.day, jiang=chart.jiang, hour=chart.hour,
                              when=t["day" if chart.daytime else "night"], decided=decided,
                              sanchuan=chart.sanchuan or "—")


def cite(step: Step, lang: str = "zh") -> str:
    """The rules and seed lines a step rests on, on one line."""
    t = TEXT[lang]
    sources = ""
    for source in step.sources:
        seed, _, verse = source.partition(": ")
        sources += t["source"].format(seed=seed, verse=verse) if verse else t["source"].format(seed="", verse=seed)
    return t["cite"].format(rules=t["rule_sep"].join(step.rules), sources=sources)


def number(n: int, lang: str) -> str:
    """``number(11, "zh")`` → ``'十一'``; in English the digits."""
    if lang != "zh" or not 0 <= n < 100:
        return str(n)
    if n == 0:
        return "零"
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("十" if tens == 1 else NUMERALS[tens - 1] + "十")
    return head + (NUMERALS[ones - 1] if ones else "")


def render_step(step: Step, index: int, lang: str = "zh") -> str:
    """One step: its numbered title, its sentences, the rules and seed lines it rests on."""
    title = TEXT[lang]["number"].format(numeral=number(index, lang), title=step.title)
    return "\n".join([title, "   " + step.text, "   " + cite(step, lang)])


def render_lesson(chart: "Chart", lang: str = "zh", steps: Optional[list[Step]] = None) -> str:
    """The whole lesson as text: a header line, then the numbered steps."""
    steps = steps if steps is not None else lesson_steps(chart, lang)
    blocks = [header(chart, lang)] + [render_step(s, i, lang) for i, s in enumerate(steps, 1)]
    return "\n\n".join(blocks)
