"""The liuren command under hostile and careless input: one line, a clean status, no lost data."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import webbrowser
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liuren_logic.faces import cli
from liuren_logic.domain import session as session_module
from liuren_logic.faces.cli import main

CHART = ["--day", "辛巳", "--offset", "3"]
AUDIT = ["audit", "--vs", "punishment=seed000", "--times", "day"]
AT = ["cast", "--at", "2020-01-01 12:00", "--tz", "Asia/Shanghai"]
MINE = '@pred mine(x: branch) zh "{x}" en "{x}".\nmine(子).\n'
LONG = "/tmp/" + "a" * 300 + "/" + "b" * 300  # a name the system refuses: ENAMETOOLONG
LIUREN = [sys.executable, "-m", "liuren_logic.faces.cli"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_en(capsys, *argv):
    """``run`` under ``--lang en``: for a test that asserts the English words of an error."""
    return run(capsys, *argv, "--lang", "en")


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
    (folder / "ro.txt").write_text("read-only\n", "utf-8")
    os.chmod(folder / "ro.txt", 0o444)
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
    (["cast", *CHART, "--kb", "{files}/fifo"], "KB file {files}/fifo is a FIFO, not a file of rules and facts"),
    (["cast", *CHART, "--kb", "{files}"], "KB file {files} is a directory, not a file of rules and facts"),
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
    code, _, err = run_en(capsys, *(a.format(files=files) for a in argv))
    assert code == 2 and words.format(files=files) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) in (1, 3)  # one line, or one KB problem with its source line and caret


def test_an_unreadable_kb_file_is_one_line(capsys, files, monkeypatch):
    def denied(path):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", denied)
    code, _, err = run_en(capsys, "kb", "check", "--alone", files / "mine.dl")
    assert code == 2 and err == f"liuren: cannot read KB file {files}/mine.dl: Permission denied\n"


def test_a_cases_file_over_the_limit_is_refused_unread(capsys, files, monkeypatch):
    monkeypatch.setattr(cli, "CASES_LIMIT", 2)
    code, _, err = run_en(capsys, *AUDIT, "--cases", files / "ints.json")
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
    assert code == 130 and err == "liuren: 已中斷\n"
    code, _, err = run(capsys, "cast", *CHART, "--lang", "en")
    assert code == 130 and err == "liuren: interrupted\n"
    code, _, err = run(capsys, "cast", *CHART, "--simplified")
    assert code == 130 and err == "liuren: 已中断\n"


def test_an_ascii_terminal_gets_escapes_not_a_traceback(tmp_path):
    liuren = [sys.executable, "-m", "liuren_logic.faces.cli"]
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
    assert code == 0 and "⇐ 取賊剋，" in target.read_text("utf-8") and (target.stat().st_mode & 0o777) == 0o640
    target.write_text("the old answer\n", "utf-8")

    def full_disk(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    code, _, err = run_en(capsys, "why", "initial", *CHART, "-o", target)
    assert code == 2 and "No space left on device" in err and len(err.splitlines()) == 1
    assert target.read_text("utf-8") == "the old answer\n" and sorted(tmp_path.iterdir()) == [target]


def test_output_never_overwrites_a_file_it_reads(capsys, tmp_path):
    mine, school = tmp_path / "mine.dl", tmp_path / "mine.toml"
    mine.write_text(MINE, "utf-8")
    school.write_text('name = "mine"\n', "utf-8")
    for argv in (["--kb", mine, "-o", mine], ["--school", school, "-o", school], ["--kb", mine, "-o", tmp_path / "." / "mine.dl"]):
        code, _, err = run_en(capsys, "why", "initial", *CHART, *argv)
        assert code == 2 and "is one of the files read" in err
    assert mine.read_text("utf-8") == MINE and school.read_text("utf-8") == 'name = "mine"\n'


def test_an_incomplete_school_takes_the_defaults_and_says_so(capsys, tmp_path):
    _, expected, _ = run(capsys, "cast", *CHART)
    partial = tmp_path / "partial.toml"
    partial.write_text('name = "partial"\n[readings]\npunishment = "common"\n', "utf-8")
    for engine in ("materialise", "pydatalog"):
        code, out, err = run(capsys, "cast", *CHART, "--school", partial, "--engine", engine)
        assert code == 0 and out == expected.replace("門派：通行", "門派：partial") and "None" not in out
        assert err.startswith("liuren: note: school partial leaves these to the default school: include=core,")
        assert "noble=jia_niu" in err and "punishment" not in err and len(err.splitlines()) == 1


DEEP = ("@pred hop(a: int, b: int).\n@pred reach(a: int).\n@pred zero(a: int).\n"
        + " ".join(f"hop({i}, {i + 1})." for i in range(300))
        + "\nreach(0).\nreach(Y) :- reach(X), hop(X, Y).\nzero(Y) :- hop(X, _), Y = X mod 0.\n")


@pytest.mark.parametrize("engine", ["materialise", "pydatalog"])
def test_a_derivation_too_deep_to_draw_and_mod_0_are_the_same_one_line_under_both_engines(capsys, tmp_path,
                                                                                          monkeypatch, engine):
    """(The pyDatalog engine takes a user's rules as a library call only: the command line refuses them,
    test_pydatalog_refuses_a_users_rules; the library's engines are compared in tests/conformance.py.)"""
    from liuren_logic.domain import session

    (tmp_path / "deep.dl").write_text(DEEP, "utf-8")
    monkeypatch.setattr(session, "_shipped_rules_only", lambda kb: None)
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
    from liuren_logic.datalog.checker import check
    from liuren_logic.datalog.pydatalog_backend import PyDatalog
    from liuren_logic.domain.errors import InputError
    from liuren_logic.datalog.evaluate import Materialisation
    from liuren_logic.datalog.parser import parse
    from liuren_logic.datalog.program import KnowledgeBase

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
        named = school if isinstance(school, str) else (school.name, tuple(sorted(school.readings.items())))
        key = (named, tuple(sorted((readings or {}).items())), tuple(map(str, extra)), engine)  # a School is no key
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
                     "\x1b[31m", "‮", "127.0.0.1", "::1", "0.0.0.0", "localhost", "65536", "0",
                     "\x00", "{long}", "{dir}", "{ro}", "/dev/full", "10000", "9" * 5000 + "-01-01 12:00",
                     "x" * 300, "../../core/symbols", "punishment=../../core/symbols", "punishment=x/y.dl"]),
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
             "ints": files / "ints.json", "broken": files / "broken.json", "out": files / "out.txt",
             "long": LONG + ".dl", "dir": files, "ro": files / "ro.txt"}
    argv = command + chart + [w.format(**names) if w.startswith("{") and w.endswith("}") else w for w in words]
    if command == ["audit"] and "--from" not in argv:
        argv += ["--from", "1998-11-30 12:00"]  # a range of a few moments, not 1440 charts per example
    monkeypatch.setattr(session_module, "Session", _sessions)
    monkeypatch.setattr(ThreadingHTTPServer, "serve_forever", lambda server: None)  # serve: bind, then stop
    monkeypatch.setattr(webbrowser, "open", lambda url: True)
    monkeypatch.chdir(files)  # an output named by a bare word (-o json) lands here
    try:
        code = main(argv)
    except SystemExit as done:  # --help
        code = done.code
    finally:
        (files / "mine.dl").write_text(MINE, "utf-8")  # in case it was an output
    assert code in (0, 1, 2), argv
    assert (files / "ro.txt").read_text("utf-8") == "read-only\n"




def one_line(code: int, err: str, status: int = 2) -> bool:
    return code == status and len(err.splitlines()) == 1 and "Traceback" not in err and len(err) < 400


@pytest.mark.parametrize("argv, words", [
    (["cast", *CHART, "--kb", LONG + ".dl"], "KB file: cannot read /tmp/aaa"),
    (["cast", *CHART, "--school", LONG + ".toml"], "school file: cannot read /tmp/aaa"),
    (["cast", *CHART, "--reading", f"punishment={LONG}.dl"], "reading punishment: cannot read /tmp/aaa"),
    ([*AUDIT[:1], "--vs", LONG + ".toml"], "school file: cannot read /tmp/aaa"),
    (["kb", "check", LONG + ".dl"], "KB file: cannot read /tmp/aaa"),
    (["kb", "check", "\x00"], "argument paths: '\\x00' holds a NUL character"),
    (["cast", *CHART, "--kb", "mine\x00.dl"], "argument --kb: 'mine\\x00.dl' holds a NUL character"),
    (["why", "initial", "--at", "9" * 5000 + "-01-01 12:00"], "a year of 5,000 digits is outside 1–9999"),
    (["cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--year", "10000"],
     "the year 10000 is out of range: a year number has at most four digits"),
    (["cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--born", "10000"], "the birth year 10000 is out of range"),
    (["cast", *CHART, "--reading", "punishment=../../core/symbols"], "no reading '../../core/symbols' of punishment"),
    (["cast", "--day", "x" * 40_000, "--offset", "3"], "cannot read the day 'xxxx"),
    ([*AUDIT, "--cases", "{files}"], "is not a regular file but a directory"),
    *[([*AT, f"--{name}={value}"], words) for name, value, words in [
        ("longitude", "nan", "longitude nan is not a number: expected degrees −180…180"),
        ("longitude", "inf", "longitude inf is outside −180…180"),
        ("longitude", "181", "longitude 181 is outside −180…180"),
        ("longitude", "", "--longitude: '' is not a number"),
        ("longitude", "abc", "--longitude: 'abc' is not a number"),
        ("latitude", "nan", "latitude nan is not a number: expected degrees −90…90"),
        ("latitude", "-inf", "latitude -inf is outside −90…90"),
        ("latitude", "91", "latitude 91 is outside −90…90"),
        ("latitude", "", "--latitude: '' is not a number"),
    ]],  # the warning that a coordinate is ignored waits until the moment is read: no second line
])
def test_each_reproduction_is_one_line_naming_what_is_wrong(capsys, files, argv, words):
    code, _, err = run(capsys, *(a.replace("{files}", str(files)) for a in argv), "--lang", "en")
    assert one_line(code, err) and words in err, err


def test_an_echoed_value_is_cut_with_its_length(capsys):
    code, _, err = run(capsys, "cast", "--day", "x" * 40_000, "--offset", "3", "--lang", "en")
    assert one_line(code, err) and f"'{'x' * 79}… (40,002 characters)" in err and "such as 辛巳" in err


@pytest.mark.parametrize("option", ["--kb", "--school", "--reading", "--vs", "kb check"])
def test_an_unreadable_folder_is_one_line(capsys, tmp_path, monkeypatch, option):
    denied = tmp_path / "denied"
    denied.mkdir()
    real = os.stat

    def stat(path, *args, **kwargs):  # as a folder of mode 000 answers a user (root reads it regardless)
        if str(path).startswith(str(denied)):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    argv = {"--kb": ["cast", *CHART, "--kb", denied / "x.dl"], "--school": ["cast", *CHART, "--school", denied / "x.toml"],
            "--reading": ["cast", *CHART, "--reading", f"punishment={denied}/x.dl"],
            "--vs": [AUDIT[0], "--vs", denied / "x.toml"], "kb check": ["kb", "check", denied / "x.dl"]}[option]
    code, _, err = run_en(capsys, *argv)
    assert one_line(code, err) and f"cannot read {denied}/x." in err and "Permission denied" in err


def test_an_unreadable_school_file_is_one_line(capsys, tmp_path, monkeypatch):
    school = tmp_path / "mine.toml"
    school.write_text('name = "mine"\n', "utf-8")
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                        if path == school else real(path))
    code, _, err = run_en(capsys, "cast", *CHART, "--school", school)
    assert one_line(code, err) and err == f"liuren: cannot read the school file {school}: Permission denied\n"


def test_a_school_including_a_missing_folder_names_it(capsys, tmp_path):
    school = tmp_path / "mine.toml"
    for folder in ("nosuch", "../../core", "schools"):
        school.write_text(f'name = "mine"\ninclude = ["core", "{folder}"]\n', "utf-8")
        code, _, err = run_en(capsys, "cast", *CHART, "--school", school)
        assert one_line(code, err) and f"school mine: include names '{folder}', which is no KB folder (folders: bifa," in err


def shell(command: str, **kwargs) -> subprocess.CompletedProcess:
    """``command`` run by bash, with ``$liuren`` the command line."""
    env = {**os.environ, "liuren": " ".join(LIUREN)}
    return subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.mark.parametrize("redirect, status, said", [
    ("> /dev/full", 74, "liuren: cannot write standard output: No space left on device\n"),
    (">&-", 74, "liuren: cannot write standard output: it is closed\n"),
    ("--json > /dev/full", 74, "liuren: cannot write standard output: No space left on device\n"),
    ("| head -c 1 > /dev/null; exit ${PIPESTATUS[0]}", 0, ""),  # a reader that stopped: quietly
])
def test_standard_output_that_fails_is_one_line_and_status_74(redirect, status, said):
    done = shell(f"$liuren table {redirect}" if "head" in redirect else f"$liuren cast {' '.join(CHART)} {redirect}")
    assert (done.returncode, done.stderr) == (status, said)


@pytest.mark.parametrize("redirect", ["2>&-", "2> /dev/full"])
def test_standard_error_that_fails_is_status_74_without_a_word(redirect):
    done = shell(f"$liuren cast --day 甲丑 --offset 3 {redirect}")
    assert done.returncode == 74 and done.stdout == ""
    done = shell(f"$liuren cast {' '.join(CHART)} {redirect}")  # nothing to say: the chart, status 0
    assert done.returncode == 0 and "三傳" in done.stdout


@pytest.mark.parametrize("redirect, said", [
    (">&-", "liuren: cannot write standard output: it is closed\n"),
    ("> /dev/full", "liuren: cannot write standard output: No space left on device\n"),
])
def test_serve_with_standard_output_refused_is_one_line_and_status_74(redirect, said):
    done = shell(f"timeout 60 $liuren serve --port 0 {redirect}")
    assert (done.returncode, done.stderr) == (74, said)


SERVE_STOPPED = "liuren serve: stopped: the reader of its standard output has gone (a closed pipe)\n"


def test_serve_into_a_pipe_its_reader_closed_stops_with_one_line():
    reading, writing = os.pipe()
    os.close(reading)  # gone before the server's first line
    try:
        done = subprocess.run([*LIUREN, "serve", "--port", "0"], stdout=writing,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (0, SERVE_STOPPED)


def test_serve_stops_with_one_line_when_its_reader_leaves_while_it_serves():
    """The log line of a request, which a connection's thread writes, stops the server: no traceback."""
    import urllib.error
    import urllib.request

    server = subprocess.Popen([*LIUREN, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        url = server.stdout.readline().split()[4]
        server.stdout.close()  # the reader leaves; the server is still serving
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url + "api/nosuch", timeout=30)
        assert refused.value.code == 404  # answered, then stopped
        assert server.wait(timeout=30) == 0 and server.stderr.read() == SERVE_STOPPED
    finally:
        server.kill()
        server.wait()
        server.stderr.close()

def test_a_closed_standard_input_with_interactive_prints_the_whole_lesson(capsys):
    done = shell(f"$liuren teach {' '.join(CHART)} --interactive <&-")
    _, expected, _ = run(capsys, "teach", *CHART)
    assert done.returncode == 0 and done.stdout == expected and done.stderr == ""


INTERRUPT_AT = """
import os, signal, sys
from importlib.abc import MetaPathFinder
from liuren_logic.faces.console import run

WHEN = sys.argv[1]


class Interrupt(MetaPathFinder):  # Ctrl-C as the named module starts to load
    def find_spec(self, name, path=None, target=None):
        if name == WHEN:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["liuren", "cast", "--day", "辛巳", "--offset", "3", *sys.argv[2:]]
sys.exit(run())
"""


@pytest.mark.parametrize("module", ["liuren_logic.faces.cli", "liuren_logic.domain.session", "liuren_logic.explain.board", "nosuch"])
def test_ctrl_c_at_any_moment_is_one_line_and_status_130(module):
    done = subprocess.run([sys.executable, "-c", INTERRUPT_AT, module], capture_output=True, text=True, timeout=120)
    if module == "nosuch":  # never imported: the chart
        assert done.returncode == 0 and "三傳" in done.stdout
    else:
        assert (done.returncode, done.stderr, done.stdout) == (130, "liuren: 已中斷\n", "")


@pytest.mark.parametrize("words, said", [(["--lang", "en"], "interrupted"), (["--lang=en", "--lang", "zh"], "已中斷"),
                                         (["--simplified"], "已中断")])
def test_ctrl_c_before_the_command_line_is_read_is_said_in_its_language(words, said):
    done = subprocess.run([sys.executable, "-c", INTERRUPT_AT, "liuren_logic.faces.cli", *words], capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stderr) == (130, f"liuren: {said}\n")


READY_THEN_RUN = """
import os, sys
from liuren_logic.faces.console import run  # as the console script begins

os.write(int(sys.argv[1]), b".")
sys.argv = ["liuren", *sys.argv[2:]]
sys.exit(run())
"""


def test_ctrl_c_while_a_module_makes_a_class_is_one_line_and_status_130(capsys, monkeypatch):
    """Python 3.11 wraps a KeyboardInterrupt raised while a class is made (a ``__set_name__``, as a
    dataclass's fields have) in RuntimeError; the command says it was interrupted all the same (a
    Ctrl-C that landed in ``class Rule`` of a late import printed a traceback)."""
    from liuren_logic.faces import cli

    class Interrupting:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    def dispatch(args):
        class Made:  # noqa: F841 - made to be interrupted
            field = Interrupting()

    monkeypatch.setattr(cli, "_dispatch", dispatch)
    assert cli.main(["cast", *CHART]) == 130 and capsys.readouterr().err == "liuren: 已中斷\n"
    monkeypatch.setattr(cli, "_dispatch", lambda args: raise_another_runtime_error())
    with pytest.raises(RuntimeError, match="not an interruption"):
        cli.main(["cast", *CHART])


def raise_another_runtime_error():
    raise RuntimeError("not an interruption")


def test_ctrl_c_at_moments_through_the_run_is_one_line_and_status_130():
    for wait in (0.0, 0.01, 0.03, 0.06, 0.1, 0.15, 0.25, 0.4):
        ready, told = os.pipe()
        child = subprocess.Popen([sys.executable, "-c", READY_THEN_RUN, str(told), "cast", *CHART], pass_fds=(told,),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.close(told)
        assert os.read(ready, 1) == b"."
        os.close(ready)
        try:
            child.wait(wait)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=120)
        assert (child.returncode, err) in ((130, "liuren: 已中斷\n"), (0, "")), (wait, err)


def package_targets() -> list[Path]:
    from liuren_logic.domain.school import kb_root

    return [kb_root() / "schools" / "default.toml", kb_root() / "core" / "symbols.dl", Path(cli.__file__),
            kb_root() / "core" / "new.txt"]


@pytest.mark.parametrize("target", package_targets(), ids=["default school", "KB file", "module", "new file"])
@pytest.mark.parametrize("argv", [["why", "initial", *CHART, "-o"], ["page", *CHART, "--output"],
                                  ["audit", "--vs", "default", "--times", "day", "--html"]], ids=["why", "page", "audit"])
def test_no_file_the_package_ships_is_an_output(capsys, argv, target):
    before = target.read_bytes() if target.exists() else None
    code, _, err = run_en(capsys, *argv, target)
    assert one_line(code, err) and ("is one of the package's own files" in err or "is one of the files read" in err)
    assert (target.read_bytes() if target.exists() else None) == before


def test_the_named_school_stays_a_school_after_an_output_was_refused(capsys):
    from liuren_logic.domain.school import kb_root

    run(capsys, "why", "initial", *CHART, "-o", kb_root() / "schools" / "default.toml")
    code, out, _ = run(capsys, "cast", *CHART)
    assert code == 0 and "門派：通行" in out


@pytest.mark.parametrize("kind", ["read-only", "FIFO", "device", "directory"])
def test_output_refuses_read_only_files_fifos_devices_and_directories(capsys, tmp_path, kind):
    target = {"device": Path("/dev/zero"), "directory": tmp_path}.get(kind, tmp_path / "target")
    if kind == "read-only":
        target.write_text("mine\n", "utf-8")
        os.chmod(target, 0o444)
    elif kind == "FIFO":
        os.mkfifo(target)  # writing would block until a reader came
    code, _, err = run_en(capsys, "why", "initial", *CHART, "-o", target)
    words = "is read-only; make it writable" if kind == "read-only" else f"is a {kind}, not a regular file"
    assert one_line(code, err) and words in err
    if kind == "read-only":
        assert target.read_text("utf-8") == "mine\n" and (target.stat().st_mode & 0o777) == 0o444


def test_a_target_is_refused_before_the_work(capsys, monkeypatch):
    from liuren_logic.domain import audit

    monkeypatch.setattr(audit, "compare", lambda *_, **__: pytest.fail("the audit ran before the refusal"))
    code, _, err = run_en(capsys, "audit", "--vs", "default", "--times", "day", "--html", "/dev/zero")
    assert one_line(code, err) and "--html: /dev/zero is a device" in err


def test_output_refuses_its_own_standard_output(tmp_path):
    printed = tmp_path / "printed.txt"
    printed.write_text("printed before\n", "utf-8")
    done = shell(f"$liuren why initial {' '.join(CHART)} --lang en -o /dev/stdout >> {printed}")
    assert done.returncode == 2 and "is one of this command's standard streams" in done.stderr
    assert printed.read_text("utf-8") == "printed before\n"  # was replaced by the derivation


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


@pytest.fixture
def fake_prefix(tmp_path, monkeypatch):
    """An interpreter prefix in a temporary folder (a venv's bin/liuren, pyvenv.cfg and a package's
    module), so that a refusal that fails costs nothing that is really installed."""
    prefix = tmp_path / "venv"
    for name, text in (("bin/liuren", "#!/usr/bin/python3\nimport sys\n"), ("pyvenv.cfg", "home = /usr/bin\n"),
                       ("lib/site-packages/lark/__init__.py", "__version__ = '1'\n")):
        (prefix / name).parent.mkdir(parents=True, exist_ok=True)
        (prefix / name).write_text(text, "utf-8")
    monkeypatch.setattr(sys, "prefix", str(prefix))
    return prefix


@pytest.mark.parametrize("name", ["bin/liuren", "pyvenv.cfg", "lib/site-packages/lark/__init__.py", "bin/new.svg"])
@pytest.mark.parametrize("argv", [["why", "initial", *CHART, "--format", "svg", "-o"], ["page", *CHART, "-o"]],
                         ids=["why", "page"])
def test_no_installed_file_is_an_output(capsys, fake_prefix, argv, name):
    target = fake_prefix / name
    before = target.read_bytes() if target.exists() else None
    code, _, err = run_en(capsys, *argv, target)
    assert one_line(code, err) and "is inside" in err and "where Python and its packages are installed" in err
    assert "(or --force)" in err
    assert (target.read_bytes() if target.exists() else None) == before


def test_site_packages_is_refused_through_a_link(capsys, tmp_path):
    import networkx

    link = tmp_path / "here"
    link.symlink_to(Path(networkx.__file__).parent)
    target = link / "liuren-probe.svg"
    try:
        code, _, err = run_en(capsys, "why", "initial", *CHART, "--format", "svg", "-o", target)
        assert one_line(code, err) and "where Python and its packages are installed" in err
    finally:
        leaked = target.exists()
        target.unlink(missing_ok=True)
        assert not leaked, "a file was written into site-packages"


@pytest.mark.parametrize("held, argv, words", [
    (b"\x7fELF\x02\x01\x01", ["why", "initial", *CHART, "--format", "png", "-o"], "is an executable"),
    (b'{"mine": 1}\n', ["page", *CHART, "-o"], "holds JSON, not an HTML page"),
    (b"<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg'/>", ["why", "initial", *CHART, "-o"],
     "holds an SVG picture, not text"),
    (b"\x89PNG\r\n\x1a\n....", ["why", "initial", *CHART, "--format", "svg", "-o"], "holds a PNG picture, not an SVG"),
    (b"#!/bin/sh\necho hi\n", ["audit", "--vs", "default", "--times", "day", "--html"], "holds a program, not an HTML"),
])
def test_an_existing_file_of_another_kind_is_refused_unless_forced(capsys, tmp_path, held, argv, words):
    target = tmp_path / "mine"
    target.write_bytes(held)
    if held.startswith(b"\x7fELF"):
        os.chmod(target, 0o755)
    code, _, err = run_en(capsys, *argv, target)
    assert one_line(code, err) and words in err and target.read_bytes() == held
    if "audit" not in argv:  # forced, it is written (the audit's own run is left to the audit's tests)
        code, _, err = run_en(capsys, *argv, target, "--force")
        assert code == 0 and target.read_bytes() != held, err


def test_an_output_of_its_own_kind_or_an_empty_file_is_replaced(capsys, tmp_path):
    page, empty = tmp_path / "chart.html", tmp_path / "empty.svg"
    empty.write_bytes(b"")
    assert run(capsys, "page", *CHART, "-o", page)[0] == 0
    assert run(capsys, "page", *CHART, "--lang", "en", "-o", page)[0] == 0 and 'lang="en"' in page.read_text("utf-8")
    assert run(capsys, "why", "initial", *CHART, "--format", "dot", "-o", empty)[0] == 0
    assert run(capsys, "why", "initial", *CHART, "--format", "dot", "-o", empty)[0] == 0


SUN = ["--reading", "daynight=sun"]


@pytest.mark.parametrize("argv, words", [
    (["cast", *CHART, *SUN], "the reading daynight=sun judges by the sun at a moment: cast with --at"),
    (["cast", *CHART, *SUN, "--json"], "the reading daynight=sun judges by the sun at a moment"),
    (["cast", "--day", "甲子", "--jiang", "寅", "--hour", "午", *SUN], "daynight=sun judges by the sun at a moment"),
    (["table", *SUN], "daynight=sun judges by the sun at a moment"),
    (["audit", "--vs", "daynight=sun", "--times", "day"], "daynight=sun judges by the sun at a moment"),
    (["audit", "--cases", "{files}/listed.json"], "case 1: expected an object with day, yuejiang, hour (text) and "
                                                  "sanchuan (text, or a list of text)"),
    (["why", "xingnian", *CHART], "has no xingnian: it rests on what the chart was not given (birth_pillar, "
                                  "birth_year, sex, year); give --born, --sex, --year (or --at)"),
    (["why", "xingnian", *CHART, "--born", "1970", "--sex", "m"], "given (year); give --year (or --at)"),
    (["cast", *CHART, "--kb", "{files}/deep.dl"], "deep.dl:2:"),
    (["cast", *CHART, "--kb", "{files}/below.dl"], "-9223372036854775807 - 2 is smaller than −(2**63 − 1)"),
])
def test_each_named_fault_of_issue_40_is_one_line(capsys, issue_40_files, argv, words):
    files = issue_40_files
    code, _, err = run(capsys, *(a.format(files=files) for a in argv), "--lang", "en")
    assert one_line(code, err) and words.format(files=files) in err, err


@pytest.fixture(scope="module")
def issue_40_files(files):
    (files / "listed.json").write_text('[{"day": "辛巳", "yuejiang": "寅", "hour": "午", "sanchuan": [1, 2, 3]}]', "utf-8")
    (files / "deep.dl").write_text("@pred big(n: int).\nbig(" + " + ".join(["1"] * 20_000) + ").\n", "utf-8")
    (files / "below.dl").write_text("@pred n(x: int).\n@pred m(x: int).\nn(-9223372036854775807).\n"
                                    "m(Y) :- n(X), Y = X - 2.\n", "utf-8")
    return files


@pytest.mark.parametrize("plain, other", [
    (["cast", "--at", "2020-01-01 12:00", "--tz", "Asia/Shanghai"],
     ["cast", "--at", "0" * 5000 + "2020-01-01 12:00", "--tz", "Asia/Shanghai"]),
    (["cast", "--at", "2020-01-01 12:00", "--tz=-05:00"], ["cast", "--at", "2020-01-01 12:00", "--tz", "-05:00"]),
    (["table", "--day", "辛巳"], ["table", "--day", "辛巳日"]),
])
def test_what_cast_reads_every_command_reads_alike(capsys, plain, other):
    code, expected, err = run(capsys, *plain)
    assert code == 0, err
    code, out, err = run(capsys, *other)
    assert (code, out) == (0, expected) and "Traceback" not in err


def test_an_anonymous_variable_in_a_why_atom_matches_any_value(capsys):
    code, out, err = run(capsys, "why", "lesson(_, _, _, _)", *CHART)
    assert code == 0 and out.startswith("第一課："), err
    code, out, err = run(capsys, "why", "lesson(_, _, _, _)", *CHART, "--ids")
    assert code == 0 and out.startswith("lesson(辛巳日") and "第一課" in out.splitlines()[0], err
    code, out, _ = run(capsys, "why", "lesson(_, 3, _, _)", *CHART, "--ids")
    assert code == 0 and out.startswith("lesson(辛巳日") and ", 3, " in out.splitlines()[0]


def test_teach_quiz_with_standard_input_closed_is_one_line():
    done = shell("$liuren teach --quiz --seed 1 --lang en <&-")
    assert done.returncode == 2 and done.stderr == ("liuren: teach --quiz reads its answers from standard input, "
                                                    "which is closed; run it at a terminal or give the answers on "
                                                    "standard input\n")


@pytest.mark.parametrize("engine", ["python", "dot", "matplotlib"])
def test_an_escape_character_from_a_kb_string_leaves_the_svg_xml(tmp_path, engine):
    import xml.dom.minidom

    from liuren_logic import Session
    from liuren_logic.explain.picture import render

    if engine == "dot" and not __import__("shutil").which("dot"):
        pytest.skip("Graphviz dot is not installed (apt-get install graphviz)")
    if engine == "matplotlib":
        pytest.importorskip("matplotlib")
    kb = tmp_path / "esc.dl"
    kb.write_text('@pred note(x: text) zh "{x}\x1b" en "{x}".\n@rule note.one zh "注\x1b記" en "a note" source "x".\n'
                  'note("a\x1bb\x0c") :- clashes(子, 午).\n', "utf-8")
    graph = Session(extra=[kb]).why(None, 'note("a\x1bb\x0c")')
    if engine == "matplotlib" and not has_font():
        pytest.skip("matplotlib finds no CJK font (apt-get install fonts-noto-cjk)")
    svg = render(graph, "svg", "zh", engine=engine)
    xml.dom.minidom.parseString(svg)  # raises on a character XML does not allow
    assert b"\\u001b" in svg


def has_font() -> bool:
    from liuren_logic.explain.picture import RenderError, cjk_font

    try:
        cjk_font()
    except (RenderError, ImportError):
        return False
    return True


def test_a_kb_file_past_its_size_is_refused_unread(capsys, tmp_path, monkeypatch):
    from liuren_logic.domain import school

    facts = tmp_path / "facts.dl"
    facts.write_text("@pred e(x: int).\n" + "".join(f"e({i}).\n" for i in range(3000)), "utf-8")
    monkeypatch.setattr(school, "MAX_KB_FILE", 10_000)
    monkeypatch.setattr(Path, "read_bytes", lambda path: pytest.fail(f"{path} was read"))
    code, _, err = run_en(capsys, "kb", "check", "--alone", facts)
    assert one_line(code, err) and "facts.dl is larger than 10,000 bytes, the limit of one KB file" in err


def test_the_kb_files_together_are_bounded(capsys, tmp_path, monkeypatch):
    from liuren_logic.domain import school

    monkeypatch.setattr(school, "MAX_KB_TOTAL", 1_000)
    mine = tmp_path / "mine.dl"
    mine.write_text(MINE, "utf-8")
    code, _, err = run_en(capsys, "cast", *CHART, "--kb", mine)
    assert one_line(code, err) and "the KB files read together pass 1,000 bytes, the limit of one knowledge base" in err


def test_pydatalog_refuses_a_users_rules_it_cannot_bound_and_takes_a_users_facts(capsys, tmp_path):
    product = tmp_path / "product.dl"
    product.write_text("@pred r(a: int, b: int, c: int, d: int).\nr(A, B, C, D) :- branch_index(_, A), "
                       "branch_index(_, B), branch_index(_, C), branch_index(_, D).\n", "utf-8")
    code, _, err = run_en(capsys, "cast", *CHART, "--kb", product, "--engine", "pydatalog")
    assert one_line(code, err) and "product.dl: --engine pydatalog takes the shipped rules only" in err
    mine = tmp_path / "mine.dl"
    mine.write_text(MINE, "utf-8")
    code, out, err = run_en(capsys, "why", "mine(子)", "--kb", mine, "--engine", "pydatalog", "--ids")
    assert code == 0 and out.startswith("▪ mine(子)") and "mine.dl:2" in out, err
