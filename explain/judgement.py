"""The 斷 of a chart cast with a matter: the answer the KB's weighing derives (kb/judgement/answer.dl),
with its reasons, and the findings, verdicts and 應期 candidates beside it, each with its rule's
sentence (zh, en), the rule and its source.

Nothing here judges: it reads the relations ``answer``, ``success``, ``answer_timing``, the weighing's
compiled ``app·`` and ``outranked·`` relations, ``finding``, ``verdict`` and ``timing``, and the rule each
row was derived by; it orders the findings by weight for the matter (those of rules that read the
matter itself first, each group by kind). ``cast --json`` carries them all (:func:`judgement_data`);
the board's last section (:func:`judgement_section`) the answer and at most REASONS of its reasons,
each citing its book by name (data/sources.txt). In English a 類神 table's role word (the line's own:
天后久) reads in English with the word after it (the KB's ``role_en``), and each term is glossed at its
first use in the judgement.
"""
from __future__ import annotations

from difflib import get_close_matches
from typing import TYPE_CHECKING, Optional

from liuren_logic.datalog import syntax as S
from liuren_logic.datalog.labels import ANY, fill, with_id
from liuren_logic.datalog.provenance import bindings
from liuren_logic.domain.books import cite
from liuren_logic.domain.errors import InputError

from .cells import Cell, Fold, Section
from .glossary import gloss_first, glossary, known_terms, short

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart

# The order a 斷 reads the kinds in: what stands for the matter, then its state, then the course.
KIND_ORDER = ("類神", "六親", "用神", "天將", "三傳", "神煞", "課體", "墓", "空亡", "旺衰", "生剋", "刑沖破害合",
              "年命", "應期")
NUMERALS = str.maketrans("一二三四", "1234")
JOIN = {"zh": "；", "en": "; "}  # between the sentences of a finding one rule derives several times
WORDS = {"zh": {"title": "斷", "matter": "占", "question": "問", "verdict": "斷語", "timing": "應期",
                "conflict": "{a}與{b}相反，兩存之"},
         "en": {"title": "Judgement (斷)", "matter": "matter", "question": "question", "verdict": "verdict",
                "timing": "timing (應期)", "conflict": "{a} and {b} point opposite ways; both stand"}}


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
            "conflicts": [[a, b] for a, b in chart.rows("conflict")],
            "answer": _answer(chart, reader)}
    if gloss:
        glosses, known, seen = judgement_glossary(chart.session), known_terms(chart.session), set()
        answer = [read["answer"], *read["answer"]["reasons"]] if read["answer"] else []
        for row in answer + read["verdicts"] + [r for group in read["groups"] for r in group] + read["timing"]:
            row["text"]["en"] = gloss_first(row["text"]["en"], glosses, seen, known)
    return read


def judgement_data(chart: "Chart", question: Optional[str] = None, read: Optional[dict] = None) -> Optional[dict]:
    """The chart's 斷 as ``cast --json`` carries it (None for a chart cast without a matter). Findings
    one rule derives several times (the chart's 課體, the generals of the three transmissions) are
    one finding naming them all (``read``: the chart's :func:`reading`)."""
    read = read if read is not None else reading(chart)
    if read is None:
        return None
    return {"matter": read["matter"], "question": question, "answer": read["answer"],
            "findings": [_merged(rows) for rows in read["groups"]],
            "verdicts": read["verdicts"], "timing": read["timing"], "conflicts": read["conflicts"]}


RESCUE = "rescue"  # the KB's relation of the 救神 (kb/judgement/answer.dl): a reason resting on it is a rescue


def _weighing(chart: "Chart", reader: _Reader) -> list[dict]:
    """The reasons of the weighing (kb/judgement/answer.dl): each rule for or against ``success`` (or
    rescue, a defeater) that applies to the chart, with its sentence, rule and line, which way it
    points (成, 不成, 救: a defeater, or a reason resting on the KB's ``rescue`` relation, the 救神),
    the rule that outranked it (its ``@prefer``'s superior) and the rules it outranked; the reasons
    of the side that prevailed first (a rescue on the side it argues for), those that outranked most first."""
    from liuren_logic.datalog.defeasible import applicable, outranked
    from liuren_logic.datalog.syntax import DEFEATER, Atom

    defeat, reasons, side = chart.session.program.defeat, [], {}
    for literal in ("success", "~success"):
        for rule in defeat.rules.get(literal, []) if defeat else ():
            if chart.rows(applicable(rule.id)):
                side[rule.id] = "成" if literal == "success" else "不成"
                rescues = any(isinstance(atom, Atom) and atom.pred == RESCUE for atom in rule.body)
                points = "救" if rule.kind == DEFEATER or rescues else side[rule.id]
                by = None
                if chart.rows(outranked(rule.id)):
                    by = reader.explainer.chosen(outranked(rule.id), (chart.id,)).rule.rule.id.partition(">")[0]
                derived = reader.derived(applicable(rule.id), ())
                reasons.append({"name": rule.id, "points": points, "outranked_by": by, "outranked": [], **derived,
                                "about": _about(*bindings(reader.explainer.application(
                                    reader.explainer.chosen(applicable(rule.id), (chart.id,)))).values())})
    for reason in reasons:
        if reason["outranked_by"]:
            next(r for r in reasons if r["name"] == reason["outranked_by"])["outranked"].append(reason["name"])
    held = "成" if chart.rows("success") else "不成" if chart.rows("~success") else None
    reasons.sort(key=lambda r: (side[r["name"]] != held, r["outranked_by"] is not None, -len(r["outranked"])))
    return reasons


def _answer(chart: "Chart", reader: _Reader) -> Optional[dict]:
    """The answer the weighing derived (kb/judgement/answer.dl): its polarity, whether the thing asked
    happens (None where the weighing could not decide), its one 應期 with its scale, the question
    and its 用神, any grave words the weighing allows, and the reasons (:func:`_weighing`).
    ``text``: the answer rule's sentence."""
    rows = chart.rows("answer")
    if not rows:
        return None
    (polarity,) = rows[0]
    success = True if chart.rows("success") else False if chart.rows("~success") else None
    timing = None
    if chart.rows("answer_timing"):
        branch, method = chart.rows("answer_timing")[0]
        scale = chart.rows("answer_scale")
        scale = scale[0][0] if scale else None
        moment, dates = getattr(chart, "moment", None), []
        if moment is not None and scale:  # a chart cast from a moment: the next dates the branch names
            from liuren_logic.domain.calendar import next_dates  # (here: a chart from pillars needs no calendar)

            dates = next_dates(moment, branch, scale)
        timing = {"branch": branch, "method": method, "scale": scale, "dates": dates,
                  **reader.derived("answer_timing", (branch, method))}
    return {"polarity": polarity, "success": success, "timing": timing,
            "question": [q for (q,) in chart.rows("question")], "named": bool(chart.rows("question_named")),
            "yongshen": [{"branch": b, "role": str(r), **reader.derived("question_yong", (b, r))}
                         for b, r in chart.rows("question_yong")],
            "grave": [v for (v,) in chart.rows("grave_answer")],
            "reasons": _weighing(chart, reader), **reader.derived("answer", (polarity,))}


REASONS = 8  # reasons of the answer the board lists; --json has them all
SIGNS = {"成": "＋", "不成": "－", "救": "救"}
ANSWER_WORDS = {"zh": {"timing": "應期 {branch}{scale}（{method}）{dates}", "dates": "：{dates}", "scale": {"日": "日", "旬": "日（旬內）", "月": "月", "年": "年"},
                       "yong": "用神 {branch}（{role}）", "asked": "所問 {q}{default}", "default": "（默認）", "outranked": "——為{n}所勝",
                       "grave": "重凶：{words}（權衡已斷不成，無救神）", "sep": "、",
                       "more": "另有所見{n}條", "hint": "（--json 全列）"},
                "en": {"timing": "timing (應期): a {branch} {scale} ({method}){dates}", "dates": ", next {dates}", "scale": {"日": "day", "旬": "day within the decade", "月": "month", "年": "year"},
                       "yong": "用神 {branch} ({role})", "asked": "asked: {q}{default}",
                       "default": " (the matter's default)", "outranked": " — outranked by {n}",
                       "grave": "grave: {words} (the weighing says no, no rescue met)", "sep": ", ",
                       "more": "{n} more findings", "hint": " (--json lists them all)"}}


def answer_line(answer: dict, lang: str, glosses: Optional[dict] = None) -> list[str]:
    """The answer in one line, in two parts: its sentence (the answer rule's), then its 應期 with its
    scale, its method (in English glossed, from ``glosses``) and the next dates it names."""
    w, timing = ANSWER_WORDS[lang], answer["timing"]
    if not timing:
        return [answer["text"][lang]]
    dates = w["dates"].format(dates=w["sep"].join(timing["dates"])) if timing["dates"] else ""
    method = timing["method"]
    if lang == "en":
        method = _glossed(method, glosses)
    return [answer["text"][lang] + ("。" if lang == "zh" else "."), w["timing"].format(
        branch=timing["branch"], scale=w["scale"].get(timing["scale"], ""), method=method, dates=dates)]


def _glossed(term: str, glosses: Optional[dict]) -> str:
    """A term with its short English gloss (``glosses``: English output's glossary), else as it is."""
    return f"{term}: {short(glosses[term])}" if glosses and term in glosses else term


def judgement_section(chart: "Chart", lang: str, options: dict) -> Optional[Section]:
    """The board's 斷 (None for a chart cast without a matter): the answer in one line (asking ``why 斷``
    of it), the matter, the question and its 用神, then at most REASONS reasons the answer used, the
    side that prevailed first, each with its sign (＋ for, － against, 救 a rescue), its sentence, the
    reason that outranked it, and its book's line; grave words where the weighing allows them; verdicts
    that point opposite ways; then how many findings ``--json`` adds."""
    read = reading(chart)
    if read is None:
        return None
    data = judgement_data(chart, options.get("question"), read)
    w, aw, question, matter, answer = WORDS[lang], ANSWER_WORDS[lang], options.get("question"), data["matter"], data["answer"]
    if lang == "en":  # the matter's English name, from the KB's matter_en
        matter += "".join(f" ({en})" for _, en in chart.session.base.query("matter_en", [matter, None]))
    glosses = judgement_glossary(chart.session) if lang == "en" else None
    said, *when = answer_line(answer, lang, glosses)
    rows = [[Cell(said, ("斷", answer["polarity"]))] + [Cell(w_, ("斷", answer["timing"]["branch"])) for w_ in when]]
    asked = aw["asked"].format(q=aw["sep"].join(answer["question"]), default="" if answer["named"] else aw["default"])
    roles: dict[str, list[str]] = {}  # a branch the question's signs find twice (午, the ghost and the noble): once
    for y in answer["yongshen"]:
        roles.setdefault(y["branch"], []).append(y["role"])
    said = [f"{w['matter']} {matter}"] + ([f"{w['question']} {question}"] if question else []) + [asked] \
        + [aw["yong"].format(branch=b, role=aw["sep"].join(_glossed(x, glosses) for x in r)) for b, r in roles.items()]
    rows.append([Cell(" · ".join(said))])
    number = {r["name"]: i for i, r in enumerate(answer["reasons"], 1)}

    def reason_row(reason: dict) -> list[Cell]:
        by = reason["outranked_by"]
        outranked = aw["outranked"].format(n=number[by]) if by in number else ""
        return [Cell(f"{number[reason['name']]} {SIGNS[reason['points']]}"),
                Cell(reason["text"][lang] + outranked), Cell(f"〔{with_id(cite(reason['source'], lang), reason['name'])}〕")]

    rows += [reason_row(reason) for reason in answer["reasons"][:REASONS]]
    if answer["grave"]:
        rows.append([Cell(aw["grave"].format(words=aw["sep"].join(answer["grave"])))])
    rows += [[Cell(w["conflict"].format(a=a, b=b))] for a, b in data["conflicts"]]
    folded = [reason_row(reason) for reason in answer["reasons"][REASONS:]]
    folded += [[Cell(f["kind"]), Cell(f["text"][lang]), Cell(f"〔{with_id(cite(f['source'], lang), f['rule'])}〕")]
               for f in data["findings"]]
    fold = Fold(aw["more"].format(n=len(folded)), aw["hint"], folded) if folded else None
    return Section("judgement", w["title"], rows, sep="  ", fold=fold)


WEIGHED = {"zh": {"answer": "此課之斷：{answer}（非{asked}）。所據：", "reason": "{sign} {said}{by}〔{source}〕",
                  "by": "——為「{winner}」所勝"},
           "en": {"answer": "This chart's answer: {answer} (not {asked}). On these grounds:",
                  "reason": "{sign} {said}{by} [{source}]", "by": " — outranked by 「{winner}」"}}


def weighing_lines(chart: "Chart", value: Optional[str], lang: str) -> list[str]:
    """For ``why-not 斷 <answer>`` of an answer the chart does not have: the chart's answer and the
    reasons of the weighing behind it, the prevailing side first, each with what outranked it (by
    the outranking reason's sentence) and its book's line. [] when ``value`` is not another answer."""
    answer = (reading(chart) or {}).get("answer")
    if answer is None or value is None:
        return []
    from liuren_logic.datalog.script import traditional
    from liuren_logic.domain.inputs import members

    asked = traditional(str(value).strip())
    if asked == answer["polarity"] or asked not in members(chart.session.base, "answer_kind"):
        return []
    w, said = WEIGHED[lang], {r["name"]: r["text"][lang] for r in answer["reasons"]}
    lines = [w["answer"].format(answer=answer["text"][lang], asked=asked)]
    for r in answer["reasons"]:
        by = w["by"].format(winner=said[r["outranked_by"]]) if r["outranked_by"] in said else ""
        lines.append(w["reason"].format(sign=SIGNS[r["points"]], said=r["text"][lang], by=by, source=cite(r["source"], lang)))
    return lines


ASKED = {"zh": {"no_matter": "此課未占事，無斷：起課時加 --matter（如 --matter 天時）",
                "no_value": "問斷須言所問：斷語、所見或應期，如「斷 不正之神」",
                "holds": "{value}：此課有之（{what}）。", "because": "{said}〔{source}〕",
                "ask_why": "其推導見：liuren why 斷 {value}（同此課之選項）",
                "absent": "此課之斷無{value}；問其何以無：liuren why-not 斷 {value}",
                "unknown": "此課之斷無「{value}」，規則亦無此斷語；{near}", "near": "近者：{names}",
                "verdicts": "此課之斷語：{names}", "sep": "、", "none": "無"},
         "en": {"no_matter": "this chart has no 斷 (judgement): cast it with --matter (e.g. --matter 天時)",
                "no_value": "a question about the 斷 names what it asks: a verdict, a finding or an 應期, "
                            "e.g. 「斷 不正之神」",
                "holds": "{value}: this chart has it ({what}).", "because": "{said} [{source}]",
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
                      "finding": (args[2], args[1]), "answer": (args[1], WORDS[lang]["title"])}[pred]
        return [w["holds"].format(value=name, what=what),
                w["because"].format(said=said, source=with_id(cite(row["source"], lang), row["rule"], " | ")),
                w["ask_why"].format(value=name)]
    if pred == "answer" or args[1] in session.verdicts():
        if negative:
            return None
        raise InputError(w["absent"].format(value=value))
    names = [str(r[0]) for r in chart.rows("verdict")] + [str(r[1]) for r in chart.rows("finding")] \
        + [str(r[0]) for r in chart.rows("timing")] + session.verdicts()
    near = get_close_matches(str(args[1]), list(dict.fromkeys(names)), n=3, cutoff=0.3)
    listed = w["near"].format(names=w["sep"].join(near)) if near else \
        w["verdicts"].format(names=w["sep"].join(str(r[0]) for r in chart.rows("verdict")) or w["none"])
    raise InputError(w["unknown"].format(value=value, near=listed))

