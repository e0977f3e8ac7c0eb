"""KB text → :class:`~liuren_logic.datalog.syntax.Module`, with positions on every node.

The grammar is ``kb.lark`` (LALR). Nothing here executes the text: constants stay
data; lines, strings and numbers are bounded in size (``MAX_LINE``, ``MAX_STRING``,
``MAX_DIGITS``); a syntax error becomes a :class:`~liuren_logic.datalog.errors.KBError` naming
``path:line:col`` with a caret line.
"""
from __future__ import annotations

import heapq
import re
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import NamedTuple

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import cache
from . import syntax as S
from .collector import collection_paused
from .errors import KBError, Position, Problem
from .script import traditional

# How the grammar's named terminals read in an error message.
_TERMINAL_NAMES = {
    "NAME": "a lower-case name",
    "VAR": "a variable",
    "CJK": "a Chinese constant",
    "INT": "a number",
    "STRING": "a quoted string",
    "RULE_ID": "a dotted rule id such as zeike.lower",
    "COMPARE": "a comparison (= != < <= > >=)",
    "AGGREGATE": "count, sum, max or min",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*' or 'mod'",
    "LANG": "zh or en",
    "INPUT": "input",
    "RULE_KIND": "@rule, @default or @defeater",
    "STRONG": "'~'",
    "$END": "the end of the file",
}


MAX_DIGITS = 4300  # Python's limit on converting digits to an int
MAX_LINE = 100_000  # characters in one line of a KB file (the longest shipped is 377)
MAX_STRING = 10_000  # characters between the quotes of a string
MAX_NESTING = 256  # levels of a statement's parse tree: an expression of 255 terms (each + nests one)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = files(__package__).joinpath("kb.lark").read_text("utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _describe(terminal: str) -> str:
    if terminal in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[terminal]
    for definition in _parser().terminals:
        if definition.name == terminal:
            return repr(definition.pattern.value)
    return terminal


def _unquote(token: str) -> str:
    body = token[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append({"n": "\n", "t": "\t"}.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


class _Builder(Transformer):
    """Turns the lark tree into syntax nodes, keeping each node's place (a term's, with the term:
    ``_Placed``, until the node it stands in takes it); equal terms are one object (``terms``)."""

    def __init__(self, path: str, terms: "_Terms"):
        super().__init__()
        self.path = path
        self.terms = terms

    def _at(self, meta_or_token) -> S.Place:
        return (self.path, meta_or_token.line, meta_or_token.column)

    def constant(self, children):
        (token,) = children
        if token.type == "INT":
            value = self._number(token, token)
        elif token.type == "STRING":
            value = self._string(token)
        elif token.type == "CJK":
            value = traditional(str(token))
        else:
            value = str(token)
        return _Placed(self.terms.const(value), self._at(token))

    def signed(self, children):
        sign, digits = children
        value = self._number(digits, sign)
        return _Placed(self.terms.const(-value if sign == "-" else value), self._at(sign))

    def _string(self, token: Token) -> str:
        if len(token) - 2 > MAX_STRING:
            raise _Located(self._at(token), f"a string of {len(token) - 2} characters (at most {MAX_STRING})", echo=False)
        return _unquote(str(token))

    def _number(self, digits: Token, where: Token) -> int:
        if len(digits) > MAX_DIGITS:
            raise _Located(self._at(where), f"a number of {len(digits)} digits (at most {MAX_DIGITS})")
        return int(digits)

    def var(self, children):
        (token,) = children
        return _Placed(self.terms.var(str(token)), self._at(token))

    def binop(self, children):
        left, op, right = children
        return _Placed(S.BinOp(str(op), left.term, right.term, (left.at, right.at)), left.at)

    @v_args(meta=True)
    def atom(self, meta, children):
        name, *args = children
        if isinstance(name, Token) and name.type == "STRONG":  # ~p(…): the relation ~p
            name, *args = args
            name = "~" + name
        return S.Atom(str(name), self.terms.args([a.term for a in args]), tuple(a.at for a in args), self._at(meta))

    @v_args(meta=True)
    def negation(self, meta, children):
        return S.Negation(children[0], self._at(meta))

    @v_args(meta=True)
    def comparison(self, meta, children):
        left, op, right = children
        return S.Comparison(str(op), left.term, right.term, (left.at, right.at), self._at(meta))

    @v_args(meta=True)
    def aggregate(self, meta, children):
        result, op, func, term, *body = children
        at = self._at(meta)
        if not isinstance(result.term, S.Var) or result.term.anonymous or str(op) != "=":
            raise _Located(at, f"an aggregate is written 'Var = {func} Term : {{ … }}'")
        return S.Aggregate(result.term, str(func), self.terms.var(str(term)), tuple(body),
                           (result.at, self._at(term)), at)

    def label(self, children):
        lang, text = children
        return _Label(str(lang), self._string(text))

    def source(self, children):
        return _Label("source", self._string(children[0]))

    def param(self, children):
        return (str(children[0]), str(children[1]))

    @v_args(meta=True)
    def kind_enum(self, meta, children):
        name, *members = children
        return S.KindDecl(str(name), tuple(m.term.value for m in members), (), self._at(meta))

    @v_args(meta=True)
    def kind_union(self, meta, children):
        name, *parts = children
        return S.KindDecl(str(name), (), tuple(map(str, parts)), self._at(meta))

    @v_args(meta=True)
    def pred_decl(self, meta, children):
        name, *rest = children
        params = tuple(c for c in rest if type(c) is tuple)
        labels = tuple(tuple(c) for c in rest if isinstance(c, _Label))
        is_input = any(isinstance(c, Token) and c.type == "INPUT" for c in rest)
        return S.PredDecl(str(name), params, labels, is_input, self._at(meta))

    @v_args(meta=True)
    def rule_annot(self, meta, children):
        kind, *rest = children
        return self._annotation(meta, rest, _KINDS[str(kind)])

    @v_args(meta=True)
    def prefer(self, meta, children):
        superior, op, inferior, *rest = children
        if str(op) != ">":
            raise _Located(self._at(op), f"a superiority is written '@prefer {superior} > {inferior}', not '{op}'")
        labels = tuple(tuple(c) for c in rest if c.lang != "source")
        source = next((c.text for c in rest if c.lang == "source"), "")
        return S.Prefer(str(superior), str(inferior), labels, source, (self._at(superior), self._at(inferior)),
                        self._at(meta))

    @v_args(meta=True)
    def fact_block(self, meta, children):
        annotation = self._annotation(meta, [c for c in children if not isinstance(c, _Clause)])
        return _FactBlock(annotation, [c for c in children if isinstance(c, _Clause)])

    def _annotation(self, meta, children, kind: str = S.STRICT) -> "_Annotation":
        rule_id, *rest = children
        labels = tuple(tuple(c) for c in rest if c.lang != "source")
        source = next((c.text for c in rest if c.lang == "source"), "")
        return _Annotation(str(rule_id), labels, source, self._at(meta), kind)

    @v_args(meta=True)
    def clause(self, meta, children):
        head, *body = children
        return _Clause(head, tuple(body), self._at(meta))


class _Label(NamedTuple):
    lang: str
    text: str


class _Placed(NamedTuple):
    term: S.Term
    at: S.Place


class _Terms:
    """One variable or constant object for each name or value in a parse, and one tuple for
    each sequence of them that atoms take as arguments."""

    def __init__(self):
        self.vars: dict[str, S.Var] = {}
        self.consts: dict[tuple, S.Const] = {}
        self.tuples: dict[tuple, tuple] = {}

    def args(self, terms: list) -> tuple:
        return self.tuples.setdefault(tuple(map(id, terms)), tuple(terms))  # the tuple kept holds them: no id reused

    def var(self, name: str) -> S.Var:
        found = self.vars.get(name)
        if found is None:
            found = self.vars[name] = S.Var(name)
        return found

    def const(self, value) -> S.Const:
        key = (type(value), value)  # 1 and True are equal, but not the same constant
        found = self.consts.get(key)
        if found is None:
            found = self.consts[key] = S.Const(value)
        return found


class _Located(Exception):
    """A problem at a place; ``echo``: whether its line is shown (not one too large to show)."""

    def __init__(self, at: S.Place, message: str, echo: bool = True):
        super().__init__(message)
        self.at, self.message, self.echo = at, message, echo


_KINDS = {"@rule": S.STRICT, "@default": S.DEFAULT, "@defeater": S.DEFEATER}
_KEYWORD = {kind: keyword for keyword, kind in _KINDS.items()}


class _Annotation:
    def __init__(self, rule_id, labels, source, at, kind=S.STRICT):
        self.rule_id, self.labels, self.source, self.at, self.kind = rule_id, labels, source, at, kind

    def __str__(self) -> str:
        return f"{_KEYWORD[self.kind]} {self.rule_id}"


class _Clause:
    def __init__(self, head, body, at):
        self.head, self.body, self.at = head, body, at


class _FactBlock:
    """A table: facts that share one id, labels and source (``@facts id … { … }``)."""

    def __init__(self, annotation, clauses):
        self.annotation, self.clauses, self.at = annotation, clauses, annotation.at


def parse(text: str, path: str = "<input>") -> S.Module:
    """Parse one KB file's text; raise :class:`KBError` on a syntax error.

    Lines that hold only plain facts (``e(子, 丑). e(丑, 寅).``) between statements are read by
    :class:`_Facts`, a direct reading of the same grammar's terminals; lark parses the rest
    (a large table of facts parses about 30 times faster so)."""
    with collection_paused():  # a parse makes many small nodes and no cycle
        return _parse(text, path)


def _parse(text: str, path: str) -> S.Module:
    lines = text.splitlines()
    longest = max(range(len(lines)), key=lambda k: len(lines[k]), default=0)
    if lines and len(lines[longest]) > MAX_LINE:
        raise KBError([Problem(Position(path, longest + 1, MAX_LINE + 1),
                               f"a line of {len(lines[longest])} characters (at most {MAX_LINE})")])
    terms = _Terms()
    facts = _Facts(path, terms)
    rest = facts.take(text)
    try:
        tree = _parser().parse(rest)
        _check_nesting(tree, path)
        items = list(heapq.merge(_Builder(path, terms).transform(tree).children, facts.items,
                                 key=lambda item: item.at[1:]))
    except UnexpectedInput as error:
        raise KBError([_syntax_problem(error, path, lines)]) from None
    except VisitError as error:
        located = error.orig_exc
        if isinstance(located, _Located):
            raise KBError([_problem(located.at, located.message, lines if located.echo else [])]) from None
        raise
    return _assemble(items, path, lines)


def _check_nesting(tree: Tree, path: str) -> None:
    """A KBError at the first statement nested deeper than :data:`MAX_NESTING` (walked without
    recursion: building such a statement, and evaluating it, would exhaust Python's stack)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            raise KBError([_problem((path, getattr(meta, "line", 1), getattr(meta, "column", 1)),
                                    f"an expression nested more than {MAX_NESTING} levels deep; "
                                    "split it into steps (a rule for each part)", [])])
        stack += [(child, depth + 1) for child in node.children if isinstance(child, Tree)]


class _Facts:
    """Reads the lines that hold nothing but facts, as lark would, and blanks them for lark."""

    def __init__(self, path: str, terms: _Terms):
        self.path = path
        self.terms = terms
        self.items: list[_Clause] = []

    def take(self, text: str) -> str:
        """The text with each line of plain facts outside a statement blanked; its facts in ``items``."""
        fact, line_re, terminal = _fact_patterns()
        out, open_statement, in_table = [], False, False
        for number, line in enumerate(text.split("\n"), 1):
            if not open_statement and line_re.fullmatch(line):
                clauses = [self._clause(m, line, number, terminal) for m in fact.finditer(line)]
                if all(clauses):
                    self.items += clauses
                    out.append("")
                    continue
            out.append(line)
            code = _CODE.sub(lambda m: "" if m.group(0).startswith("%") else m.group(0), line).rstrip()
            if code.startswith("@facts"):  # a table's facts stay inside it, for lark
                in_table = not code.endswith("}")
            elif in_table and code.endswith("}"):
                in_table = False
            open_statement = in_table or (bool(code) and not code.endswith(".") if code else open_statement)
        return "\n".join(out)

    def _clause(self, match, line: str, number: int, terminal) -> "_Clause | None":
        at = (self.path, number, match.start(1) + 1)
        args, places = [], []
        for const in _ARGUMENT.finditer(line, match.start(2), match.end(2)):
            token = const.group()
            if token[0] == '"':
                if len(token) - 2 > MAX_STRING:
                    return None  # lark says what is wrong
                value = _unquote(token)
            else:
                kind = terminal(token)
                if kind is None:
                    return None  # a keyword or a number too long: lark says what it is
                value = int(token) if kind == "INT" else traditional(token) if kind == "CJK" else token
            args.append(self.terms.const(value))
            places.append((self.path, number, const.start() + 1))
        return _Clause(S.Atom(match.group(1), self.terms.args(args), tuple(places), at), (), at)


@lru_cache(maxsize=1)
def _fact_patterns():
    """Regular expressions for a fact and a line of facts, from the grammar's own terminals."""
    patterns = {t.name: t.pattern.to_regexp() for t in _parser().terminals}
    constant = "|".join(f"(?:{patterns[n]})" for n in ("STRING", "INT", "NAME", "CJK")) + r"|-[0-9]+"
    ws, constant = r"[ \t\f\r]*", f"(?:{constant})"
    fact = rf"({patterns['NAME']}){ws}\(((?:{ws}{constant}(?:{ws},{ws}{constant})*)?){ws}\){ws}\."
    line = rf"{ws}(?:{fact}{ws})+(?:%[^\n]*)?"
    others = [(t.name, re.compile(t.pattern.to_regexp())) for t in _parser().terminals
              if t.name not in ("STRING", "INT", "NAME", "CJK")]

    @lru_cache(maxsize=4096)
    def terminal(token: str) -> str | None:
        if token[0] == "-" or token.isdigit():
            return "INT" if len(token.lstrip("-")) <= MAX_DIGITS else None  # lark says what is wrong
        if re.fullmatch(patterns["NAME"], token):
            return None if any(p.fullmatch(token) for _, p in others) else "NAME"
        return "CJK"

    return re.compile(fact), re.compile(line), terminal


_ARGUMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|[^ \t\f\r,()"]+')
_CODE = re.compile(r'"(?:\\.|[^"\\\n])*"|%[^\n]*|[^"%]+|"')


def parse_file(path, display: str | None = None) -> S.Module:
    """Read and parse a KB file (cached by its bytes); undecodable bytes are a located error too."""
    return parse_source(Path(path).read_bytes(), display or str(path))


def parse_source(data: bytes, name: str) -> S.Module:
    """Parse the bytes of a KB file shown as ``name`` (cached by its bytes)."""
    return cache.module(name, data, lambda: _parse_bytes(data, name))


def _parse_bytes(data: bytes, name: str) -> S.Module:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1) + 1
        raise KBError([Problem(Position(name, line, col), "this byte is not UTF-8 text")]) from None
    return parse(text, name)


def _assemble(items, path: str, lines: list[str]) -> S.Module:
    module = S.Module(path, lines=lines)
    pending: _Annotation | None = None
    problems: list[Problem] = []
    stem = path.rsplit("/", 1)[-1].removesuffix(".dl")

    def unfollowed():
        problems.append(_problem(pending.at, f"{pending} is not followed by a rule", lines))

    for item in items:
        if isinstance(item, S.KindDecl):
            module.kinds.append(item)
        elif isinstance(item, S.PredDecl):
            module.preds.append(item)
        elif isinstance(item, S.Prefer):
            module.prefers.append(item)
        elif isinstance(item, _FactBlock):
            if pending is not None:
                unfollowed()
                pending = None
            table = item.annotation
            for clause in item.clauses:
                if clause.body:
                    problems.append(_problem(clause.at, f"@facts {table.rule_id} holds facts only: put this rule outside the block", lines))
                else:
                    module.rules.append(S.Rule(clause.head, (), table.rule_id, table.labels, table.source, True, at=clause.at))
        elif isinstance(item, _Annotation):
            if pending is not None:
                unfollowed()
            pending = item
        else:
            if pending is not None and not item.body and pending.kind == S.STRICT:
                problems.append(_problem(pending.at, f"@rule {pending.rule_id} annotates a fact; facts need no rule id", lines))
                pending = None
            if pending is not None:
                rule = S.Rule(item.head, item.body, pending.rule_id, pending.labels, pending.source, True,
                              pending.kind, at=item.at)
                pending = None
            else:
                rule = S.Rule(item.head, item.body, f"{stem}.{item.at[1]}", at=item.at)
            module.rules.append(rule)
    if pending is not None:
        unfollowed()
    if problems:
        raise KBError(problems)
    return module


def _problem(at: S.Place, message: str, lines: list[str]) -> Problem:
    line = at[1]
    return Problem(Position(*at), message, lines[line - 1] if 0 < line <= len(lines) else "")


def _syntax_problem(error: UnexpectedInput, path: str, lines: list[str]) -> Problem:
    line = getattr(error, "line", None) or max(len(lines), 1)
    column = getattr(error, "column", None) or 1
    if isinstance(error, UnexpectedEOF) or (isinstance(error, UnexpectedToken) and error.token.type == "$END"):
        found = "the end of the file"
        line, column = max(len(lines), 1), len(lines[-1]) + 1 if lines else 1
    elif isinstance(error, UnexpectedToken):
        found = repr(str(error.token))
    elif isinstance(error, UnexpectedCharacters):
        found = repr(error.char)
    else:
        found = "this"
    expected = sorted({_describe(t) for t in (getattr(error, "expected", None) or getattr(error, "allowed", None) or ())})
    message = f"unexpected {found}"
    if expected:
        message += "; expected " + (expected[0] if len(expected) == 1 else "one of: " + ", ".join(expected))
    return _problem((path, line, column), message, lines)
