"""A chart as practitioners draw it, and as plain data.

The board is a list of sections in the practitioner's order (:data:`SECTIONS`): the header
(the day, 月將, hour, 晝夜, 貴人 and its direction, 旬空; a dated chart's 四柱, 節 and 中氣),
the 天地盤 square (heaven's branch and its general over earth's, earth fixed as it is always
drawn), 四課 read right to left (lesson 1 on the right), 三傳 with labelled columns, the
generals' states, 課體 and 課格, 異說 (what other shipped readings change in the sets: the other
disputes are ⚠ marks on their conclusions, :func:`.dispute_view.dispute_marks`), 畢法, and the
神煞 on 干上 支上 the 三傳 and 年命. Each section is data (:class:`Section`: rows of :class:`Cell`, each naming the conclusion it
shows); :func:`render_chart` draws it for the terminal, ``page.board_html`` as HTML, so the
two show the same things in the same order. A new section is a function added to SECTIONS.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Optional

from liuren_logic.domain.disputes import school_name

from .cells import Cell, Section
from .dispute_view import dispute_data, dispute_marks, summed_up
from .judgement import judgement_section
from .practice import life_parts, mark_items, practice_data, strength_parts
from .text_width import columns

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart

# Earth's palaces as drawn: the top row 巳午未申, the right side 酉戌, the bottom 亥子丑寅
# read right to left, the left side 卯辰 read upwards.
SQUARE = (("巳", "午", "未", "申"), ("辰", None, None, "酉"), ("卯", None, None, "戌"), ("寅", "丑", "子", "亥"))
POSITION_NAMES = {"zh": ("初傳", "中傳", "末傳"), "en": ("initial", "middle", "final")}
POSITION_KEYS = ("initial", "middle", "final")
WIDTH = 100  # terminal columns a board line may take (a CJK character takes two)
SHORT_PLACES = ("干上", "支上", "初傳", "中傳", "末傳", "本命", "行年")  # the spirits listed without --all-spirits
WORDS = {
    "zh": {"day": "晝", "night": "夜", "void": "旬空", "lessons": "四課", "transmissions": "三傳",
           "plates": "天地盤", "noble": "貴人", "forward": "順行", "backward": "逆行", "school": "門派", "colon": "：",
           "spirits": "神煞", "patterns": "課格", "relief": "救", "bifa": "畢法", "generals": "天將",
           "pillars": "四柱", "jie": "節", "qi": "中氣", "keti": "課體", "disputed": "異說",
           "undecided": "— 無規則得三傳（可問 why-not 初傳）",
           "columns": ("六親", "遁干", "支", "天將", "旺相", "長生", "旬空"), "empty": "空",
           "origin": {"歲": "歲", "月": "月", "季": "季", "日": "日"}, "unkeyed": "他"},
    "en": {"day": "day", "night": "night", "void": "void", "lessons": "four lessons", "transmissions": "three transmissions",
           "plates": "heaven over earth", "noble": "noble", "forward": "forward", "backward": "backward", "school": "school", "colon": ": ",
           "spirits": "spirits (神煞)", "patterns": "patterns (課格)", "relief": "relieved (救)",
           "bifa": "rules of the 畢法賦", "generals": "generals (天將)",
           "pillars": "pillars", "jie": "節", "qi": "中氣", "keti": "課體", "disputed": "disputed",
           "undecided": "— (no rule gives the transmissions; ask why-not initial)",
           "columns": ("kin", "stem", "branch", "general", "strength", "stage", "void"), "empty": "void",
           "origin": {"歲": "year (歲)", "月": "month (月)", "季": "season (季)", "日": "day (日)"},
           "unkeyed": "other"},
}


def chart_data(chart: "Chart", question: Optional[str] = None) -> dict:
    """Everything the chart concludes: ``cast --json`` (schemas/chart.schema.json); ``question``: the
    querent's words, kept with the 斷 of a chart cast with a matter."""
    from liuren_logic.domain import jsondata as J
    from .judgement import judgement_data

    marks = day_marks(chart)
    return J.document("chart", {
        "id": chart.id, "school": chart.session.name,
        "day": chart.day, "jiang": chart.jiang, "hour": chart.hour,
        "offset": chart.offset, "daytime": chart.daytime,
        "method": chart.method, "names": chart.subnames, "keti": chart.keti,
        "noble": chart.noble, "direction": chart.direction, "void": chart.void,
        "lessons": [J.lesson(l) for l in chart.lessons],
        "transmissions": [J.transmission(t) for t in chart.transmissions],
        "heaven": chart.heaven, "generals": chart.generals,
        "spirits": [J.spirit(w, b, s, s in marks) for w, b, s in chart.spirits],
        "patterns": [J.pattern(g, p) for g, p in chart.patterns],
        "bifa": [{"number": n, "line": f} for n, f in chart.bifa],
        "reliefs": [{"pattern": p, "relief": r} for p, r in chart.reliefs],
        **practice_data(chart),
        "disputes": dispute_data(chart),
        **({"calendar": J.calendar(chart.moment)} if chart.moment is not None else {}),
        **({"judgement": judged} if (judged := judgement_data(chart, question)) is not None else {}),
    })


def day_marks(chart: "Chart") -> set[str]:
    """The day's marks (``day_mark``: 日祿 日德 …): spirits of those names show on the marks line."""
    return {m["mark"] for m in chart.marks}


def _short(chart: "Chart", general: str | None) -> str:
    if general is None:
        return "　"
    rows = chart.session.source(chart.id).query("general_short", [general, None])
    return rows[0][1] if rows else general


ORIGINS = (("歲", ("歲",)), ("月", ("月",)), ("季", ("季",)), ("日", ("日支", "日干")))  # spirit_key, grouped


def spirit_omens(chart: "Chart") -> dict[str, str]:
    """吉 or 凶 of each spirit the seeds call so (``spirit_omen``, kb/spirits/omen.dl)."""
    if "spirit_omen" not in chart.session.kb.program.preds:
        return {}
    return dict(chart.session.source(chart.id).query("spirit_omen", [None, None]))


def calendar_cells(chart: "Chart", words: dict) -> list[str]:
    """A dated chart's calendar: the four pillars, the 節 and 中氣 in force (UTC+8, as the calendar
    reckons them; the 月將 the 中氣 gives is the header's first cell)."""
    m = chart.moment
    return [f"{words['pillars']} {m.year_pillar} {m.month_pillar} {m.day_pillar} {m.hour_pillar}",
            f"{words['jie']} {m.jie.name} {m.jie.instant:%Y-%m-%d %H:%M:%S}",
            f"{words['qi']} {m.qi.name} {m.qi.instant:%Y-%m-%d %H:%M:%S} (UTC+8)"]


def method_name(chart: "Chart") -> str:
    """The method and its other names, each once: 賊剋 元首, 八專 (not 「八專 八專」)."""
    names = "·".join(n for n in chart.subnames if n != chart.method)
    return f"{chart.method or '—'} {names}".rstrip()


def method_line(chart: "Chart") -> str:
    """The method and its names, then every other 課體 of the chart: 賊剋 元首 · 天網 · 斬關."""
    shown = {chart.method, *chart.subnames}
    return " · ".join([method_name(chart)] + [k for k in chart.keti if k not in shown])




def _pad(text: str, width: int, align: str) -> str:
    space = " " * (width - columns(text))
    return space + text if align == ">" else text + space


# the sections ---------------------------------------------------------------------------
def header_section(chart: "Chart", lang: str, options: dict) -> Section:
    """The day, 月將 and hour, 晝夜, 貴人 and its direction (each with its disputes' marks), 旬空 and
    the school; a dated chart's calendar; the querent, the month's 旺相, the day's marks."""
    w = WORDS[lang]
    run = w["forward"] if chart.direction == "順" else w["backward"]
    marks = _marks(chart, lang, options)
    noble = " ".join([f"{w['noble']} {chart.noble} {run}", *marks.get("noble", ()), *marks.get("direction", ())])
    rows = [[Cell(f"{chart.day}日 {chart.jiang}將 {chart.hour}時", ("jiang", None)),
             Cell(w["day"] if chart.daytime else w["night"]),
             Cell(noble, ("noble", None)),
             Cell(f"{w['void']} {''.join(chart.void)}", ("void", chart.void[0]) if chart.void else None),
             Cell(f"{w['school']}{w['colon']}{school_name(chart.session.kb.school, lang, brief=True)}"
                  if chart.session.kb.school is not None else f"{w['school']}{w['colon']}{chart.session.name}")]]
    if chart.moment is not None:
        rows.append([Cell(text) for text in calendar_cells(chart, w)])
        if options.get("explain_calendar"):
            reasons = chart.moment.reasons(lang)
            if chart.moment.daytime is None:  # day and night left to the hour: nothing to say of the sun
                reasons = {k: v for k, v in reasons.items() if k not in ("daytime", "sunrise", "sunset")}
            rows += [[Cell(reason)] for reason in reasons.values()]
    rows += [[Cell(part) for part in life_parts(chart, lang)]] if chart.life else []
    rows += [[Cell(part) for part in strength_parts(chart, lang)]] if chart.element_strength else []
    spirits = {s for _, _, s in chart.spirits}
    days = [Cell(text, ("spirit" if mark in spirits else "day_mark", mark)) for mark, text in mark_items(chart, lang)]
    return Section("header", "", rows + ([days] if days else []), sep=" · ")


def plates_section(chart: "Chart", lang: str, options: dict) -> Section:
    """The 天地盤 square: in each palace heaven's branch with its general; earth's branches frame
    it (巳午未申 above, 寅丑子亥 below, 辰卯 on the left, 酉戌 on the right), each beside the
    palace it names, as the earth plate is drawn around the heaven plate."""
    def palace(earth: str) -> Cell:
        heaven = chart.heaven.get(earth, "？")
        return Cell(heaven, ("general", heaven), _short(chart, chart.generals.get(heaven)))

    top, *sides, bottom = SQUARE
    def earth(branch: str) -> Cell:
        return Cell(branch, faint=True)

    rows: list[list[Optional[Cell]]] = [[None, *map(earth, top), None], [None, *map(palace, top), None]]
    rows += [[earth(left), palace(left), None, None, palace(right), earth(right)] for left, _, _, right in sides]
    rows += [[None, *map(palace, bottom), None], [None, *map(earth, bottom), None]]
    return Section("plates", WORDS[lang]["plates"], rows, grid=True, align=">")


def lessons_section(chart: "Chart", lang: str, options: dict) -> Section:
    """四課 right to left: each column the general, the upper and the lower of one lesson."""
    lessons = list(reversed(chart.lessons))
    rows = [[Cell(_short(chart, l.general), (f"lesson{l.number}", None)) for l in lessons],
            [Cell(l.upper, (f"lesson{l.number}", None)) for l in lessons],
            [Cell(l.lower, (f"lesson{l.number}", None)) for l in lessons]]
    return Section("lessons", WORDS[lang]["lessons"], rows, grid=True, stack=3, inline=True)


def transmissions_section(chart: "Chart", lang: str, options: dict) -> Section:
    """三傳 top to bottom, in labelled columns: 六親 遁干 支 天將 旺相 長生 旬空; 旺相 only when the
    month is known, 旬空 only when a transmission is void; 異說 when a reading changes a transmission
    (its marks one a row: a transmission's first on its row, the others below it)."""
    w = WORDS[lang]
    if not chart.transmissions:
        return Section("transmissions", w["transmissions"], [[Cell(w["undecided"])]])

    def known(table: dict, question: str, branch: str) -> Cell:
        return Cell(table.get(branch, ""), (question, branch) if branch in table else None)

    rows = []
    for t in chart.transmissions:
        key = (POSITION_KEYS[t.position - 1], None)
        rows.append(dict(zip(("position", *w["columns"]), (
            Cell(POSITION_NAMES[lang][t.position - 1], key), Cell(t.kin or "", key), Cell(t.hidden_stem or "", key),
            Cell(t.branch, key), Cell(t.general or "", ("general", t.branch)), known(chart.strength, "strength", t.branch),
            known(chart.stages, "stage", t.branch), Cell(w["empty"], ("void", t.branch)) if t.void else Cell("")))))
    strength, void = w["columns"][4], w["columns"][6]
    shown = [c for c in w["columns"] if (c != strength or chart.strength)
             and (c != void or any(t.void for t in chart.transmissions))]
    marks = _marks(chart, lang, options)
    grid: list[list[Optional[Cell]]] = []
    for t, row in zip(chart.transmissions, rows):
        key = POSITION_KEYS[t.position - 1]
        first, *more = [Cell(m, (key, None)) for m in marks.get(key, ())] or [None]
        grid.append([row[c] for c in ("position", *shown)] + ([first] if first else []))
        grid += [[None] * (len(shown) + 1) + [m] for m in more]
    disputed = (w["disputed"],) if any(len(row) > len(shown) + 1 for row in grid) else ()
    return Section("transmissions", w["transmissions"], grid, sep="  ", grid=True, labels=(*shown, *disputed))


def generals_section(chart: "Chart", lang: str, options: dict) -> Optional[Section]:
    """Each general of the lessons and transmissions (all twelve with ``all_generals``): the
    branch it rides over its earth palace and the states it is in there (``general_state``)."""
    preds = chart.session.kb.program.preds
    if "general_seat" not in preds or "general_state" not in preds:
        return None
    seats = {g: (b, p) for g, b, p in chart.rows("general_seat")}
    states: dict[str, list[str]] = defaultdict(list)
    for general, state in chart.rows("general_state"):
        states[general].append(state)
    shown = [t.general for t in chart.transmissions] + [l.general for l in reversed(chart.lessons)]
    if options.get("all_generals"):
        shown += sorted(seats, key=lambda g: seats[g][1])
    groups = {f"{g} {seats[g][0]}臨{seats[g][1]}:": [Cell(s, ("pattern", s)) for s in states[g]] or [Cell("—")]
              for g in dict.fromkeys(shown) if g in seats}
    return Section("generals", WORDS[lang]["generals"], [_grouped(groups)]) if groups else None


def _drawn_states(sections: list[Section]) -> set[str]:
    return {c.text for s in sections if s.key == "generals" for row in s.rows for c in row if c and c.ask}


def keti_section(chart: "Chart", lang: str, options: dict) -> Section:
    """課體: the method and its names (with their disputes' marks), then every other 課體 of the
    chart, then the marks of the readings that change them."""
    shown, marks = {chart.method, *chart.subnames}, _marks(chart, lang, options)
    method = " ".join([method_name(chart), *marks.get("method", ()), *marks.get("names", ())])
    return Section("keti", WORDS[lang]["keti"], [[Cell(method, ("method", None))]
                                                  + [Cell(k, ("keti", k)) for k in chart.keti if k not in shown]
                                                  + [Cell(m) for m in marks.get("keti", ())]], sep=" · ")


def _marks(chart: "Chart", lang: str, options: dict) -> dict[str, list[str]]:
    """The disputes' marks (:func:`dispute_marks`), found once for the sections built together."""
    if "marks" not in options:
        options["marks"] = dispute_marks(chart, lang)
    return options["marks"]


def _grouped(groups: dict[str, list[Cell]]) -> list[Cell]:
    """Groups run on in one row: 刑: 刑中有害 支刑 · 合: 三合."""
    return [c for i, (name, cells) in enumerate(groups.items()) for c in [Cell(("· " if i else "") + name)] + cells]


def patterns_section(chart: "Chart", lang: str, options: dict, drawn: set[str] = frozenset()) -> Optional[Section]:
    """課格 by group (a general's state drawn with its general is not repeated), and what relieves them."""
    w = WORDS[lang]
    groups: dict[str, list[Cell]] = {}
    for group, pattern in chart.patterns:
        if pattern not in drawn:
            groups.setdefault(f"{group}:", []).append(Cell(pattern, ("pattern", pattern)))
    rows = [_grouped(groups)] if groups else []
    if chart.reliefs:
        rows.append([Cell(f"{w['relief']}:")] + [Cell(f"{p}←{r}", ("pattern", p)) for p, r in chart.reliefs])
    return Section("patterns", w["patterns"], rows) if rows else None


def bifa_section(chart: "Chart", lang: str, options: dict) -> Optional[Section]:
    """The lines of the 畢法賦 the chart meets, by number."""
    row = [Cell(f"{n}. {f}", ("bifa", f)) for n, f in chart.bifa]
    return Section("bifa", WORDS[lang]["bifa"], [row], sep=" · ") if row else None


def spirits_section(chart: "Chart", lang: str, options: dict) -> Optional[Section]:
    """The spirits on 干上, 支上, the 三傳 and 年命 (every place with ``all_spirits``), grouped by
    what they are reckoned from (``spirit_key``: year, month, season, day), then by the branch
    they fall on, its places said once, each with its 吉/凶 where the seeds say (``spirit_omen``):
    ``月: 寅(干陰·中傳) 月德吉 亡神 · 午(干上·初傳) 信煞``; the groups of spirits reckoned from
    several (``歲·月:``) run on in one last row. The day's marks (日祿, 日德) are on
    the header's marks line."""
    w = WORDS[lang]
    source, preds = chart.session.source(chart.id), chart.session.kb.program.preds
    keys: dict[str, set] = defaultdict(set)
    for spirit, key in source.query("spirit_key", [None, None]) if "spirit_key" in preds else ():
        keys[spirit].add(key)
    omen, marks = spirit_omens(chart), day_marks(chart)
    places: dict[str, list[str]] = defaultdict(list)
    falls: dict[str, set[tuple[str, str]]] = defaultdict(set)  # origin → (branch, spirit)
    for where, branch, spirit in chart.spirits:
        if spirit not in marks:
            places[branch].append(where) if where not in places[branch] else None
            origin = "·".join(o for o, ks in ORIGINS if keys[spirit] & set(ks)) or w["unkeyed"]
            falls[origin].add((branch, spirit))
    shown = {b for b, wheres in places.items() if options.get("all_spirits") or set(wheres) & set(SHORT_PLACES)}
    order = {o: i for i, (o, _) in enumerate(ORIGINS)}
    names = w["origin"]
    rows, mixed = [], []
    for origin in sorted(falls, key=lambda o: (order.get(o, len(order)), o.count("·"), o)):
        by_branch: dict[str, list[Cell]] = {}
        for branch, spirit in sorted(falls[origin], key=lambda x: (chart_place(places[x[0]]), x)):
            if branch in shown:
                by_branch.setdefault(f"{branch}({'·'.join(places[branch])})", []).append(
                    Cell(spirit + omen.get(spirit, ""), ("spirit", spirit)))
        if by_branch:
            label = f"{'·'.join(names.get(o, o) for o in origin.split('·'))}:"
            if "·" not in origin:
                rows.append([Cell(label)] + _grouped(by_branch))
            else:  # the spirits of several origins: their groups run on in one row
                mixed += [Cell(("· " if mixed else "") + label)] + _grouped(by_branch)
    rows += [mixed] if mixed else []
    return Section("spirits", w["spirits"], rows) if rows else None


def disputes_section(chart: "Chart", lang: str, options: dict) -> Optional[Section]:
    """異說 summed up: what each other reading changes in the hidden stems, the 課格 and the 神煞, in one
    row (``貴人（甲羊）: 課格 −16 +12``); the other disputes are marks on their conclusions."""
    groups = {f"{reading}:": [Cell(change) for change in changes] for reading, changes in summed_up(chart, lang).items()}
    return Section("disputes", WORDS[lang]["disputed"], [_grouped(groups)]) if groups else None


def chart_place(wheres: list[str]) -> int:
    """Where a branch first shows, in the board's order (干上 干陰 支上 支陰 初傳 中傳 末傳 本命 行年)."""
    order = ("干上", "干陰", "支上", "支陰", "初傳", "中傳", "末傳", "本命", "行年")
    return min((order.index(x) for x in wheres if x in order), default=len(order))


SECTIONS: tuple[Callable[..., Optional[Section]], ...] = (
    header_section, plates_section, lessons_section, transmissions_section, generals_section, keti_section,
    patterns_section, disputes_section, bifa_section, spirits_section, judgement_section)


def sections(chart: "Chart", lang: str = "zh", **options) -> list[Section]:
    """The board's sections in order (options: ``explain_calendar``, ``all_generals``,
    ``all_spirits``, ``question``: the querent's words, shown with the 斷); a section with nothing
    to show is left out."""
    built: list[Section] = []
    for make in SECTIONS:
        extra = {"drawn": _drawn_states(built)} if make is patterns_section else {}
        section = make(chart, lang, options, **extra)
        if section is not None:
            built.append(section)
    return built


TABLE_LABELS = {"zh": ("日", "轉數", "將加時", "課法", "課名", "三傳"),
                "en": ("day", "offset", "general over hour", "method", "names", "transmissions")}


def table_lines(charts: list["Chart"], lang: str = "zh") -> list[str]:
    """Charts one a line under labelled columns: day, offset, 「寅加午」 (the 月將 over the hour),
    method, its names, 三傳."""
    title, *labels = TABLE_LABELS[lang]
    rows = [[Cell(c.day), Cell(str(c.offset)), Cell(f"{c.jiang}加{c.hour}"), Cell(c.method or "—"),
             Cell("·".join(n for n in c.subnames if n != c.method) or "—"), Cell(c.sanchuan or "—")] for c in charts]
    return section_lines(Section("table", title, rows, sep="  ", grid=True, labels=tuple(labels)))


# the board as text ----------------------------------------------------------------------
def _wrap(cells: list[str], sep: str, indent: str, first: Optional[str] = None) -> list[str]:
    """Cells joined by ``sep`` in lines of at most WIDTH columns, broken between cells, or between
    the words of a cell too long for a line; the first line starts with ``first`` (default
    ``indent``), the others with ``indent`` and four spaces more. The dot that parts two cells
    at a break (``sep`` " · ", or a group's leading "· ") ends the line, or starts the next where
    it does not fit: a line that ends without one goes on with the same cell or group."""
    pieces: list[tuple[str, str]] = []  # (what joins it to the one before, text)
    for i, cell in enumerate(cells):
        words = cell.split(" ") if columns(indent + "    " + cell) > WIDTH else [cell]
        pieces += [(sep if i else "", words[0])] + [(" ", word) for word in words[1:]]
    lines, line = [], (indent if first is None else first) + pieces[0][1]
    for joint, piece in pieces[1:]:
        if columns(line + joint + piece) <= WIDTH:
            line += joint + piece
            continue
        dotted = piece.startswith("· ")
        dot = joint.strip() or ("·" if dotted else "")
        piece = piece[2:] if dotted else piece
        if dot and columns(line) + 1 + columns(dot) <= WIDTH:
            lines.append(f"{line} {dot}")
            line = indent + "    " + piece
        else:
            lines.append(line)
            line = indent + "    " + (f"{dot} " if dot else "") + piece
    return lines + [line]


def _grid_lines(section: Section) -> list[str]:
    """A grid's lines, each cell padded to its column; the title heads the first column, or stands
    on a line of its own when it is wider than that column; a row too wide for WIDTH columns has its
    last cell (a ⚠ mark) on the next line, under the second column."""
    rows = [["", *section.labels]] if section.labels else []
    rows += [[c.plain if c else "" for c in row] for row in section.rows]
    width = [max(columns(row[i]) for row in rows if i < len(row)) for i in range(max(map(len, rows)))]

    def joined(row: list[str]) -> str:
        return "  " + section.sep.join(_pad(text, width[i], section.align) for i, text in enumerate(row)).rstrip()

    lines = []
    for row in rows:
        if columns(joined(row)) > WIDTH and len(row) > 2 and row[-1]:
            lines += [joined(row[:-1]), " " * (2 + width[0] + columns(section.sep)) + row[-1]]
        else:
            lines.append(joined(row))
    if section.labels and columns(section.title) > 2 + width[0]:  # three transmissions:
        return [f"{section.title}:"] + lines
    if section.labels:  # the title heads the first column: 三傳  六親 遁干 …
        lines[0] = _pad(section.title, 2 + width[0], "<") + lines[0][2 + width[0]:]
    return lines


def section_lines(section: Section) -> list[str]:
    """One section as the terminal shows it."""
    if section.grid and section.inline and not section.labels:  # 四課: 玄 龍 勾 貴
        title = f"{section.title}: "
        return [(title if i == 0 else " " * columns(title)) + line[2:] for i, line in enumerate(_grid_lines(section))]
    if section.grid:
        return ([] if section.labels else [f"{section.title}:"]) + _grid_lines(section)
    rows = [[c.plain for c in row if c] for row in section.rows]
    if section.fold:
        rows.append([section.fold.summary + section.fold.hint])
    if not section.title:  # the header: its first line flush left
        return _wrap(rows[0], section.sep, "") + [l for row in rows[1:] for l in _wrap(row, section.sep, "  ")]
    indent = " " * min(columns(section.title) + 2, 8)  # rows under the first, which follows the title
    return (_wrap(rows[0], section.sep, indent, f"{section.title}: ")
            + [l for row in rows[1:] for l in _wrap(row, section.sep, indent)])


def render_chart(chart: "Chart", lang: str = "zh", explain_calendar: bool = False, all_generals: bool = False,
                 all_spirits: bool = False, question: Optional[str] = None) -> str:
    """The board for the terminal: the sections in order (the 斷 last, for a chart cast with a
    matter), no line over WIDTH columns."""
    built = sections(chart, lang, explain_calendar=explain_calendar, all_generals=all_generals,
                     all_spirits=all_spirits, question=question)
    if lang == "en":
        built = glossed(chart, built)
    return "\n".join(line for section in built for line in section_lines(section))


def glossed(chart: "Chart", built: list[Section]) -> list[Section]:
    """The English board's sections with each term the glossary knows (六親, the generals, the
    methods and their names, the 課體 and patterns) followed by its gloss's head at its first use
    in board order, grid cells included (``官鬼 (officer-ghost)``); the 斷 is left as its module says it."""
    from .glossary import gloss_first, glossary, known_terms, short

    glosses = {term: short(gloss) for term, gloss in glossary(chart.session).items()}
    known, seen = known_terms(chart.session), set()

    def cell(c: Optional[Cell]) -> Optional[Cell]:
        return c and replace(c, text=gloss_first(c.text, glosses, seen, known))

    return [s if s.key == "judgement" else replace(s, rows=[[cell(c) for c in row] for row in s.rows])
            for s in built]
