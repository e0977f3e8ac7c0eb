"""The liuren command under hostile and careless input: one line, a clean status, no lost data."""
from __future__ import annotations

import os
import subprocess
import sys
import webbrowser
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liuren_logic import cli
from liuren_logic import session as session_module
from liuren_logic.cli import main

CHART = ["--day", "辛巳", "--offset", "3"]
AUDIT = ["audit", "--vs", "punishment=seed000", "--times", "day"]
MINE = '@pred mine(x: branch) zh "{x}" en "{x}".\nmine(子).\n'


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Hostile files: a symlink loop, a FIFO, a non-UTF-8 name, a huge number, cases that are not cases."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "loop.dl").symlink_to(folder / "loop2.dl")
    (folder / "loop2.dl").symlink_to(folder / "loop.dl")
    os.mkfifo(folder / "fifo")
    (folder / "mine.dl").write_text(MINE, "utf-8")
    Path(os.fsdecode(os.fsencode(folder) + b"/mine\xff.dl")).write_text(MINE, "utf-8")
    (folder / "huge.dl").write_text("@pred big(n: int).\nbig(" + "7" * 5000 + ").\n", "utf-8")
    (folder / "ints.json").write_text("[1]", "utf-8")
    (folder / "broken.json").write_text('[\n {"day": "辛巳",\n', "utf-8")
    (folder / "typed.json").write_text('[{"day": 1, "yuejiang": "寅", "hour": "午", "sanchuan": "午寅戌"}]', "utf-8")
    (folder / "pillar.json").write_text('[{"seq": 7, "day": "甲丑", "yuejiang": "寅", "hour": "午", "sanchuan": "午寅戌"}]',
                                        "utf-8")
    return folder


@pytest.mark.parametrize("argv, words", [
    ([*AUDIT[:3], "--from", "2024-01-01 00:00", "--to", "2024-01-02 00:00", "--step", "infh"], "--step 'infh'"),
    ([*AUDIT[:3], "--from", "2024-01-01 00:00", "--to", "2024-01-02 00:00", "--step", "1e300h"], "--step '1e300h'"),
    ([*AUDIT[:3], "--from", "2024-01-01 00:00+08:00", "--to", "2024-01-02 00:00"], "a UTC offset on both or on neither"),
    ([*AUDIT, "--explain", "辛巳/²"], "辛巳/²"),
    (["cast", *CHART, "--kb", "{files}/loop.dl"], "no KB file"),
    (["cast", *CHART, "--kb", "{files}/fifo"], "no KB file"),
    (["cast", *CHART, "--kb", "{files}/huge.dl"], "huge.dl:2:5: a number of 5000 digits"),
    ([*AUDIT, "--cases", "{files}/ints.json"], "case 1: expected an object"),
    ([*AUDIT, "--cases", "{files}/typed.json"], "case 1: day is missing or not text"),
    ([*AUDIT, "--cases", "{files}/broken.json"], "broken.json:3:1:"),
    ([*AUDIT, "--cases", "{files}/pillar.json"], "case 7: impossible pillar 甲丑"),
    ([*AUDIT, "--cases", "{files}/fifo"], "--cases: {files}/fifo is not a regular file"),
    ([*AUDIT, "--cases", "/dev/zero"], "--cases: /dev/zero is not a regular file"),
    (["kb", "check", "{files}/loop.dl"], "no KB file"),
    (["serve", "--port", "70000"], "--port 70000 is not a port"),
    (["serve", "--host", "0.0.0.0"], "loopback interface only"),
])
def test_hostile_input_is_one_line_and_exit_2(capsys, files, argv, words):
    code, _, err = run(capsys, *(a.format(files=files) for a in argv))
    assert code == 2 and words.format(files=files) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) in (1, 3)  # one line, or one KB problem with its source line and caret


def test_an_unreadable_kb_file_is_one_line(capsys, files, monkeypatch):
    def denied(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", denied)
    code, _, err = run(capsys, "kb", "check", "--alone", files / "mine.dl")
    assert code == 2 and err == f"liuren: cannot read KB file {files}/mine.dl: Permission denied\n"


def test_a_cases_file_over_the_limit_is_refused_unread(capsys, files, monkeypatch):
    monkeypatch.setattr(cli, "CASES_LIMIT", 2)
    code, _, err = run(capsys, *AUDIT, "--cases", files / "ints.json")
    assert code == 2 and "larger than 2 bytes" in err


def test_a_path_that_is_not_utf8_is_named_with_an_escape(capsys, files):
    name = os.fsdecode(os.fsencode(files) + b"/mine\xff.dl")
    code, out, _ = run(capsys, "kb", "show", "mine", "--kb", name)
    assert code == 0 and "mine\\udcff.dl:2" in out


def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch):
    def interrupted(_):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_cast", interrupted)
    code, _, err = run(capsys, "cast", *CHART)
    assert code == 130 and err == "liuren: interrupted\n"


def test_an_ascii_terminal_gets_escapes_not_a_traceback(tmp_path):
    liuren = [sys.executable, "-m", "liuren_logic.cli"]
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([*liuren, "cast", *CHART], env=env, capture_output=True, text=True, encoding="ascii")
    assert done.returncode == 0 and "\\u" in done.stdout and not done.stderr
    done = subprocess.run([*liuren, "cast", "--day", "甲丑", "--offset", "3"], env=env, capture_output=True,
                          text=True, encoding="ascii")
    assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_control_characters_from_kb_files_are_escaped(capsys, tmp_path):
    kb = tmp_path / "colour.dl"
    kb.write_text('@pred note(x: text).\nnote("\x1b[2J\u202ered").\n\x1b[31m oops\n', "utf-8")
    code, _, err = run(capsys, "kb", "check", kb)
    assert code == 1 and "\x1b" not in err and "\\u001b[31m oops" in err
    kb.write_text('@pred note(x: text).\nnote("\x1b[2J\u202ered").\n', "utf-8")
    code, out, _ = run(capsys, "kb", "show", "note", "--kb", kb)
    assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\\u001b[2J\\u202ered" in out


def test_output_replaces_the_file_whole_or_not_at_all(capsys, tmp_path, monkeypatch):
    target = tmp_path / "why.txt"
    target.write_text("the old answer\n", "utf-8")
    os.chmod(target, 0o640)
    code, _, _ = run(capsys, "why", "initial", *CHART, "-o", target)
    assert code == 0 and "zeike" in target.read_text("utf-8") and (target.stat().st_mode & 0o777) == 0o640
    target.write_text("the old answer\n", "utf-8")

    def full_disk(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    code, _, err = run(capsys, "why", "initial", *CHART, "-o", target)
    assert code == 2 and "No space left on device" in err and len(err.splitlines()) == 1
    assert target.read_text("utf-8") == "the old answer\n" and sorted(tmp_path.iterdir()) == [target]


def test_output_never_overwrites_a_file_it_reads(capsys, tmp_path):
    mine, school = tmp_path / "mine.dl", tmp_path / "mine.toml"
    mine.write_text(MINE, "utf-8")
    school.write_text('name = "mine"\n', "utf-8")
    for argv in (["--kb", mine, "-o", mine], ["--school", school, "-o", school], ["--kb", mine, "-o", tmp_path / "." / "mine.dl"]):
        code, _, err = run(capsys, "why", "initial", *CHART, *argv)
        assert code == 2 and "is one of the files read" in err
    assert mine.read_text("utf-8") == MINE and school.read_text("utf-8") == 'name = "mine"\n'


def test_an_incomplete_school_takes_the_defaults_and_says_so(capsys, tmp_path):
    _, expected, _ = run(capsys, "cast", *CHART)
    partial = tmp_path / "partial.toml"
    partial.write_text('name = "partial"\n[readings]\npunishment = "common"\n', "utf-8")
    for engine in ("materialise", "pydatalog"):
        code, out, err = run(capsys, "cast", *CHART, "--school", partial, "--engine", engine)
        assert code == 0 and out == expected.replace("門派: default", "門派: partial") and "None" not in out
        assert err.startswith("liuren: note: school partial leaves these to the default school: include=core,")
        assert "noble=jia_niu" in err and "punishment" not in err and len(err.splitlines()) == 1


DEEP = ("@pred hop(a: int, b: int).\n@pred reach(a: int).\n@pred zero(a: int).\n"
        + " ".join(f"hop({i}, {i + 1})." for i in range(300))
        + "\nreach(0).\nreach(Y) :- reach(X), hop(X, Y).\nzero(Y) :- hop(X, _), Y = X mod 0.\n")


@pytest.mark.parametrize("engine", ["materialise", "pydatalog"])
def test_a_derivation_too_deep_to_draw_and_mod_0_are_the_same_one_line_under_both_engines(capsys, tmp_path,
                                                                                          monkeypatch, engine):
    (tmp_path / "deep.dl").write_text(DEEP, "utf-8")
    monkeypatch.setattr(session_module, "Session", _sessions)
    code, out, err = run(capsys, "why", "reach(250)", "--kb", tmp_path / "deep.dl", "--engine", engine)
    assert code == 0 and "hop(249, 250)" in out
    code, _, err = run(capsys, "why", "reach(300)", "--kb", tmp_path / "deep.dl", "--engine", engine)
    assert code == 2 and err == ("liuren: the derivation of reach(300) is 300 steps deep, 300 of them by rule deep.6 "
                                 f"({tmp_path}/deep.dl:6:1) deriving reach; at most 250 can be drawn: ask about an "
                                 "atom nearer the facts\n")
    code, _, err = run(capsys, "why", "zero(_)", "--kb", tmp_path / "deep.dl", "--engine", engine)
    assert code == 2 and err == "liuren: zero(_) does not hold; ask why-not\n"  # mod 0 has no value


def test_a_query_of_the_wrong_arity_is_one_clear_error_under_both_engines():
    from liuren_logic.checker import check
    from liuren_logic.engine import PyDatalog
    from liuren_logic.errors import InputError
    from liuren_logic.evaluate import Materialisation
    from liuren_logic.parser import parse
    from liuren_logic.program import KnowledgeBase

    kb = KnowledgeBase(check([parse(DEEP, "deep.dl")]))
    for engine in (PyDatalog(kb), Materialisation(kb)):
        with pytest.raises(InputError, match=r"^hop takes 2 arguments \(a, b\), not 1$"):
            engine.query("hop", [None])
        with pytest.raises(InputError, match=r"^unknown relation 'hops'$"):
            engine.query("hops", [None, None])


class _Sessions:
    """Session, built once per distinct set of arguments (the CLI fuzz casts many charts with few schools)."""

    def __init__(self):
        self.made, self.real = {}, session_module.Session

    def __call__(self, school="default", readings=None, extra=(), engine="materialise"):
        key = (school, tuple(sorted((readings or {}).items())), tuple(map(str, extra)), engine)
        if key not in self.made:
            self.made[key] = self.real(school, readings, extra, engine)
        return self.made[key]


_sessions = _Sessions()
VALUES = st.one_of(
    st.sampled_from(["辛巳", "癸亥", "甲子", "甲丑", "寅", "午", "子", "X", "3", "-1", "12", "99999999999999999999", "nan",
                     "1998-11-30 12:00", "2024-01-01 00:00+08:00", "9999-12-31 23:59", "0001-01-01", "Asia/Shanghai",
                     "Mars/Base", "2h", "infh", "1e300h", "0h", "punishment=seed000", "noble=x", "=", "zh", "en",
                     "clashes(子, 午)", "clashes(子, 丑)", "clashes(子", "initial", "method", "noble", "lesson1",
                     "辛巳/3", "辛巳/²", "辛巳/3/night", "default", "nosuch", "json", "png", "dot", "text",
                     "{mine}", "{loop}", "{fifo}", "{huge}", "{ints}", "{broken}", "/dev/zero", "{out}", "",
                     "\x1b[31m", "‮", "127.0.0.1", "::1", "0.0.0.0", "localhost", "65536", "0"]),
    st.text(max_size=8),
)
OPTIONS = st.sampled_from(["--day", "--jiang", "--hour", "--month", "--year", "--offset", "--night", "--at", "--tz", "--longitude",
                           "--latitude", "--school", "--reading", "--kb", "--engine", "--json", "--lang",
                           "--simplified", "--format", "-o", "--full", "--depth", "--vs", "--from", "--to",
                           "--step", "--explain", "--cases", "--limit", "--times", "--alone", "--compiled",
                           "--interactive", "--help", "--host", "--port", "--open", "--quiet"])
COMMANDS = st.sampled_from([["cast"], ["why"], ["why-not"], ["teach"], ["page"], ["audit"], ["kb", "check"],
                            ["kb", "show"], ["table"], ["serve"], ["nosuch"], []])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(COMMANDS, st.sampled_from([[], CHART, ["--at", "1998-11-30 12:00"]]), st.lists(st.one_of(OPTIONS, VALUES), max_size=6))
def test_random_arguments_end_cleanly(files, monkeypatch, command, chart, words):
    names = {"mine": files / "mine.dl", "loop": files / "loop.dl", "fifo": files / "fifo", "huge": files / "huge.dl",
             "ints": files / "ints.json", "broken": files / "broken.json", "out": files / "out.txt"}
    argv = command + chart + [w.format(**names) if w.startswith("{") and w.endswith("}") else w for w in words]
    if command == ["audit"] and "--from" not in argv:
        argv += ["--from", "1998-11-30 12:00"]  # a range of a few moments, not 1440 charts per example
    monkeypatch.setattr(session_module, "Session", _sessions)
    monkeypatch.setattr(ThreadingHTTPServer, "serve_forever", lambda server: None)  # serve: bind, then stop
    monkeypatch.setattr(webbrowser, "open", lambda url: True)
    try:
        code = main(argv)
    except SystemExit as done:  # --help
        code = done.code
    finally:
        (files / "mine.dl").write_text(MINE, "utf-8")  # in case it was an output
    assert code in (0, 1, 2), argv


def test_a_dollar_in_a_label_is_drawn_as_text(monkeypatch):
    pytest.importorskip("matplotlib")
    import networkx as nx

    from liuren_logic.explain import picture

    monkeypatch.setattr(picture, "cjk_font", lambda: "DejaVu Sans")  # the text here is Latin
    graph = nx.DiGraph(root="a")
    graph.add_node("a", kind="atom", text="p(x)", en="costs $\\frac{a}$ each", zh="$\\frac{a}$")
    graph.add_node("b", kind="fact", text="q(x)", en="q $x$", zh="q $x$", where="f.dl:1")
    graph.add_edge("a", "b")
    assert b"costs $\\frac{a}$ each" in picture.render(graph, "svg", "en", engine="matplotlib")
