"""``liuren serve``: the teaching app, a local web server on the loopback interface.

The page (:mod:`explain.app`) asks a small JSON API; every answer is built by the same
functions as the command line, from KB relations and derivation graphs:

=================  =====================================================================
``/``              the app (one HTML document, nothing fetched from elsewhere)
``/api/readings``  the disputed topics, each with its readings and the school's choice
``/api/cast``      the board of a chart (``day``+``jiang``+``hour``, ``day``+``offset``
                   [+``night``], or ``at``+``tz`` [+``longitude``/``latitude``])
``/api/why``       a conclusion's lesson steps, picture and text tree (``q``, ``value``)
``/api/whynot``    why a conclusion is not ``value`` (``q``, ``value``)
``/api/compare``   what another reading (``vs=topic=reading``) changes on this chart, with
                   the derivation under both
``/api/quiz``      the trainer: a chart drawn at random (``method``: one it decides), its
                   plates and lessons, the questions and their choices
``/api/quiz/answer`` the trainer's verdict on a ``choice`` for a ``question`` of a chart
=================  =====================================================================

Every request is bounded: the query is at most :data:`MAX_QUERY` bytes and names one
chart; readings are the shipped ones only (no user files); a few sessions are kept (least
recently used first out) and each is recycled after :data:`MAX_CHARTS` charts; answers are
computed one at a time, each under a deadline. Bad input gets the command line's one
line, as ``{"error": …}`` with status 400.
"""
from __future__ import annotations

import argparse
import json
import socket
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor, TimeoutError as Deadline
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import parse_qs, urlsplit

from .errors import InputError, LiurenError
from .school import CALENDAR_READINGS, kb_root, parse_readings, read_school

MAX_QUERY = 4096  # bytes of query string
MAX_SESSIONS = 6  # schools kept loaded (each ~ 0.5 s to load, ~ 40 MB)
MAX_CHARTS = 4096  # charts one session keeps before it is loaded afresh
DEADLINE = 30.0  # seconds one answer may take
LOOPBACK = ("127.0.0.1", "::1", "localhost")
NOT_FROM_THE_WEB = {"help", "school", "reading", "kb", "engine", "json", "lang", "simplified", "output"}


def shipped_readings() -> dict[str, list[str]]:
    """Every disputed topic and the readings the package ships for it."""
    root = kb_root() / "variants"
    topics = {p.name: sorted(f.stem for f in p.glob("*.dl")) for p in root.iterdir() if p.is_dir()}
    topics.update({t: list(r) for t, r in CALENDAR_READINGS.items()})
    return dict(sorted(topics.items()))


class Sessions:
    """Loaded schools by their readings, least recently used first out."""

    def __init__(self, school: str = "default", limit: int = MAX_SESSIONS):
        self.school = school
        self.limit = limit
        self.defaults = read_school(school).readings
        self.known = shipped_readings()
        self._sessions: OrderedDict[tuple, object] = OrderedDict()

    def readings(self, text: str) -> dict[str, str]:
        """``punishment=seed000,…`` checked against the shipped readings only."""
        readings = parse_readings(text)
        for topic, reading in readings.items():
            if topic not in self.known:
                raise InputError(f"unknown topic {topic!r}; the topics are: {', '.join(self.known)}")
            if reading not in self.known[topic]:
                raise InputError(f"no reading {reading!r} of {topic} (readings: {', '.join(self.known[topic])})")
        return {t: r for t, r in readings.items() if self.defaults.get(t) != r}

    def get(self, readings: dict[str, str]):
        """The session for these readings (loaded on first use, afresh after MAX_CHARTS charts)."""
        from .session import Session

        key = tuple(sorted(readings.items()))
        session = self._sessions.get(key)
        if session is None or len(session._charts) >= MAX_CHARTS:
            session = self._sessions[key] = Session(self.school, readings)
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        self._sessions.move_to_end(key)
        return session


class App:
    """The API: each method takes the query's fields and returns JSON-ready data.

    The server calls :meth:`answer` from one worker thread, so answers are computed one at a
    time (sessions are not thread-safe, and the work is CPU-bound: taking turns costs nothing).
    """

    ROUTES = {"/api/readings": "readings_info", "/api/cast": "cast", "/api/why": "why",
              "/api/whynot": "whynot", "/api/compare": "compare", "/api/quiz": "quiz",
              "/api/quiz/answer": "quiz_answer"}

    def __init__(self, school: str = "default"):
        self.sessions = Sessions(school)

    def answer(self, route: str, fields: dict) -> dict:
        return getattr(self, route)(fields)

    def _chart(self, fields: dict, readings: Optional[dict] = None):
        from .cli import _chart as cast_from_options

        if readings is None:
            readings = self.sessions.readings(fields.get("reading", ""))
        return cast_from_options(self.sessions.get(readings), chart_options(fields))

    def readings_info(self, fields: dict) -> dict:
        from .explain.quiz import methods

        return {"school": self.sessions.school, "methods": methods(self.sessions.get({})),
                "topics": {t: {"readings": r, "chosen": self.sessions.defaults.get(t, r[0])}
                           for t, r in self.sessions.known.items()}}

    def cast(self, fields: dict) -> dict:
        from .explain.app import board

        return board(self._chart(fields), _lang(fields))

    def why(self, fields: dict) -> dict:
        from .explain.app import derivation

        return derivation(self._chart(fields), _question(fields), fields.get("value") or None, _lang(fields))

    def whynot(self, fields: dict) -> dict:
        from .explain.app import refutation

        if not fields.get("value"):
            raise InputError("why-not needs the value asked about (why not 丑?)")
        return refutation(self._chart(fields), _question(fields), fields["value"], _lang(fields))

    def quiz(self, fields: dict) -> dict:
        import random

        from .explain.app import quiz_page
        from .explain.quiz import draw

        session = self.sessions.get(self.sessions.readings(fields.get("reading", "")))
        rng = random.Random()
        return quiz_page(draw(session, rng, fields.get("method") or None), _lang(fields),
                         fields.get("keti") in ("1", "true", "on"), rng)

    def quiz_answer(self, fields: dict) -> dict:
        from .explain.app import quiz_verdict

        if not fields.get("question") or not fields.get("choice"):
            raise InputError("the quiz answer needs question and choice (question=initial&choice=丑)")
        return quiz_verdict(self._chart(fields), fields["question"], fields["choice"], _lang(fields))

    def compare(self, fields: dict) -> dict:
        from .explain.app import comparison

        base = self.sessions.readings(fields.get("reading", ""))
        other = {**base, **self.sessions.readings(fields.get("vs", ""))}
        if other == base:
            raise InputError("compare needs another reading, e.g. vs=punishment=seed000")
        before, after = self._chart(fields, base), self._chart(fields, other)
        return comparison(before, after, _question(fields, "initial"), _lang(fields))


def chart_options(fields: dict) -> argparse.Namespace:
    """The query's chart fields read by the ``cast`` command's own options (``day`` is
    ``--day``, ``night=1`` is ``--night``), so the app takes what the command line takes.
    Options that name files, or choose the school, engine or output, are not taken."""
    from .cli import build_parser, subcommand

    parser = build_parser()
    argv = ["cast"]
    for action in subcommand(parser, "cast")._actions:
        name = action.dest
        if not action.option_strings or name in NOT_FROM_THE_WEB or action.type is Path or fields.get(name) in (None, ""):
            continue
        if action.nargs == 0:  # a flag
            argv += [action.option_strings[0]] if fields[name] in ("1", "true", "on") else []
        else:
            argv += [action.option_strings[0], fields[name]]
    return parser.parse_args(argv)


def _lang(fields: dict) -> str:
    lang = fields.get("lang", "zh")
    if lang not in ("zh", "en"):
        raise InputError(f"unknown language {lang!r} (zh or en)")
    return lang


def _question(fields: dict, default: Optional[str] = None) -> str:
    question = fields.get("q") or default
    if not question:
        raise InputError("missing q (the conclusion asked about: initial, method, pattern …)")
    return question


def _fields(query: str) -> dict[str, str]:
    """The query's fields (a raw UTF-8 query, which http.server reads as Latin-1, too)."""
    try:
        query = query.encode("latin-1").decode("utf-8")
    except UnicodeError:
        pass
    if len(query.encode("utf-8")) > MAX_QUERY:
        raise InputError(f"the request is too long (at most {MAX_QUERY} bytes)")
    parsed = parse_qs(query, keep_blank_values=True, strict_parsing=False, max_num_fields=32)
    return {k: v[-1] for k, v in parsed.items()}


def handler(app: App, pool: ThreadPoolExecutor, log: Optional[Callable[[str], None]] = None):
    """The request handler class for :class:`ThreadingHTTPServer`."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "liuren-serve"
        timeout = 20  # seconds a client may take to send its request

        def do_GET(self):  # noqa: N802 - http.server's name
            url = urlsplit(self.path)
            if url.path in ("/", "/index.html"):
                from .explain.app import app_page

                lang = "en" if "lang=en" in url.query else "zh"
                return self._send(HTTPStatus.OK, app_page(lang).encode("utf-8"), "text/html; charset=utf-8")
            route = App.ROUTES.get(url.path)
            if route is None:
                return self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page {url.path!r}"})
            try:
                fields = _fields(url.query)
                answer = pool.submit(app.answer, route, fields).result(timeout=DEADLINE)
            except Deadline:
                return self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": f"no answer within {DEADLINE:.0f} s"})
            except LiurenError as error:
                from .explain.app import form_error

                return self._json(HTTPStatus.BAD_REQUEST, form_error(str(error), "en" if "lang=en" in url.query else "zh"))
            except ValueError as error:  # a malformed query string
                return self._json(HTTPStatus.BAD_REQUEST, {"error": f"cannot read the request: {error}"})
            except Exception as error:  # a bug: one line to the page, the server goes on
                return self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                                  {"error": f"internal error ({type(error).__name__}: {error}); please report it"})
            return self._json(HTTPStatus.OK, answer)

        def do_POST(self):  # noqa: N802
            self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": "the app only answers GET"})

        def _json(self, status: HTTPStatus, data: dict):
            self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

        def _send(self, status: HTTPStatus, body: bytes, kind: str):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; "
                             "script-src 'unsafe-inline'; img-src 'self' data:")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):  # noqa: A002 - http.server's signature
            if log:
                log(f"{self.address_string()} {format % args}")

    return Handler


class _ServerV6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def make_server(host: str = "127.0.0.1", port: int = 0, school: str = "default",
                log: Optional[Callable[[str], None]] = None) -> ThreadingHTTPServer:
    """A server on ``host:port`` (port 0: a free one; see ``server.server_address``)."""
    if host not in LOOPBACK:
        raise InputError(f"the app listens on the loopback interface only (127.0.0.1, ::1), not {host!r}")
    if not 0 <= port <= 65535:
        raise InputError(f"--port {port} is not a port: give a number from 0 (any free one) to 65535")
    app = App(school)
    # one worker: pyDatalog's state is per thread, and the work is CPU-bound anyway
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="liuren-answer")
    kind = _ServerV6 if ":" in host else ThreadingHTTPServer
    try:
        server = kind((host, port), handler(app, pool, log))
    except OSError as error:
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    server.daemon_threads = True
    server.app, server.pool = app, pool
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"


def serve(host: str, port: int, school: str, open_browser: bool, quiet: bool, out=print) -> None:
    """Start the app and answer until interrupted."""
    server = make_server(host, port, school, None if quiet else (lambda line: out(line)))
    out(f"liuren serve: listening on {url_of(server)} (Ctrl-C stops)")
    if open_browser:
        import webbrowser

        webbrowser.open(url_of(server))
    started = time.monotonic()
    try:
        server.serve_forever()
    finally:
        server.server_close()
        server.pool.shutdown(cancel_futures=True)
        out(f"liuren serve: stopped after {time.monotonic() - started:.0f} s")


__all__ = ["make_server", "serve", "url_of", "App", "shipped_readings"]
