"""A bounded fuzz of every surface an outsider reaches: the command line, the KB parser, the audit
files and the server (loopback only). Part of the complete set (``pytest -m complete``): each
surface gets a bounded number of examples (300 command lines built as a command and option-value
pairs, 300 KB texts, 200 audit files of any JSON, 300 queries and 200 raw requests to a loopback
server: about 11 s in all), and every answer must be a clean one (an exit status of 0, 1 or 2 with
no traceback, and no executable written unless forced; a KBError or a module; an HTTP status that is
not 500).
"""
from __future__ import annotations

import json
import socket
import string
import threading
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liuren_logic.faces.cli import main
from liuren_logic.domain.errors import KBError

pytestmark = pytest.mark.complete
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

# The command line ----------------------------------------------------------------------------------
COMMANDS = st.sampled_from([["cast"], ["why", "initial"], ["why", "lesson(_, _, _, _)"], ["why", "xingnian"],
                            ["why-not", "initial", "丑"], ["teach"], ["teach", "--quiz"], ["page"], ["table"],
                            ["kb", "check", "{kb}"], ["audit", "--cases", "{cases}"], ["nosuch"]])
OPTIONS = st.sampled_from(["--day", "--offset", "--jiang", "--hour", "--at", "--tz", "--reading", "--born", "--sex",
                           "--xingnian", "--matter", "--format", "--json", "--force", "-o", "--kb", "--lang", "--seed",
                           "--longitude", "--latitude", "--night", "--month", "--year", "--engine", "--help"])
VALUES = st.sampled_from([
    "辛巳", "辛巳日", "甲丑", "3", "-3", "12", "寅", "戌加寅", "午", "1998-11-30 12:00", "0" * 5000 + "2020-01-01 12:00",
    "-05:00", "+08:00", "Mars/Base", "daynight=sun", "punishment=seed000", "1970", "m", "丑", "天時", "svg", "png",
    "dot", "json", "{out}", "{kb}", "{bin}", "en", "1", "nan", "91", "pydatalog", "\x1b[2J", "\u202e", "", "-", "--"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    here = tmp_path_factory.mktemp("fuzz")
    (here / "kb.dl").write_text('@pred note(x: text) zh "{x}" en "{x}".\nnote("a\x1bb").\n', "utf-8")
    (here / "cases.json").write_text('[{"day": "辛巳", "yuejiang": "寅", "hour": "午", "sanchuan": [1, 2]}]', "utf-8")
    (here / "program").write_bytes(b"\x7fELF\x02\x01")
    (here / "program").chmod(0o755)
    return here


@FUZZ
@given(COMMANDS, st.lists(st.tuples(OPTIONS, VALUES), max_size=5))
def test_any_command_line_ends_in_a_clean_status(folder, capsys, command, options):
    names = {"out": folder / "out", "kb": folder / "kb.dl", "cases": folder / "cases.json", "bin": folder / "program"}
    argv = [w.format(**names) for w in command] + [w.format(**names) for pair in options for w in pair]
    try:
        code = main(argv)
    except SystemExit as done:  # --help
        code = done.code
    _, err = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in err, (argv, err[-400:])
    program = folder / "program"
    if "--force" in argv:  # forced, it may be replaced: put back for the next example
        program.write_bytes(b"\x7fELF\x02\x01")
    assert program.read_bytes() == b"\x7fELF\x02\x01"  # never an output unless forced


# The KB parser ------------------------------------------------------------------------------------
PIECES = st.sampled_from(["@pred ", "@rule ", "@kind ", "p", "q", "(", ")", ",", ".", ":-", " not ", "X", "_", "1",
                          "-", "+", "*", " mod ", "=", "<", '"', "子", "丑", "\n", " ", "% c\n", "{", "}", "count",
                          "sum", "source", "zh", "en", "int", "text", "branch", ":", "\x1b", "\ufeff", "9" * 50])


@FUZZ
@given(st.lists(PIECES, max_size=60).map("".join) | st.text(string.printable + "子丑寅", max_size=200))
def test_any_text_parses_or_is_a_located_kb_error(text):
    from liuren_logic.datalog.parser import parse

    try:
        parse(text, "fuzz.dl")
    except KBError as error:
        assert error.problems and all(p.position.path == "fuzz.dl" for p in error.problems)


# The audit files ----------------------------------------------------------------------------------
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.text(max_size=6)
                    | st.sampled_from(["辛巳", "寅", "午", "午寅戌", "甲丑"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["day", "yuejiang", "jiang", "hour", "offset", "night", "sanchuan", "method",
                                         "noble", "seq"]), inner, max_size=6), max_leaves=12)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(JSON, max_size=3), st.sampled_from(["--cases", "--against"]))
def test_any_audit_file_is_weighed_or_refused_in_one_line(folder, capsys, entries, option):
    data = folder / "entries.json"
    data.write_text(json.dumps(entries, ensure_ascii=False), "utf-8")
    code = main(["audit", option, str(data)])
    _, err = capsys.readouterr()
    assert code in (0, 2) and "Traceback" not in err, (entries, err[-400:])
    assert code == 0 or len(err.strip().splitlines()) == 1, err


# The server ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server():
    from liuren_logic.faces.serve import make_server

    running = make_server("127.0.0.1", 0, deadline=5.0)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield running
    running.shutdown()
    running.server_close()


FIELDS = st.dictionaries(st.sampled_from(["day", "offset", "jiang", "hour", "at", "tz", "night", "reading", "vs", "q",
                                          "value", "lang", "born", "sex", "matter", "question", "choice", "longitude"]),
                         st.sampled_from(["辛巳", "--help", "-05:00", "3", "-1", "x", "", "1", "en", "zh", "initial",
                                          "lesson(_, _, _, _)", "daynight=sun", "punishment=seed000", "1998-11-30 12:00",
                                          "%", "\x00", "<script>", "9" * 5000]), max_size=6)
ROUTES = st.sampled_from(["/api/cast", "/api/why", "/api/whynot", "/api/compare", "/api/quiz/answer", "/api/readings",
                          "/", "/nosuch"])


def _ask(address: tuple, request: bytes) -> bytes:
    with socket.create_connection(address, timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(ROUTES, FIELDS)
def test_any_query_is_answered_or_refused_never_500(server, route, fields):
    host, port = server.server_address
    query = urllib.parse.urlencode(fields)
    answer = _ask((host, port), f"GET {route}?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    status = int(answer.split(b" ", 2)[1])
    assert status in (200, 400, 404, 503), (route, fields, answer[:300])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=300) | st.lists(st.sampled_from([b"GET ", b"POST ", b"/api/cast", b"?day=", b"http://x/",
                                                           b" HTTP/1.1", b"\r\n", b"Host: ", b"127.0.0.1:", b"\n",
                                                           b"\xff", b"%", b"Origin: evil"]), max_size=12).map(b"".join))
def test_any_bytes_get_an_answer_that_is_not_500(server, raw):
    host, port = server.server_address
    try:
        answer = _ask((host, port), raw + b"\r\n\r\n")
    except OSError:  # closed on us: a refusal
        return
    assert not answer.startswith(b"HTTP/1.0 500") and not answer.startswith(b"HTTP/1.1 500"), (raw, answer[:300])
