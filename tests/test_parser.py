"""The KB grammar: what parses, what each node keeps, and clean errors for anything else."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic.datalog import parser
from liuren_logic.datalog import syntax as S
from liuren_logic.domain.errors import KBError
from liuren_logic.datalog.parser import parse


def problem(text: str):
    with pytest.raises(KBError) as caught:
        parse(text, "t.dl")
    return caught.value.problems[0]


def test_a_rule_keeps_its_annotation_and_positions():
    module = parse('@rule r.one zh "{X}" en "x {X}" source "000: 取課先從下賊呼".\n'
                   "p(X) :- q(X, _), not r(X), Y = (X + 1) mod 12, Y != 3.\n", "t.dl")
    (rule,) = module.rules
    assert rule.id == "r.one" and rule.annotated
    assert rule.label("zh") == "{X}" and rule.source == "000: 取課先從下賊呼"
    assert rule.pos.line == 2 and rule.pos.col == 1
    assert [type(l).__name__ for l in rule.body] == ["Atom", "Negation", "Comparison", "Comparison"]
    assert str(rule) == "p(X) :- q(X, _), not r(X), Y = ((X + 1) mod 12), Y != 3."


def test_terms_are_placed_by_the_node_they_stand_in_and_equal_terms_are_one_object():
    (rule,) = parse("p(X, 子) :- q(X, 子), Y = (X + 1) mod 12, C = count Z : { r(Z) }.\n", "t.dl").rules
    query, assign, total = rule.body
    assert rule.head.places == (("t.dl", 1, 3), ("t.dl", 1, 6))
    assert query.places == (("t.dl", 1, 14), ("t.dl", 1, 17))
    assert assign.places == (("t.dl", 1, 21), ("t.dl", 1, 26)) and assign.right.places == (("t.dl", 1, 26), ("t.dl", 1, 37))
    assert assign.right.left.places == (("t.dl", 1, 26), ("t.dl", 1, 30))
    assert total.places == (("t.dl", 1, 41), ("t.dl", 1, 51))
    assert rule.head.args[0] is query.args[0] is assign.right.left.left and rule.head.args is query.args


def test_a_table_of_facts_shares_one_id_labels_and_source():
    module = parse('@facts t.verse zh "寄宮歌" en "the lodging verse" source "000: 甲課寅兮乙課辰" {\n'
                   "  lodging(甲, 寅).\n  lodging(乙, 辰).\n}\n"  # the second line is a plain fact line, inside the table
                   '@rule r.one zh "x" en "x".\np(X) :- lodging(X, _).\n', "t.dl")
    first, second, rule = module.rules
    assert first.is_fact and first.annotated and (first.id, second.id) == ("t.verse", "t.verse")
    assert second.source == "000: 甲課寅兮乙課辰" and second.label("en") == "the lodging verse"
    assert (first.pos.line, second.pos.line, second.pos.col) == (2, 3, 3) and rule.id == "r.one"
    wrong = problem('@facts t.x zh "x" en "x" {\n  p(X) :- q(X).\n}\n')
    assert (wrong.position.line, wrong.position.col) == (2, 3) and "holds facts only" in wrong.message


def test_constants_kinds_and_simplified_characters_are_normalised():
    module = parse('@kind k: 贼克 1 yang.\nf(贼克, -2, "a b", yang).\n', "t.dl")
    assert module.kinds[0].members == ("賊剋", 1, "yang")
    assert [a.value for a in module.rules[0].head.args] == ["賊剋", -2, "a b", "yang"]


def test_aggregates_and_predicate_declarations():
    module = parse('@pred p(a: branch, n: int) zh "{a}" input.\n'
                   "q(C, M) :- r(C), M = max D : { s(C, _, D) }.\n", "t.dl")
    decl = module.preds[0]
    assert decl.params == (("a", "branch"), ("n", "int")) and decl.input
    aggregate = module.rules[0].body[1]
    assert isinstance(aggregate, S.Aggregate) and aggregate.func == "max" and aggregate.term.name == "D"


@pytest.mark.parametrize("text, line, col, words", [
    ("p(X) :- q(X)\nr(a).", 2, 1, "unexpected 'r'"),
    ("p(X) :- q(X), @.", 1, 15, "unexpected '@'"),
    ("p(X :- q(X).", 1, 5, "unexpected ':-'"),
    ("p(a)", 1, 5, "the end of the file"),
    ('@rule x.y zh "a".', 1, 1, "not followed by a rule"),
    ('@rule x.y zh "a".\np(a).', 1, 1, "annotates a fact"),
    ("p(X) :- N = count : { q(X) }.", 1, 19, "unexpected ':'"),
])
def test_syntax_errors_name_line_and_column(text, line, col, words):
    found = problem(text)
    assert (found.position.line, found.position.col) == (line, col)
    assert words in found.message
    assert str(found).startswith(f"t.dl:{line}:{col}: ")


def test_python_in_a_kb_file_is_inert_text():
    # as a constant it is quoted text; as code it is a syntax error; nothing runs either way
    module = parse('f("__import__(\'os\').system(\'touch /tmp/pwned\')").', "t.dl")
    assert module.rules[0].head.args[0].value.startswith("__import__")
    found = problem("__import__('os').system('touch /tmp/pwned').")
    assert found.position.line == 1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash_the_parser(data):
    text = data.decode("utf-8", errors="replace")
    try:
        parse(text, "fuzz.dl")
    except KBError as error:
        assert all(p.position.line >= 1 and p.position.col >= 1 for p in error.problems)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="pqX_(),.:-%\n 子午=<>!{}@\"1", max_size=60))
def test_near_miss_programs_give_clean_errors(text):
    try:
        parse(text, "fuzz.dl")
    except KBError as error:
        assert error.problems


def test_parsed_files_are_cached_by_their_bytes(tmp_path, monkeypatch):
    from liuren_logic.datalog import cache
    from liuren_logic.datalog.parser import parse_file

    monkeypatch.setenv("LIUREN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_memory", {})
    kb_file = tmp_path / "one.dl"
    kb_file.write_text("p(子).\n", "utf-8")
    first = parse_file(kb_file, "one.dl")
    (stored,) = (tmp_path / "cache").glob("*.json")
    stored.write_bytes(b"not an entry")  # a damaged entry is recomputed, not trusted
    monkeypatch.setattr(cache, "_memory", {})
    assert parse_file(kb_file, "one.dl") == first
    kb_file.write_text("p(丑).\n", "utf-8")  # new bytes, new key
    assert parse_file(kb_file, "one.dl").rules[0].head.args[0].value == "丑"


def test_minus_between_numbers_is_subtraction_and_before_a_number_its_sign():
    rule = parse("p(Y) :- q(X), Y = X-1-2, Y != -3.", "t.dl").rules[0]
    assert str(rule) == "p(Y) :- q(X), Y = ((X - 1) - 2), Y != -3."
    assert parse("p(- 4).", "t.dl").rules[0].head.args[0].value == -4


LINES = ['e(子, 丑). e("a b", -2).   % two facts', "h(X) :-", "  e(X, 丑).", 'f(a, "x%y").', "e(not, 1).",
         "f(贼克).", '@rule r.x zh "a.".', "g(X) :- e(X, _).", "  f(zh).", "e(a b)."]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=8))
def test_lines_of_plain_facts_read_as_lark_reads_them(lines):
    """Fact lines are read directly, other lines by lark: the same nodes, positions and errors."""
    text = "\n".join(lines)
    direct = _outcome(text)
    original = parser._Facts.take
    parser._Facts.take = lambda self, text: text  # every line to lark
    try:
        assert _outcome(text) == direct
    finally:
        parser._Facts.take = original


def _outcome(text: str):
    try:
        return [(str(r), r.id, r.pos, r.head.places) for r in parse(text, "t.dl").rules]
    except KBError as error:
        return str(error)


def test_lines_and_strings_are_bounded_in_size_with_one_located_line(monkeypatch):
    """Past MAX_LINE or MAX_STRING: one problem naming the place and both sizes, the line not echoed."""
    monkeypatch.setattr(parser, "MAX_LINE", 40)
    monkeypatch.setattr(parser, "MAX_STRING", 5)
    found = problem("s(子).\n" + "s(子). " * 7 + "\n")
    assert (str(found.position), found.message, found.source_line) == \
        ("t.dl:2:41", "a line of 42 characters (at most 40)", "")
    for text, col in [('s("abcdef").\n', 3), ('p(X) :- q(X), X = "abcdef".\n', 19),
                      ('@rule r.one zh "abcdef".\np(X) :- q(X).\n', 16)]:  # read as facts, and by lark
        found = problem(text)
        assert (found.position.col, found.message, str(found).count("\n")) == \
            (col, "a string of 6 characters (at most 5)", 0), text
    assert parse('s("abcde").\n', "t.dl").rules[0].head.args[0].value == "abcde"
