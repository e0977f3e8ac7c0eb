"""The 斷 of a chart cast with a matter: the findings, verdicts and 應期 the KB's judgement rules
(kb/judgement) derive, each with its rule's sentence (zh, en), the rule and its source.

Nothing here judges: it reads the relations ``finding``, ``verdict`` and ``timing`` and the rule
each row was derived by, and orders the findings by weight for the matter: those of rules that read
the matter itself (its 類神, or a line about that matter) first, then those every matter gets; each
group by kind, the matter's own signs (類神, 六親) first. ``cast --json`` carries them all
(:func:`judgement_data`); the board's last section (:func:`judgement_section`) the first SHOWN,
each citing its book by name (data/sources.txt). In English a 類神 table's role word (the line's
own: 天后久) reads in English with the word after it (the KB's ``role_en``), and each term is
glossed at its first use in the judgement.
"""
from __future__ import annotations

from difflib import get_close_matches
from typing import TYPE_CHECKING, Optional

from liuren_logic.datalog import syntax as S
from liuren_logic.domain.errors import InputError
from liuren_logic.datalog.labels import ANY, fill
from liuren_logic.domain.books import book, cite
from liuren_logic.datalog.provenance import bindings

from .cells import Cell, Section
from .glossary import gloss_first, glossary, known_terms, short

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart

# The order a 斷 reads the kinds in: what stands for the matter, then its state, then the course.
KIND_ORDER = ("類神", "六親", "用神", "天將", "三傳", "神煞", "課體", "墓", "空亡", "旺衰", "生剋", "刑沖破害合",
              "年命", "應期")
SHOWN = 15  # findings the board lists; --json has them all
NUMERALS = str.maketrans("一二三四", "1234")
JOIN = {"zh": "；", "en": "; "}  # between the sentences of a finding one rule derives several times
WORDS = {"zh": {"title": "斷", "matter": "占", "question": "問", "verdict": "斷語", "timing": "應期",
                "more": "另有{n}條（--json 全列）", "none": "（無）",
                "conflict": "{a}與{b}相反，兩存之"},
         "en": {"title": "Judgement (斷)", "matter": "matter", "question": "question", "verdict": "verdict",
                "timing": "timing (應期)", "more": "{n} more (--json lists them all)", "none": "(none)",
                "conflict": "{a} and {b} point opposite ways; both stand"}}


def _for_the_matter(rule: S.Rule, preds: dict) -> bool:
    """Whether a rule reads the matter asked rather than holding for every matter: it names a matter
    (``matter(C, 家宅)``) or joins a table keyed by matter (a 類神 table). Its findings weigh more."""
    for literal in rule.body:
        atom = getattr(literal, "atom", literal)
        if not isinstance(atom, S.Atom):
            continue
        kinds = [kind for _, kind in preds[atom.pred].params]
        if atom.pred != "matter" and "matter" in kinds or atom.pred == "matter" and isinstance(atom.args[1], S.Const):
            return True
    return False


def role_words(session) -> dict[str, str]:
    """A 類神 table's role word (the line's own: 雨師, 天后久) → its English (``role_en``, kb/judgement)."""
    if "role_en" not in session.program.preds:
        return {}
    return {str(w): str(en) for w, en in session.base.query("role_en", [None, None])}


def _line_words(rule: S.Rule, preds: dict) -> set[str]:
    """The variables of a rule bound to a line's own words: those in a ``text`` argument of its body."""
    return {arg.name for literal in rule.body if isinstance(atom := getattr(literal, "atom", literal), S.Atom)
            for arg, (_, kind) in zip(atom.args, preds[atom.pred].params) if kind == "text" and isinstance(arg, S.Var)}


class _Reader:
    """The rule application under each row of one chart's judgement relations, its sentences ready."""

    def __init__(self, chart: "Chart"):
        self.chart, self.explainer = chart, chart.session.explainer(chart.id)
        self.preds, self.words, self.roles = chart.session.program.preds, {}, role_words(chart.session)

    def derived(self, pred: str, args: tuple) -> dict:
        """The rule that derived a row of ``pred``: its sentence filled with the row's values, id and
        source; in English, a line's own word (a 類神 table's role) reads in English, the word after it."""
        firing = self.explainer.chosen(pred, (self.chart.id, *args))
        applied, rule, roles = self.explainer.application(firing), firing.rule.rule, self.roles
        if rule.id not in self.words:
            self.words[rule.id] = _line_words(rule, self.preds)
        values = {k: f"{roles[v]}「{v}」" if k in self.words[rule.id] and v in roles else v
                  for k, v in bindings(applied).items()}
        en = fill(rule.label("en"), values, ANY["en"]) if rule.label("en") else applied["en"]
        return {"text": {"zh": applied["zh"], "en": en}, "rule": applied["rule"], "source": applied["source"]}


def _about(*values) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values))


def _merged(rows: list[dict]) -> dict:
    """Findings of one rule and kind as one: the abouts, words and sentences of each in turn."""
    first = rows[0]
    return {"kind": first["kind"], "about": _about(*(a for r in rows for a in r["about"])),
            "words": "、".join(dict.fromkeys(r["words"] for r in rows)),
            "text": {lang: JOIN[lang].join(r["text"][lang] for r in rows) for lang in ("zh", "en")},
            "rule": first["rule"], "source": first["source"]}


def _grouped(chart: "Chart", reader: _Reader) -> list[list[dict]]:
    """The chart's findings, each with its rule's sentence, grouped by rule and kind (a rule deriving
    several, as the generals of the three transmissions, is one group, in the chart's order), the
    groups by weight for the matter."""
    rank = {kind: i for i, kind in enumerate(KIND_ORDER)}
    program = chart.session.program
    weighs = {r.id: _for_the_matter(r, program.preds) for r in program.rules if r.head.pred == "finding"}
    by_rule: dict[tuple, list] = {}
    for k, f, a, b in sorted(chart.rows("finding"), key=lambda row: (rank[row[0]], row)):
        entry = {"kind": k, "about": _about(a, b), "words": f, "row": (k, f, a, b),
                 **reader.derived("finding", (k, f, a, b))}
        by_rule.setdefault((k, entry["rule"]), []).append(entry)
    for rows in by_rule.values():  # 第一傳 … 第三傳, 第一課 … 第四課 in their order
        rows.sort(key=lambda r: r["text"]["zh"].translate(NUMERALS))
    return [by_rule[key] for key in sorted(by_rule, key=lambda key: (not weighs[key[1]], rank[key[0]]))]


def judgement_glossary(session) -> dict[str, str]:
    """The glossary (:func:`glossary`) with the spirits' English names (``spirit_gloss``), which the
    judgement's sentences name more than the board's lists do."""
    spirits = session.base.query("spirit_gloss", [None] * 3) if "spirit_gloss" in session.program.preds else ()
    return {**{str(s): str(en) for s, en, _ in sorted(spirits)}, **glossary(session)}


def reading(chart: "Chart", gloss: bool = True) -> Optional[dict]:
    """What the judgement rules derived on a chart cast with a matter (None without one): the matter,
    the verdicts, the findings grouped (:func:`_grouped`), the 應期 and the conflicts, each row with its
    rule's sentences. ``gloss``: each term of the English sentences glossed at its first use, in the
    order the board shows them (verdicts, findings, 應期); the lesson glosses them itself."""
    matter = chart.rows("matter")
    if not matter:
        return None
    reader = _Reader(chart)
    read = {"matter": matter[0][0],
            "verdicts": [{"verdict": v, "about": _about(a), **reader.derived("verdict", (v, a))}
                         for v, a in chart.rows("verdict")],
            "groups": _grouped(chart, reader),
            "timing": [{"branch": b, "method": how, **reader.derived("timing", (b, how))}
                       for b, how in chart.rows("timing")],
            "conflicts": [[a, b] for a, b in chart.rows("conflict")]}
    if gloss:
        glosses, known, seen = judgement_glossary(chart.session), known_terms(chart.session), set()
        for row in read["verdicts"] + [r for group in read["groups"] for r in group] + read["timing"]:
            row["text"]["en"] = gloss_first(row["text"]["en"], glosses, seen, known)
    return read


def judgement_data(chart: "Chart", question: Optional[str] = None, read: Optional[dict] = None) -> Optional[dict]:
    """The chart's 斷 as ``cast --json`` carries it (None for a chart cast without a matter). Findings
    one rule derives several times (the chart's 課體, the generals of the three transmissions) are
    one finding naming them all (``read``: the chart's :func:`reading`)."""
    read = read if read is not None else reading(chart)
    if read is None:
        return None
    return {"matter": read["matter"], "question": question,
            "findings": [_merged(rows) for rows in read["groups"]],
            "verdicts": read["verdicts"], "timing": read["timing"], "conflicts": read["conflicts"]}


def judgement_section(chart: "Chart", lang: str, options: dict) -> Optional[Section]:
    """The board's 斷 (None for a chart cast without a matter): the matter and the question, the
    verdicts with their rule and line, the first SHOWN findings by weight, a finding one rule derives
    several times on one row (the generals of the transmissions, of the lessons), its sentences
    cells the board wraps between, with its rule and book; then the 應期. Each row's first cell
    asks ``why 斷`` of what it names. Books are named as the output's language names them."""

    read = reading(chart)
    if read is None:
        return None
    groups, data = read["groups"], judgement_data(chart, options.get("question"), read)
    w, question, matter = WORDS[lang], options.get("question"), data["matter"]
    if lang == "en":  # the matter's English name, from the KB's matter_en
        matter += "".join(f" ({en})" for _, en in chart.session.base.query("matter_en", [matter, None]))
    rows = [[Cell(f"{w['matter']} {matter}" + (f" · {w['question']} {question}" if question else ""))]]
    rows += [[Cell(f"{w['verdict']} {v['verdict']}", ("斷", v["verdict"])), Cell(v["text"][lang]),
              Cell(f"〔{v['rule']} · {cite(v['source'], lang)}〕")] for v in data["verdicts"]]
    rows += [[Cell(w["conflict"].format(a=a, b=b))] for a, b in data["conflicts"]]
    for group in groups[:SHOWN]:
        first = group[0]
        rows.append([Cell(first["kind"], ("斷", first["words"]))] + [Cell(t) for t in _said_once([r["text"][lang] for r in group])]
                    + [Cell(f"〔{first['rule']} · {book(first['source'], lang)}〕")])
    if len(data["findings"]) > SHOWN:
        rows.append([Cell(w["more"].format(n=len(data["findings"]) - SHOWN))])
    glosses, seen = judgement_glossary(chart.session) if lang == "en" else {}, set()
    rows.append([Cell(f"{w['timing']}:")] + ([Cell(_timing(t, lang, glosses, seen), ("斷", t["branch"]))
                                              for t in data["timing"]] or [Cell(w["none"])]))
    return Section("judgement", w["title"], rows, sep="  ")


def _timing(candidate: dict, lang: str, glosses: dict, seen: set) -> str:
    """An 應期 candidate on the board: 「丑（沖開墓）」; in English with its method glossed at its
    first use (``seen``: the methods glossed so far), "丑 (沖開墓: the tomb clashed open)"."""
    branch, method = candidate["branch"], candidate["method"]
    if lang != "en":
        return f"{branch}（{method}）"
    if method in glosses and method not in seen:
        seen.add(method)
        return f"{branch} ({method}: {short(glosses[method])})"
    return f"{branch} ({method})"


MATTER_CLAUSE = ("占", "for ")  # how a rule's sentence names the matter it reads: 「占天時，」, "for 天時, "


def _said_once(sentences: list[str]) -> list[str]:
    """A row's sentences with the matter's clause that opens each (「占天時，」) said in the first only."""
    for comma in ("，", ", "):
        clause = sentences[0].split(comma, 1)[0] + comma
        if len(sentences) > 1 and clause.startswith(MATTER_CLAUSE) and all(s.startswith(clause) for s in sentences):
            return sentences[:1] + [s[len(clause):] for s in sentences[1:]]
    return sentences


ASKED = {"zh": {"no_matter": "此課未占事，無斷：起課時加 --matter（如 --matter 天時）",
                "no_value": "問斷須言所問：斷語、所見或應期，如「斷 不正之神」",
                "holds": "{value}：此課有之（{what}）。", "because": "{said}〔{rule}｜{source}〕",
                "ask_why": "其推導見：liuren why 斷 {value}（同此課之選項）",
                "absent": "此課之斷無{value}；問其何以無：liuren why-not 斷 {value}",
                "unknown": "此課之斷無「{value}」，規則亦無此斷語；{near}", "near": "近者：{names}",
                "verdicts": "此課之斷語：{names}", "sep": "、", "none": "無"},
         "en": {"no_matter": "this chart has no 斷 (judgement): cast it with --matter (e.g. --matter 天時)",
                "no_value": "a question about the 斷 names what it asks: a verdict, a finding or an 應期, "
                            "e.g. 「斷 不正之神」",
                "holds": "{value}: this chart has it ({what}).", "because": "{said} [{rule} | {source}]",
                "ask_why": "Its derivation: liuren why 斷 {value} (with this chart's options)",
                "absent": "this chart's 斷 has no {value}; to ask why not: liuren why-not 斷 {value}",
                "unknown": "this chart's 斷 has no 「{value}」, and no rule reaches that verdict; {near}",
                "near": "nearest: {names}", "verdicts": "the chart's verdicts: {names}", "sep": ", ",
                "none": "none"}}


def asked(chart: "Chart", value: Optional[str], negative: bool, lang: str) -> Optional[list[str]]:
    """A ``why 斷`` / ``why-not 斷`` question checked in the user's language before it is answered:
    an InputError of one line for a chart cast without a matter, a question naming nothing, a name
    neither the chart's 斷 nor any verdict rule has (with the nearest names), or a ``why`` of a
    verdict the chart lacks; for a ``why-not`` of what holds, the lines that say so with its rule,
    sentence and line; None when the question goes on to its derivation."""
    w, session = ASKED[lang], chart.session
    if not chart.rows("matter"):
        raise InputError(w["no_matter"])
    if not value or not str(value).strip():
        raise InputError(w["no_value"])
    pred, args = session.resolve(chart, "斷", value)
    if session.source(chart.id).holds(pred, args):
        if not negative:
            return None
        row = _Reader(chart).derived(pred, args[1:])
        said = gloss_first(row["text"][lang], judgement_glossary(session), known=known_terms(session)) \
            if lang == "en" else row["text"][lang]
        name, what = {"verdict": (args[1], WORDS[lang]["verdict"]), "timing": (args[1], WORDS[lang]["timing"]),
                      "finding": (args[2], args[1])}[pred]
        return [w["holds"].format(value=name, what=what),
                w["because"].format(said=said, rule=row["rule"], source=cite(row["source"], lang)),
                w["ask_why"].format(value=name)]
    if args[1] in session.verdicts():
        if negative:
            return None
        raise InputError(w["absent"].format(value=value))
    names = [str(r[0]) for r in chart.rows("verdict")] + [str(r[1]) for r in chart.rows("finding")] \
        + [str(r[0]) for r in chart.rows("timing")] + session.verdicts()
    near = get_close_matches(str(args[1]), list(dict.fromkeys(names)), n=3, cutoff=0.3)
    listed = w["near"].format(names=w["sep"].join(near)) if near else \
        w["verdicts"].format(names=w["sep"].join(str(r[0]) for r in chart.rows("verdict")) or w["none"])
    raise InputError(w["unknown"].format(value=value, near=listed))
