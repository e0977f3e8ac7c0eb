"""A chart's derivation told as a teacher tells it, in numbered steps.

The order is the classroom's: 天盤 → 四課 → which lessons have a 剋 → the method that
decides (and why each method tried before it does not apply) → how the initial is picked
from the candidates (比用, 涉害 palace by palace) → the initial → middle and final → what
the transmissions carry (六親 遁干 旬空) → the heavenly generals → the 課體 → the patterns →
the spirits on 干上, 支上 and the transmissions (with 吉/凶 where the seeds say) → the day's
marks (祿 馬 丁 德) → 旺相 and 長生 → 年命 (when a querent is given).

Every sentence states KB relations: a step lists them as ``atoms`` (``why`` answers each,
``not …`` ones by why-not) and names the rules of their derivations; the reasons a method
does not apply are themselves rules (``unmet``). The templates in ``TEXT`` only arrange
what the relations say. Seed lines are quoted with their lacunae repaired and marked
(``verse_repair``) and the verses' names of the branches glossed (``branch_name``); a
step resting on a disputed reading (a rule from ``kb/variants``) says which it follows, and
under a reading other than the school's own, :func:`compare` marks the steps it changes.
One explainer serves the whole lesson: each atom's rule application is read from it
(``Explainer.chosen``) without drawing a graph.

>>> from liuren_logic import Session
>>> steps = lesson_steps(Session().cast("辛巳", "寅", "午"))
>>> [s.key for s in steps][:8]
['plate', 'lessons', 'ke', 'method', 'candidates', 'initial', 'sequence', 'carry']
>>> steps[5].rules
['method.zeike_initial', 'zeike.yuanshou', 'method.zeike_name']
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Optional

from liuren_logic.datalog.digraph import Digraph
from liuren_logic.datalog.labels import atom_label, fill, ids_shown, number, with_id
from liuren_logic.datalog.provenance import atom_text, bindings
from liuren_logic.domain.books import book
from liuren_logic.domain.school import reading_name, topic_name
from liuren_logic.domain.inputs import members

from .dispute_view import dispute_lines
from .glossary import gloss_first, glossary, known_terms

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart


TEXT = {
    "zh": {
        "header": "{day}日 {jiang}將 {hour}時　{when}　{decided}　三傳{sanchuan}",
        "day": "晝占", "night": "夜占",
        "number": "{numeral}、{title}",
        "cite": "〔規則 {rules}{sources}〕", "books": "〔{sources}〕",
        "source": "｜{book}「{verse}」",
        "gloss": "（{glosses}）", "gloss_item": "{name}即{branch}",
        "reading": "〔本門派於{topic}取 {reading} 之讀法：{rules} 出自 {path}〕",
        "reading_named": "〔本門派於{topic}取「{reading}」之讀法〕",
        "follows": "本課依異說{readings}；與本門派原讀法之同一課相較，{changed}",
        "follow_item": "{topic}取{reading}（原取{default}）",
        "changed": "第{numbers}步不同（標〔異〕）。", "unchanged": "諸步皆同。",
        "differs": "〔異：依{readings}，此步與原讀法不同；原讀法作：{text}〕",
        "differs_gone": "〔異：依{readings}，此步為原讀法所無〕",
        "rule_sep": "、", "list_sep": "、", "clause_sep": "；", "comma": "，", "also": "，", "end": "。", "space": "", "colon": "：",
        "titles": {"plate": "天盤", "lessons": "四課", "ke": "察剋", "method": "定法", "candidates": "取用",
                   "initial": "初傳", "sequence": "中傳、末傳", "carry": "六親、遁干、旬空",
                   "generals": "天將", "keti": "課體", "patterns": "課格", "spirits": "神煞",
                   "marks": "祿馬丁德", "strength": "旺相、長生", "life": "年命", "judgement": "斷"},
        "plate": "以月將{jiang}加於占時{hour}之上，天盤順轉{offset_n}位。地盤十二宮上所見：{pairs}。",
        "pair": "{earth}上{heaven}",
        "lessons": ("日干{stem}寄{lodge}，{lodge}上見{u1}為第一課，{u1}上見{u2}為第二課；"
                    "日支{branch}上見{u3}為第三課，{u3}上見{u4}為第四課。"),
        "lessons_count": "第{repeats}課與前課相同，實有{count_n}課。",
        "lessons_counts": "第{repeats}課與前課相同，實有{count_n}課。",
        "ke_item": "第{n_n}課{x}剋{y}（{kind}）",
        "ke_lower": "下賊", "ke_upper": "上剋",
        "ke_mode_lower": "有下賊，先取下賊。",
        "ke_mode_upper": "四課無下賊，乃取上剋。",
        "ke_none": "四課{pairs}，上下俱不相剋：無剋。",
        "ke_pair": "{upper}加{lower}",
        "method_tried": "依次相試：{reasons}。",
        "method_first": "{method}居諸法之首。",
        "method_chosen": "{because}；{chosen}，故以{method}定課。",
        "candidates": "用神候選：{found}。",
        "candidate_count": "候選共{count_n}神。",
        "bi": "日干{stem}屬{polarity}；候選之中{found}。",
        "bi_item": "{branch}屬{polarity}",
        "bi_kept": "與日比者{found}",
        "bi_none": "無一與日比",
        "walk": "{branch}臨{seat}，歸本家{branch}，途經{path}",
        "met_lower": "逢{found}剋之，共{depth_n}重",
        "met_upper": "剋{found}，共{depth_n}重",
        "met_none": "一無所逢，深零",
        "met_item": "{palace}宮{symbols}",
        "depths": "{found}：最深{max_n}。",
        "depth_item": "{branch}深{depth_n}",
        "tie": "最深者{found}，並列。",
        "tie_item": "{branch}臨{seat}（{rank}）",
        "initial": "{label}。初傳{branch}，{named}。",
        "named": "是為{method}課", "named_also": "是為{method}課，名{names}",
        "sequence": "{middle}；{final}。三傳{sanchuan}。",
        "carry": "{items}。{void}",
        "carry_item": "{position}{branch}，於日干{stem}為{kin}，遁{hidden}",
        "carry_no_stem": "{position}{branch}，於日干{stem}為{kin}，無遁干（旬空）",
        "void": "旬空{void}：{fallen}。", "void_none": "三傳無落空者", "void_fallen": "{positions}落空",
        "generals": "{noble}；{direction}。三傳所乘：{riders}。",
        "rider": "{position}{branch}乘{general}",
        "positions": ("初傳", "中傳", "末傳"),
        "patterns": "課得{count_n}格，依類：{groups}。",
        "group": "{group}：{names}",
        "spirits": "干上、干陰、支上、支陰及三傳所見神煞：{places}。",
        "omens": "其中原書明言{groups}。", "omen_group": "{names}{omen}", "omen_words": {"吉": "吉", "凶": "凶"},
        "place": "{place}{branch}：{names}",
        "item": "{name}：{label}",
        "keti": "課體{count_n}，依類：{groups}。",
        "judgement": "占{matter}，先定所問之用神，次列主成、主不成之理與救神，再依書中主次以理勝理，"
                     "乃得其斷：{answer}。以下各條，皆本於其規則與原文。", "none": "無",
        "judged": "{what}：{said}〔{source}〕", "judged_more": "另有所見{n}條（cast --json 全列）",
        "judged_yong": "一、用神", "judged_reason": "二、{sign}", "judged_prefer": "三、主次",
        "judged_answer": "四、斷", "judged_timing": "五、應期",
        "signs": {"成": "主成", "不成": "主不成", "救": "救神"},
        "mark": "{label}，{branch}臨{over}{shows}",
        "mark_shows": "，見於{places}",
        "strength": "{month}；{ruling}：{found}。",
        "strength_item": "{element}{strength}",
        "carried": "三傳：{items}。",
        "carried_item": "{position}{branch}：{found}",
        "stages": "三傳於日干{stem}之十二長生：{items}。",
        "life": "{items}。",
        "resting": "課格之繫於此者：{names}。",
    },
    "en": {
        "header": "{day} day (日), monthly general (月將) {jiang} over the hour (時) {hour}, {when}: {decided}, "
                  "three transmissions (三傳) {sanchuan}",
        "day": "a day chart (晝占)", "night": "a night chart (夜占)",
        "number": "{numeral}. {title}",
        "cite": "[rule {rules}{sources}]", "books": "[{sources}]",
        "source": " | {book}: 「{verse}」",
        "gloss": " ({glosses})", "gloss_item": "{name} = {branch}",
        "reading": "[this school's reading of {topic} is {reading}: {rules} from {path}]",
        "reading_named": "[this school's reading of {topic}: {reading}]",
        "follows": "This lesson follows the reading {readings}; against the same chart under the school's own reading, {changed}",
        "follow_item": "{topic}: {reading} (the school's own: {default})",
        "changed": "steps {numbers} differ (marked [differs]).", "unchanged": "no step differs.",
        "differs": "[differs: under {readings} this step is not the school's own; there it reads: {text}]",
        "differs_gone": "[differs: under {readings} this step has no counterpart in the school's own reading]",
        "rule_sep": ", ", "list_sep": ", ", "clause_sep": "; ", "comma": ", ", "also": ", and ", "end": ".", "space": " ", "colon": ": ",
        "titles": {"plate": "Heaven's plate (天盤)", "lessons": "The four lessons (四課)",
                   "ke": "Overcoming (剋) in the lessons", "method": "The deciding method (法)",
                   "candidates": "Picking the initial (取用)",
                   "initial": "The initial transmission (初傳)",
                   "sequence": "The middle (中傳) and final (末傳) transmissions",
                   "carry": "Kin (六親), hidden stems (遁干), void (旬空)",
                   "generals": "The heavenly generals (天將)", "keti": "The chart's names (課體)",
                   "patterns": "Patterns (課格)", "spirits": "Spirits (神煞)",
                   "marks": "The day's marks (祿 馬 丁 德)", "strength": "Strength (旺相) and stages (長生)",
                   "life": "The querent's years (年命)", "judgement": "The judgement (斷)"},
        "plate": ("The monthly general (月將) {jiang} is set over the hour (占時) {hour}, so heaven's plate "
                  "turns {offset_n} places forward. Over earth's palaces (地盤) stand: {pairs}."),
        "pair": "{heaven} over {earth}",
        "lessons": ("The day stem {stem} lodges in {lodge}; {u1} over {lodge} is lesson 1, {u2} over {u1} "
                    "is lesson 2; {u3} over the day branch {branch} is lesson 3, {u4} over {u3} is lesson 4."),
        "lessons_count": "Lesson {repeats} repeats an earlier one: there are {count_n} distinct lessons.",
        "lessons_counts": "Lessons {repeats} repeat earlier ones: there are {count_n} distinct lessons.",
        "ke_item": "in lesson {n_n} {x} overcomes {y} ({kind})",
        "ke_lower": "the lower overcomes the upper, 下賊", "ke_upper": "the upper overcomes the lower, 上剋",
        "ke_mode_lower": "There is a 下賊, so the 下賊 lessons are taken first.",
        "ke_mode_upper": "There is no 下賊, so the 上剋 lessons are taken.",
        "ke_none": "In the lessons {pairs} neither upper nor lower overcomes the other: no 剋.",
        "ke_pair": "{upper} over {lower}",
        "method_tried": "The methods are tried in order: {reasons}.",
        "method_first": "{method} is the first method tried.",
        "method_chosen": "{because}; {chosen}, so {method} decides the chart.",
        "candidates": "The candidates for the initial: {found}.",
        "candidate_count": "{count_n} candidates in all.",
        "bi": "The day stem {stem} is {polarity}; of the candidates {found}.",
        "bi_item": "{branch} is {polarity}",
        "bi_kept": "those of the day's polarity: {found}",
        "bi_none": "none shares the day's polarity",
        "walk": "{branch} sits on {seat} and walks home to {branch} through {path}",
        "met_lower": "it meets what overcomes it at {found}: {depth_n} in all",
        "met_upper": "it overcomes what it meets at {found}: {depth_n} in all",
        "met_none": "it meets nothing: depth 0",
        "met_item": "{palace} ({symbols})",
        "depths": "{found}: the deepest is {max_n}.",
        "depth_item": "{branch} {depth_n}",
        "tie": "Tied for the deepest: {found}.",
        "tie_item": "{branch} on {seat} ({rank})",
        "initial": "{label}. The initial transmission is {branch}; {named}.",
        "named": "the chart is a {method} chart", "named_also": "the chart is a {method} chart, named {names}",
        "sequence": "{middle}; {final}. The three transmissions are {sanchuan}.",
        "carry": "{items}. {void}",
        "carry_item": "the {position} {branch} is the {kin} of the day stem {stem} and carries {hidden}",
        "carry_no_stem": "the {position} {branch} is the {kin} of the day stem {stem} and, void, carries no stem",
        "void": "Void (旬空): {void}; {fallen}.", "void_none": "no transmission falls void",
        "void_fallen": "the {positions} falls void",
        "generals": "{noble}; {direction}. On the transmissions: {riders}.",
        "rider": "{general} rides the {position} {branch}",
        "positions": ("initial", "middle", "final"),
        "patterns": "The chart shows {count_n} patterns, by group: {groups}.",
        "group": "{group}: {names}",
        "spirits": "The spirits where they show, over the stem and the branch, on their yin spirits and on the "
                   "transmissions: {places}.",
        "places": {"干上": "干上 (over the stem)", "干陰": "干陰 (the stem's yin spirit)", "支上": "支上 (over the branch)",
                   "支陰": "支陰 (the branch's yin spirit)", "初傳": "the initial", "中傳": "the middle", "末傳": "the final"},
        "omens": "Of these the books call {groups}.", "omen_group": "{omen} {names}",
        "omen_words": {"吉": "auspicious (吉)", "凶": "ominous (凶)"},
        "place": "{place} {branch}: {names}",
        "item": "{name}: {label}",
        "keti": "The chart has {count_n} names (課體), by group: {groups}.",
        "judgement": "The matter asked is {matter}. First the 用神 of the question, then the reasons for and "
                     "against and the rescues, then the books' precedence, reason over reason; the answer: "
                     "{answer}. Each line below rests on its rule and line.",
        "judged": "{what}: {said} [{source}]", "judged_more": "{n} more findings (cast --json lists them all)",
        "judged_yong": "1. the 用神", "judged_reason": "2. {sign}", "judged_prefer": "3. precedence",
        "judged_answer": "4. the answer", "judged_timing": "5. timing (應期)",
        "signs": {"成": "for", "不成": "against", "救": "rescue"},
        "none": "none",
        "mark": "{label}; {branch} stands over {over}{shows}",
        "mark_shows": " and shows as {places}",
        "strength": "{month}; {ruling}: {found}.",
        "strength_item": "{element} {strength}",
        "carried": "The transmissions: {items}.",
        "carried_item": "the {position} {branch}: {found}",
        "stages": "The transmissions in the day stem {stem}'s twelve stages (十二長生): {items}.",
        "life": "{items}.",
        "resting": "The patterns that rest on these: {names}.",
    },
}

# Which steps explain which conclusion of the page.
CONCLUSION_STEPS = {"initial": ("candidates", "initial", "carry"), "middle": ("sequence", "carry"),
                    "final": ("sequence", "carry"), "method": ("ke", "method"), "lesson1": ("lessons", "ke"),
                    "lesson2": ("lessons", "ke"), "lesson3": ("lessons", "ke"), "lesson4": ("lessons", "ke"),
                    "general": ("generals",), "noble": ("generals",), "keti": ("keti",), "pattern": ("patterns",),
                    "spirit": ("spirits",)}
_VARIANT = re.compile(r"variants/([^/]+)/([^/:]+)\.dl")


@dataclass
class Step:
    """One numbered step: what it says, the relations it states, the rules and seed lines it rests on."""

    key: str
    title: str
    text: str
    rules: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    atoms: list[str] = field(default_factory=list)  # `why` (or why-not, for "not …") answers each
    readings: list[dict] = field(default_factory=list)  # {topic, reading, rules, path}
    glosses: list[tuple[str, str]] = field(default_factory=list)  # (name in a verse, branch)
    items: list[dict] = field(default_factory=list)  # one line each: {text, atom, rule, source}
    differs: Optional[dict] = None  # under another reading: how the step differs from the school's own (changes)

    def as_dict(self) -> dict:
        return asdict(self)


class _Notes:
    """What one step has stated so far: atoms, the rule applications under them, the readings."""

    def __init__(self):
        self.atoms: list[str] = []
        self.rules: list[dict] = []
        self.quoted: list[dict] = []
        self.readings: dict[str, dict] = {}
        self.items: list[dict] = []


class _Teacher:
    """Builds the steps of one chart in one language."""

    def __init__(self, chart: "Chart", lang: str):
        self.chart, self.lang, self.t = chart, lang, TEXT[lang]
        self.session = chart.session
        self.notes = _Notes()

    # stating relations --------------------------------------------------------
    @cached_property
    def order(self) -> dict:
        return {b: i for i, b in enumerate(members(self.session.base, "branch"))}

    def rows(self, pred: str) -> list[tuple]:
        """The chart's rows of a relation, branches in branch order (none if the KB lacks it)."""
        if pred not in self.session.kb.program.preds:
            return []
        return sorted(self.chart.rows(pred), key=lambda row: [(self.order.get(x, -1), str(x)) for x in row])

    @cached_property
    def explainer(self):
        """One explainer for the whole lesson: what one step derived, the next reuses."""
        return self.session.explainer(self.chart.id)

    def state(self, pred: str, *args, quote: bool = True, of_chart: bool = True) -> dict:
        """Note the atom ``pred(chart, args…)`` (``pred(args…)`` for a relation not of the chart) as
        said; return the rule application that derived it (the node below the atom in ``why``'s graph)."""
        args = (self.chart.id, *args) if of_chart else args
        self.notes.atoms.append(atom_text(pred, args))
        firing = self.last = self.explainer.chosen(pred, args)
        if firing is None:  # a fact: a table's (with its id and seed line) or a plain one
            table = self.explainer.table_of((pred, args))
            attrs = {"kind": "fact", "text": atom_text(pred, args)}
            if table is not None:
                attrs.update(rule=table.id, source=table.source, zh=table.label("zh"), en=table.label("en"))
                self.notes.rules.append(attrs)
                if quote:
                    self.notes.quoted.append(attrs)
            elif pred in self.chart.session.kb.program.preds:  # an input: said by its relation's label
                attrs[self.lang] = atom_label(self.chart.session.kb.program.preds[pred], args, self.lang) or attrs["text"]
            return attrs
        attrs = self.explainer.application(firing)
        self.note_readings(firing)
        self.notes.rules.append(attrs)
        if quote:
            self.notes.quoted.append(attrs)
        return attrs

    def below(self, firing, pred: str):
        """The rule application that derived a premise of ``firing`` of relation ``pred`` (None if none)."""
        atom = next((a for a in firing.atoms if a[0] == pred), None)
        return self.explainer.chosen(*atom) if atom else None

    @cached_property
    def read_variously(self) -> frozenset:
        """The relations a rule of ``kb/variants`` derives: only their atoms can rest on a reading."""
        return frozenset(pred for pred, compiled in self.session.kb.rules_for.items()
                         if any(_VARIANT.search(c.rule.pos.path) for c in compiled))

    def note_readings(self, firing) -> None:
        """Note the disputed readings (rules of ``kb/variants``) within two rule steps of the atom."""
        for f in [firing] + [self.explainer.chosen(*a) for a in firing.atoms if a[0] in self.read_variously]:
            if f is None:
                continue
            rule = f.rule.rule
            found = _VARIANT.search(rule.pos.path)
            if found:
                entry = self.notes.readings.setdefault(found.group(1), {
                    "topic": found.group(1), "reading": found.group(2), "rules": [], "path": rule.pos.path})
                if rule.id not in entry["rules"]:
                    entry["rules"].append(rule.id)

    def state_absent(self, pred: str, *args) -> None:
        """Note that ``pred(chart, args…)`` does not hold (why-not answers it)."""
        self.notes.atoms.append("not " + atom_text(pred, [self.chart.id, *args]))
        graph = self.session.why_not(self.chart, atom_text(pred, [self.chart.id, *args]), depth=1,
                                     graph_type=Digraph)  # read here, never handed out: no networkx import
        self.notes.rules += [a for _, a in graph.nodes(data=True) if a["kind"] == "fail"]

    def step(self, key: str, text: str) -> Step:
        """The step made of what was stated since the last one."""
        notes, self.notes = self.notes, _Notes()
        ids = list(dict.fromkeys(r["rule"] for r in notes.rules))
        sources = list(dict.fromkeys(self.repaired(r["source"]) for r in notes.quoted if r.get("source")))
        sources = [s for s in sources if not any(s != other and s.partition(": ")[2] in other for other in sources)]
        verses = "".join(sources)
        glosses = sorted(((n, b) for n, b in self.names if n in verses), key=lambda g: verses.index(g[0]))
        return Step(key, self.t["titles"][key], text, ids, sources, list(dict.fromkeys(notes.atoms)),
                    list(notes.readings.values()), glosses, notes.items)

    # the KB's words -------------------------------------------------------------
    @cached_property
    def names(self) -> list[tuple[str, str]]:
        return sorted(self.session.base.query("branch_name", [None, None]))

    @cached_property
    def repairs(self) -> list[tuple[str, str]]:
        return [(before, lost) for before, lost, _ in self.session.base.query("verse_repair", [None, None, None])]

    def repaired(self, source: str) -> str:
        """A seed line with each lacuna the KB restores written in, marked 〔…〕."""
        for before, lost in self.repairs:
            source = source.replace(before + "　", f"{before}〔{lost}〕")
        return source

    def label(self, attrs: dict, capital: bool = False) -> str:
        text = attrs.get(self.lang) or attrs.get("text", "")
        return text[:1].upper() + text[1:] if capital and self.lang == "en" else text

    @cached_property
    def rule_of(self) -> dict:
        return {c.rule.id: c.rule for compiled in self.session.kb.rules_for.values() for c in compiled}

    def template(self, attrs: dict, values: dict) -> str:
        """A rule application's label with some of its values replaced (a list of methods for one)."""
        return fill(self.rule_of[attrs["rule"]].label(self.lang), {**bindings(attrs), **values},
                    lang=self.lang)

    def num(self, n: int) -> str:
        return number(n, self.lang)

    def sentences(self, *parts: str) -> str:
        """Sentences one after the other (a space between them in English)."""
        return self.t["space"].join(p for p in parts if p)

    def sep(self, items, key: str = "list_sep") -> str:
        return self.t[key].join(items)

    def place(self, where: str) -> str:
        """Where a branch shows (干上 … 末傳), in the lesson's language."""
        return self.t.get("places", {}).get(where, where)

    def series(self, items) -> str:
        """A short list as a sentence has it: 賊剋、比用、涉害 / 賊剋, 比用 and 涉害."""
        items = list(items)
        if self.lang == "en" and len(items) > 1:
            return ", ".join(items[:-1]) + " and " + items[-1]
        return self.sep(items)

    def capital(self, text: str) -> str:
        return text[:1].upper() + text[1:] if self.lang == "en" else text

    # the steps ----------------------------------------------------------------
    def plate(self) -> Step:
        chart = self.chart
        self.state("offset", chart.offset)
        heaven = chart.heaven
        for earth, upper in sorted(heaven.items()):
            self.state("tianpan", earth, upper, quote=False)
        pairs = self.sep(self.t["pair"].format(earth=e, heaven=heaven[e]) for e in members(self.session.base, "branch"))
        text = self.t["plate"].format(jiang=chart.jiang, hour=chart.hour, offset_n=self.num(chart.offset), pairs=pairs)
        return self.step("plate", text)

    def lessons(self) -> Step:
        chart = self.chart
        for lesson in chart.lessons:
            self.state("lesson", lesson.number, lesson.upper, lesson.lower)
        upper = {l.number: l.upper for l in chart.lessons}
        lodge = dict(self.rows("seat"))[1]
        text = self.t["lessons"].format(stem=chart.inputs.stem, branch=chart.inputs.branch, lodge=lodge,
                                        u1=upper[1], u2=upper[2], u3=upper[3], u4=upper[4])
        repeats = [n for (n,) in self.rows("repeats")]
        if repeats:
            for n in repeats:
                self.state("repeats", n, quote=False)
            (count,), = self.rows("lesson_count")
            self.state("lesson_count", count)
            template = self.t["lessons_count" if len(repeats) == 1 else "lessons_counts"]
            text = self.sentences(text, template.format(repeats=self.series(map(self.num, repeats)), count_n=self.num(count)))
        return self.step("lessons", text)

    def ke(self) -> Step:
        chart, t = self.chart, self.t
        found = []
        lessons = {l.number: l for l in chart.lessons}
        for pred, kind in (("lower_overcomes", "ke_lower"), ("upper_overcomes", "ke_upper")):
            for (n,) in self.rows(pred):
                self.state(pred, n)
                l = lessons[n]
                x, y = (l.lower, l.upper) if kind == "ke_lower" else (l.upper, l.lower)
                found.append((n, t["ke_item"].format(n_n=self.num(n), x=x, y=y, kind=t[kind])))
        if not found:
            pairs = self.sep(t["ke_pair"].format(upper=l.upper, lower=l.lower) for l in chart.lessons)
            self.state_absent("has_ke")
            return self.step("ke", t["ke_none"].format(pairs=pairs))
        text = self.capital(self.sep((item for _, item in sorted(found)), "clause_sep") + t["end"])
        for (mode,) in self.rows("ke_mode"):
            self.state("ke_mode", mode)
            text = self.sentences(text, t["ke_mode_lower" if mode == "下賊" else "ke_mode_upper"])
        return self.step("ke", text)

    def method(self) -> Step:
        chart, t = self.chart, self.t
        method = chart.method
        order = dict(self.session.source(chart.id).query("method_order", [None, None]))
        earlier = sorted((m for m in order if order[m] < order[method]), key=order.get)
        reasons: list[tuple[dict, list[str]]] = []  # (rule application, the methods it rules out)
        for m in earlier:
            attrs = self.state("unmet", m, quote=False)
            if reasons and reasons[-1][0]["rule"] == attrs["rule"] and "M" in bindings(attrs):
                reasons[-1][1].append(m)
            else:
                reasons.append((attrs, [m]))
        if reasons:
            clauses = [self.template(attrs, {"M": self.series(ms)}) if len(ms) > 1 else self.label(attrs)
                       for attrs, ms in reasons]
            text = t["method_tried"].format(reasons=self.sep(clauses, "clause_sep"))
        else:
            self.state("method_order", method, order[method], quote=False, of_chart=False)
            text = t["method_first"].format(method=method)
        applied = self.state("applicable", method)
        chosen = self.state("chosen", method, quote=False)  # the KB's words: no method tried earlier applies
        text = self.sentences(text, t["method_chosen"].format(method=method, because=self.label(applied, True),
                                                              chosen=self.label(chosen)))
        others = sorted((m for (m,) in self.rows("applicable") if m != method), key=order.get)
        outranked = [self.label(self.state("outranked", m, quote=False)) for m in others]  # the KB's words again
        if outranked:
            text = self.sentences(text, self.capital(self.sep(outranked, "clause_sep")) + t["end"])
        return self.step("method", text)

    def candidates(self) -> Optional[Step]:
        """How the initial is picked among the 剋 lessons' uppers (賊剋, 比用, 涉害; 返吟 with a 剋)."""
        chart, t = self.chart, self.t
        rows = self.rows("candidate")
        if not rows or not any(m == chart.method or chart.method == "返吟" for _, m, _ in self.rows("zeike_initial")):
            return None
        parts = []
        if chart.method == "返吟":
            parts.append(self.capital(self.label(self.state("initial", chart.transmissions[0].branch))) + t["end"])
        labels = [self.label(self.state("candidate", u)) for (u,) in rows]
        (count,), = self.rows("candidate_count")
        self.state("candidate_count", count, quote=False)
        parts.append(t["candidates"].format(found=self.sep(labels, "clause_sep")))
        if count > 1:
            parts.append(self.polarity(rows))
            parts += self.wading()
        return self.step("candidates", self.sentences(*parts))

    def polarity(self, rows) -> str:
        t, stem = self.t, self.chart.inputs.stem
        polarity = dict(self.session.base.query("polarity", [None, None]))
        kept = [u for (u,) in self.rows("bi_candidate")]
        for u in kept:
            self.state("bi_candidate", u)
        (bi,), = self.rows("bi_count")
        self.state("bi_count", bi, quote=False)
        items = self.sep(t["bi_item"].format(branch=u, polarity=polarity[u]) for (u,) in rows)
        verdict = t["bi_kept"].format(found=self.sep(kept)) if kept else t["bi_none"]
        return t["bi"].format(stem=stem, polarity=polarity[stem], found=items + t["clause_sep"] + verdict)

    def wading(self) -> list[str]:
        """涉害: each candidate's walk home, palace by palace, and the tie-break when the deepest tie."""
        t = self.t
        pool = [u for (u,) in self.rows("shehai_pool")]
        if not pool:
            return []
        seat = {u: e for e, u in self.chart.heaven.items()}
        mode = self.rows("ke_mode")[0][0]
        met = self.rows("shehai_met")
        walks = []
        entered = [self.state("shehai_pool", u) for u in pool]
        walks = [self.capital(self.template(entered[0], {"U": self.sep(pool)})) + t["end"]]
        for u in pool:
            path = [q for (v, q) in self.rows("on_path") if v == u]
            if not self.rows("shehai_depth"):  # a reading without the count: say so
                deepest = [self.state("deepest", v) for v in pool]
                walks.append(self.capital(self.template(deepest[0], {"U": self.sep(pool)})) + t["end"])
                break
            # how far past the seat each palace lies (a reading that counts the seat binds no D: 0)
            steps = {q: self.explainer.firings(("on_path", (self.chart.id, u, q)))[0].binding.get("D", 0) for q in path}
            path.sort(key=steps.get)
            for q in path:
                self.state("on_path", u, q)
            (depth,), = [(d,) for v, d in self.rows("shehai_depth") if v == u]
            self.state("shehai_depth", u, depth)
            palaces = {}
            for v, q, x in met:
                if v == u:
                    self.state("shehai_met", u, q, x)
                    palaces.setdefault(q, []).append(x)
            palaces = {q: sorted(xs, key=lambda x: x != q) for q, xs in palaces.items()}  # the branch, then stems
            found = self.sep(t["met_item"].format(palace=q, symbols=self.sep(palaces[q])) for q in path if q in palaces)
            walk = t["walk"].format(branch=u, seat=seat[u], path=self.sep(path))
            meeting = (t["met_lower" if mode == "下賊" else "met_upper"].format(found=found, depth_n=self.num(depth))
                       if found else t["met_none"])
            walks.append(self.capital(walk + t["clause_sep"] + meeting + t["end"]))
        out = walks
        if self.rows("shehai_max"):
            (deepest,), = self.rows("shehai_max")
            self.state("shehai_max", deepest)
            depths = self.sep(t["depth_item"].format(branch=u, depth_n=self.num(d)) for u, d in self.rows("shehai_depth"))
            out.append(t["depths"].format(found=self.capital(depths), max_n=self.num(deepest)))
        tied = self.rows("deepest_on")
        if len(tied) > 1:
            for u, rank in tied:
                self.state("deepest_on", u, rank)
            out.append(t["tie"].format(found=self.sep(t["tie_item"].format(branch=u, seat=seat[u], rank=rank)
                                                      for u, rank in tied)))
        return out

    def initial(self) -> Step:
        chart, t = self.chart, self.t
        branch = chart.transmissions[0].branch
        last = self.state("initial", branch)
        inner = next((a for a in self.last.atoms if a[0] == "zeike_initial"), None)
        if inner is not None:
            last = self.state("zeike_initial", *inner[1][1:])
        for name in chart.subnames:
            self.state("subname", name, quote=False)
        names = [n for n in chart.subnames if n != chart.method]
        named = (t["named_also"].format(method=chart.method, names=self.sep(names)) if names
                 else t["named"].format(method=chart.method))
        return self.step("initial", t["initial"].format(label=self.label(last, True), branch=branch, named=named))

    def sequence(self) -> Step:
        chart = self.chart
        middle = self.state("middle", chart.transmissions[1].branch)
        final = self.state("final", chart.transmissions[2].branch)
        text = self.t["sequence"].format(middle=self.label(middle, True), final=self.label(final), sanchuan=chart.sanchuan)
        return self.step("sequence", text)

    def carry(self) -> Step:
        chart, t = self.chart, self.t
        items = []
        for tr in chart.transmissions:
            self.state("transmission_kin", tr.position, tr.kin, quote=False)
            key = "carry_item"
            if tr.hidden_stem:
                self.state("transmission_stem", tr.position, tr.hidden_stem, quote=False)
            else:
                key = "carry_no_stem"
            items.append(t[key].format(position=t["positions"][tr.position - 1], branch=tr.branch,
                                       stem=chart.inputs.stem, kin=tr.kin, hidden=tr.hidden_stem))
        for v in chart.void:
            self.state("void", v)
        fallen = [t["positions"][n - 1] for (n,) in self.rows("transmission_void")]
        for (n,) in self.rows("transmission_void"):
            self.state("transmission_void", n, quote=False)
        void = t["void"].format(void=self.sep(chart.void),
                                fallen=t["void_fallen"].format(positions=self.series(fallen)) if fallen else t["void_none"])
        return self.step("carry", t["carry"].format(items=self.capital(self.sep(items, "clause_sep")), void=void))

    def generals(self) -> Step:
        chart, t = self.chart, self.t
        noble = self.state("noble", chart.noble)
        direction = self.state("direction", chart.direction)
        riders = []
        for tr in chart.transmissions:
            self.state("transmission_general", tr.position, tr.general, quote=False)
            riders.append(t["rider"].format(position=t["positions"][tr.position - 1], branch=tr.branch, general=tr.general))
        text = t["generals"].format(noble=self.label(noble, True), direction=self.label(direction),
                                    riders=self.sep(riders))
        return self.step("generals", text)

    def keti(self) -> Optional[Step]:
        """The chart's 課體, by group, each with the rule that names it and its verse."""
        groups: dict[str, list[str]] = {}
        group_of = dict(self.session.source(self.chart.id).query("keti_group", [None, None]))
        for name in self.chart.keti:
            rule = self.state("keti", name)
            groups.setdefault(group_of.get(name, "—"), []).append(name)
            self.item(name, rule)
        if not groups:
            return None
        found = self.sep((self.t["group"].format(group=g, names=self.sep(ns)) for g, ns in groups.items()), "clause_sep")
        return self.step("keti", self.t["keti"].format(count_n=self.num(len(self.chart.keti)), groups=found))

    def judgement(self) -> Optional[Step]:
        """The 斷 of a chart cast with a matter, taught as the weighing goes: the 用神 of the question,
        each reason for or against and each rescue, each precedence that outranked a reason, the
        answer, its 應期, then how many findings ``--json`` adds; each line with its rule and the line
        of its book."""
        from liuren_logic.datalog.defeasible import applicable, outranked

        from .judgement import judgement_data, reading

        read, t = reading(self.chart, gloss=False), self.t
        if read is None:
            return None
        answer = read["answer"]
        for yong in answer["yongshen"]:
            self.state("question_yong", yong["branch"], yong["role"], quote=False)
            self.judged(t["judged_yong"], yong["text"][self.lang], yong)
        for reason in answer["reasons"]:
            self.state(applicable(reason["name"]), quote=False)
            self.judged(t["judged_reason"].format(sign=t["signs"][reason["points"]]), reason["text"][self.lang], reason)
        for reason in answer["reasons"]:
            if reason["outranked_by"]:
                preferred = self.state(outranked(reason["name"]), quote=False)
                self.judged(t["judged_prefer"], preferred[self.lang], preferred)
        self.state("answer", answer["polarity"], quote=False)
        self.judged(t["judged_answer"], answer["text"][self.lang], answer)
        if answer["timing"]:
            self.state("answer_timing", answer["timing"]["branch"], answer["timing"]["method"], quote=False)
            self.judged(t["judged_timing"], answer["timing"]["text"][self.lang], answer["timing"])
        findings = judgement_data(self.chart, read=read)["findings"]
        if findings:
            self.notes.items.append({"text": t["judged_more"].format(n=self.num(len(findings))),
                                     "atom": "", "rule": "", "source": ""})
        return self.step("judgement", t["judgement"].format(matter=read["matter"], answer=answer["text"][self.lang]))

    def judged(self, what: str, said: str, row: dict) -> None:
        """One line of the 斷: what it is, what its rule says, the rule and the line of its book."""
        key, _, verse = self.repaired(row["source"]).partition(": ")
        sep = self.t["source"].partition("{")[0]
        source = self.t["source"].format(book=book(row["source"], self.lang), verse=verse)[len(sep):] if verse else ""
        self.notes.items.append({"text": self.t["judged"].format(what=what, said=said,
                                                                  source=with_id(source, row["rule"], sep)),
                                 "atom": self.notes.atoms[-1], "rule": row["rule"], "source": self.repaired(row["source"])})

    def item(self, name: str, rule: dict) -> None:
        """One line of a step: what the rule says of a name (with the name, if its label leaves it out)."""
        label = self.label(rule)
        self.notes.items.append({"text": label if name in label else self.t["item"].format(name=name, label=label),
                                 "atom": self.notes.atoms[-1], "rule": rule.get("rule"),
                                 "source": self.repaired(rule.get("source") or "")})

    def marks(self) -> Optional[Step]:
        """日祿 日馬 旬丁 日德: where each is, the palace it stands over, where it shows in the chart."""
        t = self.t
        clauses = []
        for mark in self.chart.marks:
            label = self.label(self.state("day_mark", mark["mark"], mark["branch"]))
            self.state("tianpan", mark["over"], mark["branch"], quote=False)
            shown = mark["shows"]
            for where in shown:
                self.state("mark_present", mark["mark"], mark["branch"], where, quote=False)
            shows = t["mark_shows"].format(places=self.series(map(self.place, shown))) if shown else ""
            clauses.append(t["mark"].format(label=label, branch=mark["branch"], over=mark["over"], shows=shows))
        if not clauses:
            return None
        return self.step("marks", self.capital(self.sep(clauses, "clause_sep")) + t["end"])

    def strength(self) -> Optional[Step]:
        """The month's 旺相休囚死 of the five elements, then each transmission's strength and 長生 stage."""
        chart, t = self.chart, self.t
        parts = []
        if chart.element_strength:
            (month,), = self.rows("month_branch")
            month_label = self.label(self.state("month_branch", month), True)
            (ruling,), = self.rows("ruling_element")
            ruling_label = self.label(self.state("ruling_element", ruling))
            for element, strength in chart.element_strength.items():
                self.state("element_strength", element, strength, quote=strength == "旺")
            found = self.sep(t["strength_item"].format(element=e, strength=s) for e, s in chart.element_strength.items())
            parts.append(t["strength"].format(month=month_label, ruling=ruling_label, found=found))
        items = []
        for tr in chart.transmissions:
            said = [self.label(self.state("strength", tr.branch, chart.strength[tr.branch]))] \
                if tr.branch in chart.strength else []
            if tr.branch in chart.stages:
                said.append(self.label(self.state("stage", tr.branch, chart.stages[tr.branch])))
            if said:
                items.append(t["carried_item"].format(position=t["positions"][tr.position - 1], branch=tr.branch,
                                                      found=t["also"].join(said)))
        if items:
            parts.append(t["carried"].format(items=self.sep(items, "clause_sep")))
        parts.append(self.resting(("strength", "element_strength")))
        return self.step("strength", self.sentences(*parts)) if any(parts) else None

    def resting(self, preds: tuple[str, ...]) -> str:
        """The patterns whose rule rests directly on one of ``preds`` (read from the derivation), each
        stated with its rule and verse as an item; the sentence naming them ('' if none)."""
        names = []
        for _, name in self.chart.patterns:
            firing = self.explainer.chosen("pattern", (self.chart.id, name))
            if firing is not None and any(a[0] in preds for a in firing.atoms):
                self.item(name, self.state("pattern", name))
                names.append(name)
        return self.t["resting"].format(names=self.series(names)) if names else ""

    def life(self) -> Optional[Step]:
        """The querent: year of birth and 本命, age and 行年, and what stands over each, with its general."""
        if not self.chart.life:
            return None
        said = []
        for pred in ("born", "natal", "age", "xingnian", "life_given"):  # 行年's label says the year it counts
            for row in self.rows(pred):
                said.append(self.label(self.state(pred, *row)))
        for role, upper in sorted(self.rows("life_upper"), key=lambda r: r[0] != "本命"):
            said.append(self.label(self.state("life_upper", role, upper)))
            for r, general in self.rows("life_general"):
                if r == role:
                    said.append(self.label(self.state("life_general", role, general)))
        text = self.t["life"].format(items=self.capital(self.sep(said, "clause_sep")))
        return self.step("life", self.sentences(text, self.resting(("life_point", "life_upper", "life_general"))))

    def patterns(self) -> Optional[Step]:
        t = self.t
        groups: dict[str, list[str]] = {}
        for group, name in self.chart.patterns:
            rule = self.state("pattern", name, quote=False)
            state = self.below(self.last, "general_state")  # a general's state: say which
            rule = self.explainer.application(state) if state else rule
            groups.setdefault(group, []).append(name)
            self.item(name, rule)
        if not groups:
            return None
        found = self.sep((t["group"].format(group=g, names=self.sep(ns)) for g, ns in groups.items()), "clause_sep")
        return self.step("patterns", t["patterns"].format(count_n=self.num(len(self.chart.patterns)), groups=found))

    def spirits(self) -> Optional[Step]:
        t = self.t
        places: dict[tuple[str, str], list[str]] = {}
        for where, branch, spirit in self.chart.spirits:
            self.state("spirit_present", spirit, branch, where, quote=False)
            places.setdefault((where, branch), []).append(spirit)
        if not places:
            return None
        found = self.sep((t["place"].format(place=self.place(w), branch=b, names=self.sep(ns))
                          for (w, b), ns in places.items()),
                         "clause_sep")
        text = t["spirits"].format(places=found)
        omens: dict[str, list[str]] = {}
        known = dict(self.session.source(self.chart.id).query("spirit_omen", [None, None])) \
            if "spirit_omen" in self.session.kb.program.preds else {}
        for spirit in dict.fromkeys(s for _, _, s in self.chart.spirits):
            if spirit in known:
                self.state("spirit_omen", spirit, known[spirit], of_chart=False)
                omens.setdefault(known[spirit], []).append(spirit)
        if omens:
            groups = (t["omen_group"].format(omen=t["omen_words"][o], names=self.series(omens[o])) for o in ("吉", "凶")
                      if o in omens)
            text = self.sentences(text, t["omens"].format(groups=self.sep(groups, "clause_sep")))
        return self.step("spirits", text)


def lesson_steps(chart: "Chart", lang: str = "zh", glossed: bool = True) -> list[Step]:
    """The steps of the lesson for a chart (the transmissions need a decided chart); in English, each
    term glossed at its first use in the lesson (not ``glossed``: as told, for a text that glosses
    its own words, such as the trainer's verdict)."""
    teacher = _Teacher(chart, lang)
    steps = [teacher.plate(), teacher.lessons(), teacher.ke()]
    if chart.method is not None:
        steps.append(teacher.method())
    if chart.transmissions:
        steps += [teacher.candidates(), teacher.initial(), teacher.sequence(), teacher.carry(), teacher.generals()]
    steps += [teacher.keti(), teacher.patterns(), teacher.spirits(), teacher.marks(), teacher.strength(),
              teacher.life(), teacher.judgement()]
    steps = [s for s in steps if s is not None]
    if lang == "en" and glossed:  # each term glossed at its first use in the lesson (text, page, app)
        glosses, known, seen = glossary(chart.session), known_terms(chart.session), set()
        for step in steps:
            step.text = gloss_first(step.text, glosses, seen, known)
            for item in step.items:
                item["text"] = gloss_first(item["text"], glosses, seen, known)
    return steps


def header(chart: "Chart", lang: str = "zh") -> str:
    """The chart in one line: day, monthly general, hour, day or night, method and name, 三傳."""
    t = TEXT[lang]
    names = "·".join(n for n in chart.subnames if n != chart.method)
    decided = " ".join(part for part in (chart.method or "—", names) if part)
    return t["header"].format(day=chart.day, jiang=chart.jiang, hour=chart.hour,
                              when=t["day" if chart.daytime else "night"], decided=decided,
                              sanchuan=chart.sanchuan or "—")


def compare(steps: list[Step], chart: "Chart", default: list[Step], default_chart: "Chart") -> dict[str, tuple]:
    """Mark each step whose stated atoms or rules differ from the same chart's lesson under the
    school's own readings (``default``, ``default_chart``); return what the lesson follows,
    topic → (its reading, the school's own)."""
    mine, own = chart.session.kb.school.readings, default_chart.session.kb.school.readings
    follows = {t: (mine[t], own.get(t)) for t in sorted(mine) if mine[t] != own.get(t)}
    before = {s.key: s for s in default}

    def atoms(step: Step, c: "Chart") -> set[str]:
        return {a.replace(c.id, "C") for a in step.atoms}

    for step in steps:
        other = before.get(step.key)
        if other is not None and atoms(step, chart) == atoms(other, default_chart) and step.rules == other.rules:
            continue
        here = {r["topic"] for r in step.readings} | {r["topic"] for r in (other.readings if other else [])}
        topics = [t for t in follows if t in here] or list(follows)
        step.differs = {"readings": {k: follows[k][0] for k in topics}, "text": other.text if other else None,
                        "only_here": sorted(atoms(step, chart) - (atoms(other, default_chart) if other else set())),
                        "only_default": sorted(atoms(other, default_chart) - atoms(step, chart)) if other else [],
                        "rules_here": [r for r in step.rules if other is None or r not in other.rules],
                        "rules_default": [r for r in (other.rules if other else []) if r not in step.rules]}
    return follows


def follows_line(steps: list[Step], follows: dict[str, tuple], lang: str = "zh") -> str:
    """Which readings the lesson follows, and which steps they change."""
    t = TEXT[lang]
    readings = t["list_sep"].join(t["follow_item"].format(topic=topic_name(k, lang), reading=_reading(k, r, lang),
                                                          default=_reading(k, d, lang))
                                  for k, (r, d) in follows.items())
    changed = [number(i, lang) for i, s in enumerate(steps, 1) if s.differs]
    return t["follows"].format(readings=readings, changed=t["changed"].format(numbers=t["list_sep"].join(changed))
                               if changed else t["unchanged"])


def _reading(topic: str, reading: str, lang: str) -> str:
    """A reading by the name the readings selector shows (its id beside it under ``--ids``)."""
    name = reading_name(topic, reading, lang, bare=True)
    return f"{name} ({reading})" if ids_shown() and name != reading else name


def cite(step: Step, lang: str = "zh") -> str:
    """The book lines a step rests on, on one line, the verses' names glossed ('' when it quotes
    none); under ``--ids`` the rules' ids first."""
    t = TEXT[lang]
    sources = ""
    for source in step.sources:
        verse = source.partition(": ")[2]
        sources += t["source"].format(book=book(source, lang) if verse else "", verse=verse or source)
    if step.glosses:
        sources += t["gloss"].format(glosses=t["list_sep"].join(t["gloss_item"].format(name=n, branch=b)
                                                              for n, b in step.glosses))
    if ids_shown():
        return t["cite"].format(rules=t["rule_sep"].join(step.rules), sources=sources)
    sources = sources.removeprefix(t["source"].partition("{")[0])
    return t["books"].format(sources=sources) if sources else ""


def reading_notes(step: Step, lang: str = "zh") -> list[str]:
    """One line for each disputed reading the step rests on, by its name (its rules and file under ``--ids``)."""
    t = TEXT[lang]
    if not ids_shown():
        return [t["reading_named"].format(topic=topic_name(r["topic"], lang),
                                          reading=_reading(r["topic"], r["reading"], lang)) for r in step.readings]
    return [t["reading"].format(topic=r["topic"], reading=r["reading"], rules=t["rule_sep"].join(r["rules"]),
                                path=r["path"]) for r in step.readings]


def render_step(step: Step, index: int, lang: str = "zh") -> str:
    """One step: its numbered title, its sentences, the rules and seed lines it rests on."""
    title = TEXT[lang]["number"].format(numeral=number(index, lang), title=step.title)
    lines = [title, "   " + step.text] + [f"   · {item['text']}" for item in step.items]
    said = cite(step, lang) if step.rules else ""
    if said:
        lines.append("   " + said)
    lines += ["   " + note for note in reading_notes(step, lang)]
    if step.differs:
        lines.append("   " + differs_note(step, lang))
    return "\n".join(lines)


def differs_note(step: Step, lang: str = "zh") -> str:
    """Under another reading: how the step differs, quoting it as the school's own reading has it."""
    t = TEXT[lang]
    readings = t["list_sep"].join(reading_name(k, r, lang) + (f" ({k}={r})" if ids_shown() else "")
                                  for k, r in step.differs["readings"].items())
    if step.differs["text"] is None:
        return t["differs_gone"].format(readings=readings)
    return t["differs"].format(readings=readings, text=step.differs["text"])


def render_lesson(chart: "Chart", lang: str = "zh", steps: Optional[list[Step]] = None,
                  follows: Optional[dict] = None) -> str:
    """The whole lesson as text: a header line (and, under another reading, what it follows and
    changes: :func:`compare`), then the numbered steps."""
    steps = steps if steps is not None else lesson_steps(chart, lang)
    head = header(chart, lang) + ("\n" + follows_line(steps, follows, lang) if follows else "")
    blocks = [head] + [render_step(s, i, lang) for i, s in enumerate(steps, 1)]
    disputed = dispute_lines(chart, lang)[1:]  # what another shipped reading concludes otherwise
    return "\n\n".join(blocks + (["\n".join(disputed)] if disputed else []))
