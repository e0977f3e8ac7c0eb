"""The ``liuren`` command: cast, why, why-not, teach, page, table, audit, serve, kb check, kb show.

Every error a user can cause ends in one clear message and exit status 2 (1 when
``kb check`` finds problems), Ctrl-C in one line and status 130; standard output or error
that cannot be written (a full disk, a closed stream) in one line and status 74 (EX_IOERR;
a pipe its reader closed ends quietly, status 0, but for ``serve``'s line that it stopped); no
traceback. Text from KB files is printed with control characters escaped, input echoed in a
message is cut to a readable length, and files are written whole (a temporary file renamed),
never over a file the command reads or the package ships.
"""
from __future__ import annotations

import argparse
import errno
import io
import json
import os
import re
import signal
import sys
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

from ..datalog import collector
from ..datalog.labels import showing_ids
from ..domain.errors import SHOWN, InputError, KBError, LiurenError, shown
from ..datalog.script import simplified
from .interruption import interruption_line, language
from .usage_zh import chinese

if TYPE_CHECKING:
    import networkx as nx

CASES_LIMIT = 16 * 2**20  # bytes: a --cases file larger than this is refused
EX_IOERR = 74  # standard output or error could not be written (sysexits.h)
ECHOED = 80  # characters of a long word (a value, a path) a message echoes; the rest is counted
# Characters that could move a terminal's cursor, recolour it or reorder text: C0 and C1
# controls (not newline or tab), bidirectional and zero-width marks.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exits 2, and reads a UTC offset such as
    ``-05:00`` after an option as its value, as it reads a negative number (no option looks like one)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d+$|^-\d*\.\d+$|^-\d{1,2}:?\d{2}$")

    def error(self, message: str):  # noqa: D401 - argparse's signature
        zh, field = chinese(message, self.prog)
        raise InputError(f"{message} (see: {self.prog} --help)", zh, field)


def _file_name(text: str) -> Path:
    """A file named on the command line (an argparse type); a NUL character, which no file name holds, is refused."""
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r} holds a NUL character, which no file name can")
    return Path(text)


def _chart_options(parser: argparse.ArgumentParser, required: bool = True) -> None:
    group = parser.add_argument_group("the chart")
    group.add_argument("--day", help="day pillar, e.g. 辛巳 or 辛巳日")
    group.add_argument("--jiang", help="月將 branch or name, e.g. 寅 or 功曹; or the 月將 over the hour, e.g. 戌加寅")
    group.add_argument("--hour", help="hour branch, e.g. 午 or 午時")
    group.add_argument("--month", help="with --day: the month pillar or branch, e.g. 癸亥 or 亥 (month spirits, patterns, 旺相)")
    group.add_argument("--year", help="with --day: the year pillar or number, e.g. 戊寅 or 1998 (year spirits and patterns, 行年)")
    group.add_argument("--offset", help="instead of --jiang/--hour: the rotation 0–11 (hour 午, or 子 with --night)")
    group.add_argument("--night", action="store_true", help="with --offset: a night chart (hour 子)")
    group.add_argument("--at", help="instead: a civil moment, e.g. '1998-11-30 12:00', or now")
    group.add_argument("--tz", help="with --at: the time zone, an IANA name or an offset such as +08:00 "
                                    "(default Asia/Shanghai, with a note)")
    group.add_argument("--longitude", help="with --at: degrees east (true solar time, sunrise)")
    group.add_argument("--latitude", help="with --at: degrees north (sunrise and sunset)")
    group.add_argument("--born", help="the querent's birth: a year (1970), a year pillar (庚戌) or a date "
                                      "('1970-02-03 08:00'; years change at 立春): 本命, and with --sex the 行年")
    group.add_argument("--sex", help="with --born: m or f (男 1 歲 at 丙寅 forward, 女 at 壬申 backward)")
    group.add_argument("--natal", help="instead of --born: the 本命 branch itself, where only it is known (e.g. 未)")
    group.add_argument("--xingnian", help="instead of --born/--sex: the 行年 branch itself (e.g. 丑)")
    group.add_argument("--matter", help="the matter asked, for the 斷: 天時 家宅 婚姻 產育 疾病 仕宦 求財 出行 行人 "
                                        "失物 詞訟 謀望 (or weather household marriage childbirth illness office "
                                        "wealth journey traveller lost lawsuit plans)")
    group.add_argument("--question", dest="asked", help="with --matter: the question in the querent's words; words the KB knows (試 升 退 來 …) pick the question's 用神")


def _school_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--school", default="default", help="school name or .toml file (default: default)")
    parser.add_argument("--reading", default="", help="other readings, e.g. punishment=seed000,shehai=shortcut")
    parser.add_argument("--kb", action="append", default=[], type=_file_name,
                        help="an extra KB file to load (repeatable)")
    parser.add_argument("--engine", choices=("materialise", "pydatalog"), default="materialise",
                        help="materialise (bottom-up, the default) or pydatalog (top-down); they agree")


def _output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of labels (default zh)")
    parser.add_argument("--simplified", action="store_true", help="print simplified characters")
    parser.add_argument("--ids", action="store_true", help="for developers: show rule ids, relation names, "
                        "reading ids and KB files beside the names")


FORMATS = ("text", "json", "graphml", "dot", "svg", "png")


def _picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="text (a tree, the default), json (node-link data), graphml, dot, svg or png")
    parser.add_argument("--output", "-o", type=_file_name, help="write to this file instead of standard output")
    _force_option(parser)
    parser.add_argument("--full", action="store_true",
                        help="every step the engine took (default: labelled rule steps and what they rest on; "
                             "json and graphml are always complete)")


def _force_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="write the file even where Python is installed, over an executable, or over a file "
                             "holding another kind of content")


def _cast_options(cast: argparse.ArgumentParser) -> None:
    _chart_options(cast)
    cast.add_argument("--explain-calendar", action="store_true",
                      help="with --at: every calendar input with the reason it is what it is")
    cast.add_argument("--all", action="store_true", help="the states of all twelve generals, not only those shown")
    cast.add_argument("--all-spirits", action="store_true",
                      help="every spirit of the chart, not only those on 干上, 支上, the 三傳 and 年命")
    _school_options(cast)
    _output_options(cast)


def _why_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("question", help="initial, middle, final, method, name, noble, lesson1…4; any chart relation "
                     "by name with its value: natal, age, xingnian (行年, with --born/--sex), life_upper 行年, "
                     "stage 午 (十二長生), strength 午 or element_strength 水 (旺相休囚死), day_mark 日祿, "
                     "general_ride 午, pattern 鬼當時; or an atom like 'clashes(子, 午)'")
    sub.add_argument("value", nargs="?", help="the value asked about (why-not initial 丑)")
    _chart_options(sub, required=False)
    _school_options(sub)
    _output_options(sub)
    sub.add_argument("--depth", type=int, default=None, help="show only this many levels")
    _picture_options(sub)


def _teach_options(teach: argparse.ArgumentParser) -> None:
    _chart_options(teach)
    _school_options(teach)
    _output_options(teach)
    teach.add_argument("--interactive", action="store_true",
                       help="wait for Enter between steps (when reading a terminal; otherwise print all)")
    quiz = teach.add_argument_group("the trainer")
    quiz.add_argument("--quiz", action="store_true",
                      help="ask the method, the initial, the middle and the final of a chart (the one given, or "
                           "drawn at random) and answer each wrong choice with its why-not and the lesson's steps")
    quiz.add_argument("--method", help="with --quiz: draw charts this method decides, e.g. 涉害")
    quiz.add_argument("--rounds", type=int, default=1, help="with --quiz: how many charts (default 1)")
    quiz.add_argument("--seed", type=int, help="with --quiz: the random draw's seed (the same charts each time)")
    quiz.add_argument("--keti", action="store_true", help="with --quiz: also ask one of the chart's 課體 among four")


def _page_options(page: argparse.ArgumentParser) -> None:
    _chart_options(page)
    _school_options(page)
    page.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of labels (default zh)")
    page.add_argument("--simplified", action="store_true", help="simplified characters")
    page.add_argument("--ids", action="store_true", help="for developers: show internal ids beside the names")
    page.add_argument("--output", "-o", type=_file_name, help="the HTML file to write (default: standard output)")
    _force_option(page)


def _table_options(table: argparse.ArgumentParser) -> None:
    table.add_argument("--night", action="store_true", help="night charts (hour 子) instead of day (午)")
    table.add_argument("--day", help="only this day's twelve charts, e.g. 辛巳")
    _school_options(table)
    _output_options(table)


def _audit_options(audit: argparse.ArgumentParser) -> None:
    _school_options(audit)
    audit.add_argument("--vs", help="the other reading: topic=reading[,…] on the same school, or a school name or "
                                    ".toml file (without it, --cases weighs every shipped reading of every topic)")
    audit.add_argument("--against", type=Path, help="a JSON file of another caster's answers: which differences a "
                                                    "shipped reading explains (docs/audit_evidence.md)")
    audit.add_argument("--times", choices=("both", "day", "night"), default="both",
                       help="the 720 charts by day (hour 午), by night (hour 子) or both (default)")
    audit.add_argument("--from", dest="start", help="instead of the 720 charts: moments from this date-time …")
    audit.add_argument("--to", dest="stop", help="… to this one …")
    audit.add_argument("--step", default="2h", help="… every step (2h, 30m, 1d; default 2h)")
    audit.add_argument("--tz", default="Asia/Shanghai", help="with --from/--to: the time zone")
    audit.add_argument("--explain", action="append", default=[], metavar="CHART",
                       help="a chart id, or DAY/OFFSET[/night]: its derivation under both readings (repeatable)")
    audit.add_argument("--cases", type=_file_name, help="a JSON file of worked cases: which reading each follows")
    audit.add_argument("--limit", type=int, default=50, help="differences listed in text (default 50; --json has all)")
    audit.add_argument("--html", type=_file_name, help="also write a self-contained HTML report to this file")
    _force_option(audit)
    audit.add_argument("--only", help="only these conclusions, e.g. 三傳 or 三傳,method "
                                      "(of 三傳 method names generals spirits patterns)")
    _output_options(audit)


def _serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--host", default="127.0.0.1", help="127.0.0.1 (default), localhost or ::1: loopback only")
    serve.add_argument("--port", type=int, default=0, help="the port to listen on (default 0: a free one)")
    serve.add_argument("--open", action="store_true", help="open the app in the default browser")
    serve.add_argument("--quiet", action="store_true", help="do not log requests")
    serve.add_argument("--school", default="default", help="the school the app starts from (default: default)")
    _lang_option(serve)


def _kb_options(kb: argparse.ArgumentParser) -> None:
    kb_commands = kb.add_subparsers(dest="kb_command", required=True, parser_class=_Parser)
    check = kb_commands.add_parser("check", help="check KB files (with the default school's declarations)")
    check.add_argument("paths", nargs="+", type=_file_name)
    check.add_argument("--alone", action="store_true", help="check the files by themselves, without the school")
    check.add_argument("--school", default="default")
    _lang_option(check)
    show = kb_commands.add_parser("show", help="print a school's rules as loaded, or as compiled for the engines")
    show.add_argument("pred", nargs="?", help="only the rules and facts of this predicate")
    show.add_argument("--compiled", action="store_true", help="the compiled form: body order and fire relation")
    _school_options(show)
    _lang_option(show)


def _lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang`` for a command that prints no chart: the language of its error messages."""
    parser.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of error messages (default zh)")


# The commands in the order --help lists them: (what it does, its options, what its own --help says first).
COMMANDS = {
    "cast": ("cast a chart and print it", _cast_options, None),
    "why": ("print the derivation of a conclusion", _why_options, None),
    "why-not": ("say why a conclusion does not hold", _why_options, None),
    "teach": ("narrate a chart's derivation in numbered steps, as a teacher would", _teach_options, None),
    "page": ("write one self-contained HTML page: the chart, every derivation clickable", _page_options, None),
    "table": ("all 720 charts: day, offset, method, names, 三傳", _table_options, None),
    "audit": ("what another reading changes: every chart and conclusion, both derivations", _audit_options, None),
    "serve": ("start the teaching app: a local web page to cast, click and compare readings", _serve_options,
              "Start the teaching app on this machine's loopback interface (127.0.0.1 by default) and "
              "print its address; --port 0 (the default) takes a free port. Open the address in a browser "
              "(or give --open). Nothing is fetched from the network; Ctrl-C stops the server."),
    "kb": ("work with KB files", _kb_options, None),
}


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser of ``liuren``'s command line. Given ``command``, only that command's options are
    added (every command is named, for --help and usage errors): its command lines parse the same,
    and the rest is not built for nothing."""
    parser = _Parser(prog="liuren", description="大六壬 as a Datalog knowledge base that explains every conclusion.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, (help_text, options, description) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=description)
        if command is None or command == name:
            options(sub)
    return parser


def printable(text: str) -> str:
    """``text`` with control characters written as ``\\uXXXX`` (valid inside JSON strings too)."""
    return _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _say(text: str) -> None:
    """``text`` on standard error (an OSError when it cannot be written: ``_run`` answers it)."""
    print(printable(text), file=sys.stderr)


def _cut(message: str, lang: str = "en") -> str:
    """``message`` with every word longer than ``ECHOED`` characters (an echoed value or path) cut
    there, with an ellipsis and its length (in ``lang``): a 40,000-character input is not echoed
    whole. Chinese punctuation (「」、：) parts words, as a space does."""
    def cut(word: str) -> str:
        end = word[-1] if word[-1] in ":;,)'\"" else ""  # the punctuation that follows it stays
        length = len(word) - len(end)
        return f"{word[:ECHOED]}…{f'（共 {length:,} 字）' if lang == 'zh' else f' ({length:,} characters)'}{end}"

    return re.sub(rf"[^\s「」、，：；（）]{{{ECHOED + 1},}}", lambda m: cut(m.group()), message)


def subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of one command (``cast``), e.g. to read its options."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def _session(args, school: Optional[str] = None, readings: Optional[dict] = None):
    """A session for the command's school (or ``school``), saying what an incomplete school left to the default."""
    from ..domain.school import parse_readings
    from ..domain.session import Session

    session = Session(school or args.school, parse_readings(args.reading) if readings is None else readings,
                      args.kb, engine=args.engine)
    collector.loaded(getattr(args, "freeze", False))
    if session.kb.school is not None and session.kb.school.note():
        _say(f"liuren: note: {session.kb.school.note()}")
    _check_targets(args, session)
    return session


def _check_targets(args, session) -> None:
    """Refuse ``--output`` or ``--html`` before the work, not after it (``_write`` checks again)."""
    from .userfiles import check_target

    for what in ("--output", "--html"):
        target = getattr(args, what[2:], None)
        if target is not None:
            check_target(target, _files_read(args, [session]), what, _output_kind(args, what),
                         getattr(args, "force", False))


def _output_kind(args, what: str = "--output") -> str:
    """What the command writes to ``what``: html (a page, an audit's report), else the format asked."""
    if what == "--html" or args.command == "page":
        return "html"
    return getattr(args, "format", None) or ("json" if getattr(args, "json", False) else "text")


def _chart(session, args, required: bool = True, whole: bool = True):
    """The chart the options name (:func:`.chart_request.cast`); ``whole``: evaluated whole at the
    cast, as a command showing the whole chart needs. What the user should know of the input is
    said on standard error once the input is read (bad input gets its one line alone)."""
    from .chart_request import ChartRequest, cast

    chart = cast(session, ChartRequest.from_options(args), required, whole, lambda notice: _say(str(notice)))
    if chart is not None:
        collector.cast(getattr(args, "freeze", False))
    return chart


def _emit(text: str, args) -> None:
    """Text on standard output, wrapped to the terminal's width (simplified when asked)."""
    text = _fit(text)
    _to_stdout([printable(simplified(text) if getattr(args, "simplified", False) else text), "\n"])


def _fit(text: str) -> str:
    """Text for standard output: each line wrapped to the terminal's width (COLUMNS; 100 when piped)."""
    from ..explain.text_width import terminal_width, wrap

    return wrap(text, terminal_width())


class _StdoutError(OSError):
    """Standard output refused what was written to it (a full disk, a closed pipe or stream)."""


def _to_stdout(data: "Iterable[str] | bytes") -> None:
    """Text (its pieces, written as they come) or bytes on standard output, flushed; an OSError there
    is raised as a ``_StdoutError``."""
    try:
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.writelines(data)
            sys.stdout.flush()
    except OSError as error:
        raise _StdoutError(error.errno, error.strerror) from None


def _json(data: dict, args, sessions=()) -> None:
    """A ``--json`` document: ``--simplified`` changes its prose only (never an id or a value)."""
    from ..domain.jsondata import display_only

    pieces = json.JSONEncoder(ensure_ascii=False, indent=1, default=str).iterencode(
        display_only(data, getattr(args, "simplified", False)))
    joined = iter(lambda: "".join(islice(pieces, 4096)), "")  # written as encoded: no whole copy of a long audit's
    _write(joined, argparse.Namespace(**{**vars(args), "simplified": False}), sessions)


def cmd_cast(args) -> int:
    from ..explain.board import chart_data, render_chart

    session = _session(args)
    chart = _chart(session, args)
    if args.json:
        _json(chart_data(chart, args.asked), args)
    else:
        _emit(render_chart(chart, args.lang, args.explain_calendar, args.all, args.all_spirits, args.asked), args)
    return 0


def cmd_why(args, negative: bool = False) -> int:
    from ..datalog.digraph import Digraph
    from ..explain.tree import render
    from ..domain.session import JUDGEMENT

    session = _session(args)
    args.question = session.question(args.question)  # 初傳, 断: the question by its name
    chart = _chart(session, args, required="(" not in args.question, whole=False)  # a derivation reads what it rests on
    fmt = args.format or ("json" if args.json else "text")
    if chart is not None and args.question in JUDGEMENT:  # the 斷's questions checked in the user's words
        from ..explain.judgement import asked

        said = asked(chart, args.value, negative, args.lang)
        if said is not None and fmt != "text":
            raise InputError(said[0] + " " + said[-1])
        if said is not None:
            _write(_fit("\n".join(said)) if args.output is None else "\n".join(said), args, [session])
            return 0
    graph_type = Digraph if fmt == "text" else None  # a tree printed needs no networkx (its import costs 0.2 s)
    if negative:
        if args.value is None and "(" not in args.question:
            raise InputError(f"why-not {args.question} needs the value asked about, e.g. why-not initial 丑",
                             f"why-not {args.question} 須給所問之值，如 why-not initial 丑")
        graph = session.why_not(chart, args.question, args.value, graph_type=graph_type)
    else:
        graph = session.why(chart, args.question, args.value, graph_type=graph_type)
    short = None
    if negative and chart is not None and "(" not in args.question:
        from ..explain.contrast import answer
        from ..explain.dispute_view import readings_first

        short = answer(chart, args.question, args.value, args.lang)  # the decisive reason first
        short.lines[:0] = readings_first(chart, args.question, args.value, args.lang)
        if args.question in JUDGEMENT:  # an answer the chart does not have: the weighing behind its own
            from ..explain.judgement import weighing_lines

            short.lines += weighing_lines(chart, args.value, args.lang)
    if fmt == "json":
        from ..domain.jsondata import derivation

        _json(derivation(graph, chart.id if chart is not None else None), args, [session])
    elif fmt == "graphml":  # --simplified changes the prose only, as in --json
        import networkx as nx

        from ..domain.jsondata import DISPLAY

        shown = _simplified_graph(graph, DISPLAY) if args.simplified else graph
        _write("\n".join(nx.generate_graphml(shown)), argparse.Namespace(**{**vars(args), "simplified": False}),
               [session])
    elif fmt == "text" and short is not None:
        if args.lang == "en":  # each term glossed at its first use
            from ..explain.glossary import glossed_lines

            short.lines = glossed_lines(session, short.lines)
        text = "\n".join(short.lines)
        if args.full:  # the reason's derivation, then every rule that could have derived the atom
            text += ("\n\n" + render(short.derivation(Digraph), args.lang, args.depth)
                     + "\n\n" + render(graph, args.lang, args.depth))
        _write(_fit(text) if args.output is None else text, args, [session])
    elif fmt == "text":
        text = render(graph, args.lang, args.depth, full=args.full)
        _write(_fit(text) if args.output is None else text, args, [session])
    else:
        _write(_picture(short.picture() if short is not None and not args.full else graph, fmt, args), args, [session])
    return 0


def _picture(graph: "nx.DiGraph", fmt: str, args) -> str | bytes:
    from ..explain.picture import render, to_dot
    from ..explain.view import compact

    if args.simplified:  # on the labels, so that a PNG has them too
        graph = _simplified_graph(graph)
    shown = graph if args.full else compact(graph)
    return to_dot(shown, args.lang) if fmt == "dot" else render(shown, fmt, args.lang)


def _simplified_graph(graph: "nx.DiGraph", keys=None) -> "nx.DiGraph":
    """A copy whose node texts are in simplified characters (only those under ``keys``, when given)."""
    out = graph.copy()
    for _, attrs in out.nodes(data=True):
        for key, value in attrs.items():
            if isinstance(value, str) and (keys is None or key in keys):
                attrs[key] = simplified(value)
    return out


def _write(data: "str | bytes | Iterable[str]", args, sessions=(), what: str = "--output") -> None:
    """Text (a string, or the pieces of one, written as they come: a long audit's ``--json``) or bytes
    to ``--output`` or standard output (simplified when asked), never over a file read."""
    output = getattr(args, "output", None)
    if isinstance(data, bytes):
        if output is None and sys.stdout.isatty():
            raise InputError("that output is binary: give --output FILE", "此輸出為二進位資料，不宜印於終端：請給 --output 檔名")
    else:
        data = _printable_pieces([data] if isinstance(data, str) else data, getattr(args, "simplified", False),
                                 newline=output is None)
    if output is not None:
        from .userfiles import write_replacing

        pieces = data if isinstance(data, bytes) else (piece.encode("utf-8", "surrogateescape") for piece in data)
        write_replacing(output, pieces, _files_read(args, sessions), what, _output_kind(args, what),
                        getattr(args, "force", False))
    else:
        _to_stdout(data)


def _printable_pieces(pieces: Iterable[str], simplify: bool, newline: bool) -> Iterator[str]:
    """The pieces of a text, printable and simplified when asked (both a character at a time), then a
    newline: always (standard output, as ``print``), or only where the text does not end in one."""
    last = ""
    for piece in pieces:
        last = piece or last
        yield printable(simplified(piece) if simplify else piece)
    if newline or not last.endswith("\n"):
        yield "\n"


def _files_read(args, sessions) -> list[Path]:
    """Every file the command read: the sessions' KB files, school files, --kb, --cases and --against."""
    from ..domain.school import kb_root

    files = list(getattr(args, "kb", ())) + [p for p in (getattr(args, "cases", None), getattr(args, "against", None))
                                             if p is not None]
    files += [Path(s) for s in (getattr(args, "school", None), getattr(args, "vs", None)) if s and s.endswith(".toml")]
    for session in sessions:
        files += session.kb.school.files(kb_root()) if session.kb.school is not None else []
    return files


def cmd_teach(args) -> int:
    from ..explain.lesson import compare, follows_line, header, lesson_steps, render_lesson, render_step

    session = _session(args)
    if args.quiz:
        from ..explain.quiz import run

        chart = _chart(session, args, required=False)
        if chart is not None and args.method:
            raise InputError("give either a chart or --method to draw charts by, not both",
                             "課盤與 --method（依某法抽課）只可給其一")
        if args.rounds < 1:
            raise InputError(f"--rounds {args.rounds}: give at least 1", f"--rounds 至少為 1，「{args.rounds}」不可")
        if sys.stdin is None:  # started with it closed (<&-): input() would fail at the first question
            raise InputError("teach --quiz reads its answers from standard input, which is closed; "
                             "run it at a terminal or give the answers on standard input",
                             "teach --quiz 從標準輸入讀答案，而標準輸入已關閉；請在終端執行，或由標準輸入給答案")
        run(session, args.lang, input, lambda text: _emit(text, args), chart, args.rounds, args.method, args.seed,
            args.keti)
        return 0
    chart = _chart(session, args)
    steps = lesson_steps(chart, args.lang)
    follows = None
    if args.reading:  # say where the reading changes the lesson: the same chart under the school's own
        own = _chart(_session(args, readings={}), args)
        follows = compare(steps, chart, lesson_steps(own, args.lang), own)
    if args.json:
        from ..domain.jsondata import lesson_document

        _json(lesson_document(chart, steps, args.lang, follows), args)
    elif args.interactive and sys.stdin is not None and sys.stdin.isatty():  # stdin closed (<&-): print all
        prompt = {"zh": "〔按 Enter 續講〕", "en": "[Enter for the next step]"}[args.lang]
        waiting = True
        _emit(header(chart, args.lang) + ("\n" + follows_line(steps, follows, args.lang) if follows else ""), args)
        for number, step in enumerate(steps, 1):
            _emit("\n" + render_step(step, number, args.lang), args)
            if waiting and number < len(steps):
                try:
                    input(prompt)
                except EOFError:  # the input was closed: tell the rest at once
                    waiting = False
    else:
        _emit(render_lesson(chart, args.lang, steps, follows), args)
    return 0


def cmd_page(args) -> int:
    from ..explain.page import page

    session = _session(args)
    chart = _chart(session, args)
    _write(page(chart, args.lang, question=args.asked), args, [session])
    return 0


def cmd_table(args) -> int:
    from ..domain.inputs import parse_pillar

    session = _session(args)
    day = "".join(parse_pillar(session.base, args.day)) if args.day is not None else None  # as cast reads it
    collector.keep_to_the_end()
    charts = session.table(daytime=not args.night)  # evaluated as read: the rows rest on a quarter of the rules
    if day is not None:
        charts = [c for c in charts if c.day == day]
    if args.json:
        from ..domain.jsondata import chart_row, document

        _json(document("table", {"school": session.name, "daytime": not args.night,
                                 "rows": [chart_row(c) for c in charts]}), args)
    else:
        from ..explain.board import table_lines

        _emit("\n".join(table_lines(charts, args.lang)), args)
    return 0


def cmd_kb_check(args) -> int:
    from ..datalog.checker import warnings
    from ..domain.school import kb_root, load_files, read_school

    paths = list(args.paths)
    if not args.alone:  # the school's files, then the user's (a school file named again is read once)
        chosen = read_school(args.school)
        if chosen.note():
            _say(f"liuren: note: {chosen.note()}")
        school = chosen.files(kb_root())
        known = {os.path.realpath(p) for p in school}
        paths = school + [p for p in paths if os.path.realpath(p) not in known]
    try:
        kb = load_files(paths)
    except KBError as error:
        _say(shown(error.problems))
        count = len(error.problems)
        print(f"{count} problem{'s' * (count != 1)} found", file=sys.stderr)
        return 1
    found = warnings(kb.program)
    for warning in found[:SHOWN]:
        _say(f"warning: {warning}")
    if len(found) > SHOWN:
        _say(f"warning: … and {len(found) - SHOWN} more")
    _to_stdout([f"ok: {len(args.paths)} file{'s' * (len(args.paths) != 1)} checked\n"])
    return 0


def cmd_audit(args) -> int:
    from ..domain import audit as A
    from ..domain.school import parse_readings

    if args.against is not None or (args.cases is not None and args.vs is None):
        return _audit_evidence(args)
    if args.vs is None:
        raise InputError("missing --vs (the other reading), or give --cases or --against to weigh every reading",
                         "缺 --vs（所比之另一說）；或給 --cases、--against 以衡量每一說")
    base = _session(args)
    if "=" in args.vs:
        other = _session(args, readings={**parse_readings(args.reading), **parse_readings(args.vs)})
    else:
        other = _session(args, school=args.vs)
    if args.cases is not None:
        return _audit_cases(args, [base, other])
    only = [name.strip() for name in args.only.split(",")] if args.only else []
    unknown = [name for name in only if name not in A.CONCLUSIONS]
    if unknown:
        raise InputError(f"--only {','.join(unknown)}: the conclusions are {', '.join(A.CONCLUSIONS)}",
                         f"--only 無此結論：{'、'.join(unknown)}；可取：{'、'.join(A.CONCLUSIONS)}")
    if args.start or args.stop:
        if not (args.start and args.stop):
            raise InputError("give both --from and --to", "--from 與 --to 須並給")
        when = A.moments(args.start, args.stop, args.step)
        inputs_of = lambda s: (s.dated_input(m, args.tz) for m in when)  # noqa: E731  (one at a time: audit.compare)
    else:
        times = {"both": (True, False), "day": (True,), "night": (False,)}[args.times]
        inputs_of = lambda s: A.table_inputs(s, times)  # noqa: E731
        collector.keep_to_the_end()  # the table's charts are all kept (a dated audit releases its batches)
    asked = [_audit_chart(base, wanted) for wanted in args.explain]
    audit = A.compare(base, other, inputs_of, _progress_bar() if sys.stderr.isatty() else None, keep=asked)
    if only:
        audit = audit.only(only)
    explained = {chart_id: A.explain(base, other, chart_id, _question(audit, chart_id)) for chart_id in asked}
    if args.json:
        from ..domain.jsondata import derivation, document

        data = {**audit.to_dict(), "explained": {c: {r: derivation(g, c) for r, g in gs.items()}
                                                 for c, gs in explained.items()}}
        _json(document("audit", data), args)
    else:
        from ..explain.audit_text import render_text
        from ..explain.tree import render

        text = render_text(audit, args.limit, args.lang)
        for chart_id, graphs in explained.items():
            for reading, graph in graphs.items():
                question = graph.graph.get("question", "")
                under = ("{0}，依{1}：何以 {2}" if args.lang == "zh" else "{0} under {1}: {2}").format(
                    chart_id, reading, question.removeprefix("why ") if args.lang == "zh" else question)
                text += f"\n\n== {under}\n" + render(graph, args.lang)
        _emit(text, args)
    if args.html is not None:
        from ..explain.audit_page import audit_html

        _write(audit_html(audit, explained, args.lang), argparse.Namespace(**{**vars(args), "output": args.html}),
               [base, other], "--html")
    return 0


def _progress_bar(width: int = 30):
    """A progress bar on standard error, redrawn in place: ``[#####·····] 360/720 charts``."""
    def show(done: int, total: int) -> None:
        filled = width * done // max(total, 1)
        end = "\n" if done >= total else ""
        print(f"\r[{'#' * filled}{'·' * (width - filled)}] {done}/{total} charts", end=end, file=sys.stderr, flush=True)

    return show


def _audit_chart(session, wanted: str) -> str:
    """A chart id from ``DAY/OFFSET[/night]`` or the id itself."""
    parts = wanted.split("/")
    if len(parts) in (2, 3) and re.fullmatch("[0-9]{1,2}", parts[1]):
        night = len(parts) == 3 and parts[2] == "night"
        return session.offset_input(parts[0], int(parts[1]), daytime=not night).id
    return wanted


def _question(audit, chart_id: str) -> str:
    """What to explain for a changed chart: the first transmission that differs, else the method."""
    for d in audit.differences:
        if d.chart == chart_id and d.conclusion == "三傳":
            before, after = d.before.ljust(3, "—"), d.after.ljust(3, "—")
            position = next(i for i in range(3) if before[i] != after[i])
            return ("initial", "middle", "final")[position]
    return "method"


def _json_list(path: Path, option: str) -> list:
    """A JSON file holding a list (``--cases``, ``--against``); a bad one is an InputError naming it."""
    from .userfiles import read_regular

    data = read_regular(path, option, CASES_LIMIT)
    try:
        found = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputError(f"{option} {path}: byte {error.start} is not UTF-8 text",
                         f"{option} 之 {path} 第 {error.start} 字節不是 UTF-8 文字") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{option} {path}:{error.lineno}:{error.colno}: {error.msg}",
                         f"{option} 之 {path}:{error.lineno}:{error.colno} 不合 JSON 格式") from None
    except (ValueError, RecursionError):
        raise InputError(f"{option} {path}: a number too long or lists nested too deep",
                         f"{option} 之 {path} 有數過長，或列表套疊過深") from None
    if not isinstance(found, list):
        raise InputError(f"{option} {path}: expected a JSON list", f"{option} 之 {path} 應為 JSON 列表（list）")
    return found


def _audit_cases(args, sessions) -> int:
    from ..domain.audit import follows
    from ..explain.audit_text import render_cases

    verdicts = follows(sessions, _json_list(args.cases, "--cases"))
    if args.json:
        from ..domain.jsondata import document

        _json(document("cases", {"cases": [{**v.__dict__, "follows": list(v.follows)} for v in verdicts]}), args)
    else:
        _emit(render_cases(verdicts, args.lang), args)
    if args.html is not None:
        from ..explain.evidence_view import cases_html

        _write(cases_html(verdicts), argparse.Namespace(**{**vars(args), "output": args.html}), sessions, "--html")
    return 0


def _audit_evidence(args) -> int:
    """``audit --cases FILE`` without --vs: every topic's readings against the cases; ``audit --against
    FILE``: another caster's answers, each difference with the shipped readings that give it."""
    from ..domain import evidence as E
    from ..explain import evidence_view as V

    if args.against is not None and args.cases is not None:
        raise InputError("give --cases or --against, not both", "--cases 與 --against 只可給其一")
    session = _session(args)
    if args.against is not None:
        agreed, differences = E.against(session, _json_list(args.against, "--against"))
        if args.json:
            _json(V.against_document(session.name, agreed, differences, args.lang), args)
        else:
            _emit(V.render_against(agreed, differences, args.lang), args)
        if args.html is not None:
            _write(V.against_html(agreed, differences, args.lang),
                   argparse.Namespace(**{**vars(args), "output": args.html}), [session], "--html")
        return 0
    cases = _json_list(args.cases, "--cases")
    verdicts = E.by_topic(session, cases)
    if args.json:
        _json(V.topics_document(session.name, verdicts, len(cases), args.lang), args)
    else:
        _emit(V.render_topics(verdicts, len(cases), args.lang), args)
    if args.html is not None:
        _write(V.topics_html(verdicts, len(cases), args.lang), argparse.Namespace(**{**vars(args), "output": args.html}),
               [session], "--html")
    return 0


def cmd_serve(args) -> int:
    from .serve import serve

    collector.live_on()
    try:
        serve(args.host, args.port, args.school, args.open, args.quiet, out=lambda line: _emit(line, args))
    except KeyboardInterrupt:
        pass
    except _StdoutError as error:  # answered as for any command (_failed), but a server that stops
        if error.errno != errno.EPIPE:  # by itself says why even when its reader has left
            raise
        _say("liuren serve: stopped: the reader of its standard output has gone (a closed pipe)")
    return 0


def cmd_kb_show(args) -> int:
    session = _session(args)
    lines = []
    for compiled in session.kb.rules:
        rule = compiled.rule
        if args.pred and rule.head.pred != args.pred:
            continue
        lines.append(f"% {rule.id}  [{rule.pos.path}:{rule.pos.line}]")
        if args.compiled:
            fire = f"{compiled.fire}({', '.join(compiled.variables)})"
            lines += _clause(fire, compiled.body)
            lines += _clause(str(rule.head), [fire])
        else:
            lines += _clause(str(rule.head), rule.body)
    if args.pred:
        lines += [f"{fact}  % {fact.pos.path}:{fact.pos.line}" for fact in session.kb.program.facts
                  if fact.head.pred == args.pred]
        if args.pred not in session.kb.program.preds:
            raise InputError(f"unknown predicate {args.pred!r}", f"無此謂詞「{args.pred}」")
    _emit("\n".join(lines), args)
    return 0


def _clause(head: str, body) -> list[str]:
    """A clause as KB text that fits the terminal: the body's literals run on under the head, four
    spaces in, each line broken only between two literals."""
    from ..explain.text_width import columns, terminal_width

    if not body:
        return [f"{head}."]
    lines, width = [f"{head} :-"], terminal_width()
    for n, literal in enumerate(map(str, body)):
        literal += "." if n == len(body) - 1 else ","
        if columns(lines[-1]) + 1 + columns(literal) <= width:
            lines[-1] += " " + literal
        else:
            lines.append("    " + literal)
    return lines


def _tolerant(stream) -> None:
    """Let a stream that cannot encode some text (PYTHONIOENCODING=ascii, a non-UTF-8 path) escape it."""
    if isinstance(stream, io.TextIOWrapper):
        stream.reconfigure(errors="backslashreplace")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one command in this process as a library call (a test, a notebook): the garbage
    collector is as it was on return (:func:`.collector.command`)."""
    with collector.command(library=True) as freeze:
        return _run(argv, freeze)


def run(argv: Optional[Sequence[str]] = None) -> int:
    """The ``liuren`` program (its console script): the command line's command, with what it
    loaded frozen until the process ends (:func:`.collector.command`). Given ``argv``, a library
    call: as :func:`main`.

    Ctrl-C exits at once with status 130 (:mod:`.console`) except while the command runs, which
    turns it into KeyboardInterrupt so that what it was writing is cleaned up."""
    if argv is not None:
        return main(argv)
    from .interruption import interrupted

    signal.signal(signal.SIGINT, interrupted)
    try:
        with collector.command(library=False) as freeze:
            code = _run(None, freeze, console=True)
    except KeyboardInterrupt:  # between the command's end and the handler below
        interrupted()
    finally:
        signal.signal(signal.SIGINT, interrupted)
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        if stream is not None and _refuses(stream):  # else it fails again at exit (status 120)
            _discard(fd)
    return code


def _run(argv: Optional[Sequence[str]], freeze: bool, console: bool = False) -> int:
    """The command, its status, and one line on standard error for what went wrong: 2 for the
    user's input or files, 130 for Ctrl-C, 74 (``EX_IOERR``) when standard output or error
    cannot be written. ``console``: the process's own command, which handles Ctrl-C itself."""
    closed = [name for name in ("stdout", "stderr") if getattr(sys, name) is None]
    for name in closed:  # started with the stream closed (>&-): writing to it fails, once, clearly
        setattr(sys, name, _ClosedStream())
    try:
        try:
            if console:
                signal.signal(signal.SIGINT, signal.default_int_handler)
            code = _command(argv, freeze)
            _to_stdout(())  # flushed: what it still holds (a note printed elsewhere) fails here, not at exit
            return code
        except OSError as error:
            return _failed(error)
    except OSError:  # standard error cannot be written either: nothing more can be said
        return EX_IOERR
    finally:
        for name in closed:
            setattr(sys, name, None)


def _failed(error: OSError) -> int:
    """The status for an OSError that reached the command line, said in one line: standard output
    refused it (74; a pipe its reader closed: 0, quietly), or a file the system refused (2: the
    commands name the option where they can; this is the last resort)."""
    if isinstance(error, _StdoutError):
        if error.errno == errno.EPIPE:
            return 0
        _say(f"liuren: cannot write standard output: {error.strerror or error}")
        return EX_IOERR
    where = f"{os.fsdecode(error.filename)}: " if error.filename is not None else ""
    _say(_cut(f"liuren: {where}{error.strerror or error}"))
    return 2


def _refuses(stream) -> bool:
    """Whether ``stream`` cannot take what it holds (a full disk, a closed pipe or stream)."""
    try:
        stream.flush()
    except (OSError, ValueError):
        return True
    return False


def _discard(fd: int) -> None:
    """Point the descriptor at /dev/null: what its stream still holds is dropped at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass


class _ClosedStream(io.TextIOBase):
    """A standard stream the process was started without: writing to it fails as a closed descriptor."""

    def __init__(self):
        self.failed = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.failed = True
        raise OSError(errno.EBADF, "it is closed")

    @property
    def buffer(self):
        return self

    def flush(self) -> None:
        if self.failed:
            raise OSError(errno.EBADF, "it is closed")


def _command(argv: Optional[Sequence[str]], freeze: bool) -> int:
    """The command; ``freeze``: what it loads is frozen once loaded (:func:`.collector.loaded`)."""
    _tolerant(sys.stdout)
    _tolerant(sys.stderr)
    given: list[str] = []
    reader, options = ("zh", False), set()  # the language asked; the command's options, once parsed
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        reader = language(given)  # until the command line is parsed (argparse's own errors)
        parser = build_parser(given[0] if given and given[0] in COMMANDS else None)
        args = parser.parse_args(given)
        args.freeze = freeze
        reader = getattr(args, "lang", "zh"), getattr(args, "simplified", False)
        options = {option for action in subcommand(parser, args.command)._actions for option in action.option_strings}
        with showing_ids(getattr(args, "ids", False)):
            return _dispatch(args)
    except KBError as error:
        _say(str(error))
        return 2
    except LiurenError as error:
        _say(_cut(f"liuren: {_said(error, *reader, options, given)}", reader[0]))
        return 2
    except (KeyboardInterrupt, RuntimeError) as error:
        # Python 3.11 wraps a Ctrl-C that lands while a class is made (a dataclass's fields, in a
        # module the command imports late) in RuntimeError("Error calling __set_name__ …")
        if isinstance(error, RuntimeError) and not isinstance(error.__cause__, KeyboardInterrupt):
            raise
        _say(interruption_line(*reader))
        return 130
    except (RecursionError, MemoryError) as error:  # a last resort; the engine's own limits name the rule
        _say(f"liuren: 此問之工超出本機之力（{type(error).__name__}）；請簡化規則或所問" if reader[0] == "zh" else
             f"liuren: the work outgrew this machine ({type(error).__name__}); simplify the rules or the question")
        return 2


def _said(error: Exception, lang: str, simplify: bool, options: set[str], given: Sequence[str]) -> str:
    """An error in ``lang`` (simplified when asked); in Chinese, an input error about one of the
    command's options that does not name it is led by it (``--jiang：「X」非地支…``), as the app
    leads it by the field's label: when that option was given, or when no other value given is
    echoed (``--vs nosuch`` is not led by ``--school``, the field of a school's error)."""
    said = error.said(lang) if isinstance(error, InputError) else str(error)
    flag = f"--{getattr(error, 'field', '')}"
    if lang == "zh" and getattr(error, "zh", "") and flag in options and flag not in said:
        typed = any(word == flag or word.startswith(flag + "=") for word in given)
        if typed or not any(len(word) > 1 and word in said for word in given if not word.startswith("-")):
            said = f"{flag}：{said}"
    return simplified(said) if simplify else said


def _dispatch(args) -> int:
    """Run the parsed command."""
    if args.command == "cast":
        return cmd_cast(args)
    if args.command in ("why", "why-not"):
        return cmd_why(args, negative=args.command == "why-not")
    if args.command == "table":
        return cmd_table(args)
    if args.command == "teach":
        return cmd_teach(args)
    if args.command == "page":
        return cmd_page(args)
    if args.command == "audit":
        return cmd_audit(args)
    if args.command == "serve":
        return cmd_serve(args)
    return cmd_kb_show(args) if args.kb_command == "show" else cmd_kb_check(args)


if __name__ == "__main__":
    sys.exit(run())
