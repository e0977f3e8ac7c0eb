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

Every request is bounded. The query is at most :data:`MAX_QUERY` bytes and names one chart
(read by :mod:`.chart_request`, as values: no argv is built); readings are the shipped ones only
(no user files). The process keeps to :data:`MEMORY_MB`: a few sessions are kept (least recently
used first out), and the one holding the most charts is let go once the charts of all take
:data:`SESSION_MB` (a chart's memory measured as the process grows). Answers are computed one at
a time (:mod:`.turns`), each under :data:`DEADLINE`: a request that could not be answered in time
is refused at once (503), one whose deadline passes while it waits is never started, one still
running at it stops at its next check. A connection's request head is read by :class:`Heads`
(one thread, a selector) within :data:`HEAD_SECONDS`, so trickling connections hold no serving
thread; whole requests are served by a pool of :data:`MAX_CONNECTIONS` threads, one more is
answered 503 and closed. A client that leaves is one line in the log. Closed (Ctrl-C, SIGTERM),
the server accepts no more and answers what it holds (503 for what has not started, if
interrupted again). The server answers only requests addressed to it on loopback (``Host``, or
the URL's host in the absolute form), API requests only from its own page (``Origin``), and its
pages refuse to be framed. Bad input gets the command line's one line, as ``{"error": …}`` with
status 400. Every refusal is said in the page's language (``lang=en``, else Chinese), but those
sent before the request is read, which say both.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import selectors
import socket
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional
from urllib.parse import parse_qs, urlsplit

from ..datalog import collector
from ..datalog.labels import showing_ids
from ..domain.errors import InputError, LiurenError, refused_zh
from ..domain.school import CALENDAR_READINGS, kb_root, parse_readings, read_school
from ..domain.turns import Busy, Late, Stopped, Turns, in_time
from .chart_request import ChartRequest, cast

MAX_QUERY = 4096  # bytes of query string
MEMORY_MB = 400  # the budget of the whole process, which the bounds below keep (benchmarks/serve_load.py)
MAX_SESSIONS = 6  # schools kept loaded (each ~ 0.5 s to load, ~ 5 MB without its charts)
SESSION_MB = 120.0  # memory the charts of all sessions together may take; past it the heaviest session goes
DEADLINE = 10.0  # seconds from a request's arrival to its answer
MAX_WAITING = 64  # answers queued at most (the deadline bounds the queue first)
MAX_CONNECTIONS = 64  # connections served at once (their request in)
HEAD_SECONDS = 5.0  # a connection's request line and headers must be in within this
MAX_HEAD = 16 * 1024  # bytes of a request head
MAX_READING = 256  # connections whose request is still coming in, of all clients …
PER_CLIENT = 128  # … and of one address (on loopback, every client has the same one)
LOOPBACK = ("127.0.0.1", "::1", "localhost")
# What the page is told when no answer comes, in its language.
REFUSALS = {"zh": {"page": "無此頁{path}", "busy": "忙：約 {seconds:.0f} 秒之工作待辦，請稍後再問",
                   "late": "{seconds:.0f} 秒內未能作答", "request": "讀不出此請求：{error}",
                   "host": "本伺服器只應寄往 {ours} 之請求，不應寄往{host}者",
                   "origin": "此介面只應本頁之請求，不應{origin}之請求", "elsewhere": "他站", "get": "本應用只應讀取之請求",
                   "stopping": "伺服器正在停止"},
            "en": {"page": "no such page {path}", "busy": "busy: about {seconds:.0f} s of work is waiting; ask again shortly",
                   "late": "no answer within {seconds:.0f} s", "request": "cannot read the request: {error}",
                   "host": "this server answers for {ours}, not Host {host}",
                   "origin": "the API answers its own page only, not {origin}", "elsewhere": "another site",
                   "get": "the app only answers GET", "stopping": "the server is stopping"}}
# Said before the request is read: in both languages, Chinese first.
BUSY_SAID = "忙：同時連線過多，請稍後再問 · busy: too many connections at once; ask again shortly"
SLOW_SAID = "請求未於時限內送達 · the request did not arrive in time"
STOPPING_SAID = "伺服器正在停止 · the server is stopping"


def shipped_readings() -> dict[str, list[str]]:
    """Every disputed topic and the readings the package ships for it."""
    root = kb_root() / "variants"
    topics = {p.name: sorted(f.stem for f in p.glob("*.dl")) for p in root.iterdir() if p.is_dir()}
    topics.update({t: list(r) for t, r in CALENDAR_READINGS.items()})
    return dict(sorted(topics.items()))


def resident_mb() -> float:
    """This process's resident memory in MB (Linux's /proc; elsewhere its peak, from getrusage;
    0 where neither can be read)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        try:
            import resource
        except ImportError:
            return 0.0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux, bytes on macOS
        return peak / (2**20 if sys.platform == "darwin" else 2**10)


class Sessions:
    """Loaded schools by their readings, least recently used first out; the one holding the most
    charts is let go (and loaded afresh when asked for) once the charts of all take ``cap_mb``.

    What a chart takes is measured, not assumed: :meth:`measured` divides the growth of resident
    memory over the answers made while the process was at its peak (with no memory freed to
    reuse) by the charts they cast, leaving out the answers that loaded a session."""

    def __init__(self, school: str = "default", limit: int = MAX_SESSIONS, cap_mb: float = SESSION_MB,
                 measure: Callable[[], float] = resident_mb):
        self.school = school
        self.limit = limit
        self.cap_mb = cap_mb
        self.measure = measure
        self.defaults = read_school(school).readings
        self.known = shipped_readings()
        self.recycled = 0  # sessions loaded afresh for their memory
        self._sessions: OrderedDict[tuple, object] = OrderedDict()
        self._loaded = False  # a session was loaded during the answer being measured
        self._peak = self._grown = 0.0  # MB: the process's peak; the growth over answers made at it
        self._cast = 0  # charts those answers cast

    @property
    def mb_per_chart(self) -> float:
        """The memory a chart takes, as measured so far (0 before any answer at the peak)."""
        return self._grown / self._cast if self._cast else 0.0

    def size_mb(self, session) -> float:
        """The memory a session's charts take, by the measure."""
        return len(session._charts) * self.mb_per_chart

    def readings(self, text: str) -> dict[str, str]:
        """``punishment=seed000,…`` checked against the shipped readings only."""
        readings = parse_readings(text)
        for topic, reading in readings.items():
            if topic not in self.known:
                raise InputError(f"unknown topic {topic!r}; the topics are: {', '.join(self.known)}",
                                 f"無此異說之題「{topic}」", "reading")
            if reading not in self.known[topic]:
                raise InputError(f"no reading {reading!r} of {topic} (readings: {', '.join(self.known[topic])})",
                                 f"「{topic}」無「{reading}」之說", "reading")
        return {t: r for t, r in readings.items() if self.defaults.get(t) != r}

    def get(self, readings: dict[str, str]):
        """The session for these readings (loaded on first use); while the charts of all sessions
        together take ``cap_mb`` or more, the session holding the most is let go first (and loaded
        afresh when asked for)."""
        from ..domain.session import Session

        in_time()  # loading takes a while: not for a request already past its deadline
        key = tuple(sorted(readings.items()))
        while self._sessions and sum(map(self.size_mb, self._sessions.values())) >= self.cap_mb:
            heaviest = max(self._sessions, key=lambda k: len(self._sessions[k]._charts))
            self.recycled += 1
            del self._sessions[heaviest]  # let go (cycles and all) before the next one loads
            collector.release()
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = Session(self.school, readings)
            self._loaded = True
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        self._sessions.move_to_end(key)
        return session

    def measured(self, work: Callable[[], object]) -> object:
        """``work()``; the memory it adds and the charts it casts are measured when the process is
        at its peak (within 1 MB) and no session was loaded."""
        charts = {id(s): len(s._charts) for s in self._sessions.values()}
        self._loaded, before = False, self.measure()
        at_peak = before >= self._peak - 1.0
        try:
            return work()
        finally:
            after = self.measure()
            self._peak = max(self._peak, after)
            cast = sum(len(s._charts) - charts.get(id(s), 0) for s in self._sessions.values())
            if at_peak and cast > 0 and not self._loaded:
                self._grown += max(0.0, after - before)
                self._cast += cast

    def sizes(self) -> dict[str, tuple[int, float]]:
        """(charts, MB they take) of each loaded session, by its readings."""
        return {",".join(f"{t}={r}" for t, r in key) or "(the school's own)":
                (len(session._charts), round(self.size_mb(session), 1)) for key, session in self._sessions.items()}


class App:
    """The API: each method takes the query's fields and returns JSON-ready data.

    The server calls :meth:`answer` from one worker thread (:class:`.turns.Turns`), so answers
    are computed one at a time (sessions are not thread-safe, and the work is CPU-bound: taking
    turns costs nothing).
    """

    ROUTES = {"/api/readings": "readings_info", "/api/cast": "cast", "/api/why": "why",
              "/api/whynot": "whynot", "/api/compare": "compare", "/api/quiz": "quiz",
              "/api/quiz/answer": "quiz_answer"}

    def __init__(self, school: str = "default"):
        self.sessions = Sessions(school)

    def answer(self, route: str, fields: dict) -> dict:
        """The route's answer (internal ids beside the names when the page's toggle asks, ``ids=1``);
        the memory it adds is charged to the sessions it used."""
        with showing_ids(fields.get("ids") == "1"):
            answer = self.sessions.measured(lambda: getattr(self, route)(fields))
        return _simplified(answer) if fields.get("simplified") == "1" else answer

    def _chart(self, fields: dict, readings: Optional[dict] = None, notices: Optional[list] = None):
        """The chart the fields name (:class:`.chart_request.ChartRequest`: read as values, never as
        options); what the command line would say of the input goes to ``notices`` (the board shows
        them), never to the server's standard error."""
        if readings is None:
            readings = self.sessions.readings(fields.get("reading", ""))
        return cast(self.sessions.get(readings), ChartRequest.from_fields(fields),
                    notice=(notices if notices is not None else []).append)

    def readings_info(self, fields: dict) -> dict:
        from ..domain.disputes import names
        from ..explain.quiz import methods
        from ..domain.matter import matters

        session, named = self.sessions.get({}), names()
        return {"school": self.sessions.school, "methods": methods(session), "matters": matters(session.kb),
                "topics": {t: {"readings": r, "chosen": self.sessions.defaults.get(t, r[0]),
                               "names": {lang: [named.get(t, {}).get(lang, t)]
                                         + [named.get(t, {}).get("readings", {}).get(x, {}).get(lang, x) for x in r]
                                         for lang in ("zh", "en")}}
                           for t, r in self.sessions.known.items()}}

    def cast(self, fields: dict) -> dict:
        from ..explain.app import board

        notices = []
        chart = self._chart(fields, notices=notices)
        return board(chart, _lang(fields), fields.get("asked") or None, notices)

    def why(self, fields: dict) -> dict:
        from ..explain.app import derivation

        return derivation(self._chart(fields), _question(fields), fields.get("value") or None, _lang(fields))

    def whynot(self, fields: dict) -> dict:
        from ..explain.app import refutation

        if not fields.get("value"):
            raise InputError("why-not needs the value asked about (why not 丑?)", "何以不是：須填所問之值，如丑", "value")
        return refutation(self._chart(fields), _question(fields), fields["value"], _lang(fields))

    def quiz(self, fields: dict) -> dict:
        import random

        from ..explain.app import quiz_page
        from ..explain.quiz import draw

        session = self.sessions.get(self.sessions.readings(fields.get("reading", "")))
        rng = random.Random()
        return quiz_page(draw(session, rng, fields.get("method") or None), _lang(fields),
                         fields.get("keti") in ("1", "true", "on"), rng)

    def quiz_answer(self, fields: dict) -> dict:
        from ..explain.app import quiz_verdict

        if not fields.get("question") or not fields.get("choice"):
            raise InputError("the quiz answer needs question and choice (question=initial&choice=丑)",
                             "練習之答須有所問及所選", "choice")
        return quiz_verdict(self._chart(fields), fields["question"], fields["choice"], _lang(fields))

    def compare(self, fields: dict) -> dict:
        from ..explain.app import comparison

        base = self.sessions.readings(fields.get("reading", ""))
        other = {**base, **self.sessions.readings(fields.get("vs", ""))}
        if other == base:
            raise InputError("compare needs another reading, e.g. vs=punishment=seed000", "比較須選另一說", "vs")
        before = self._chart(fields, base)
        in_time()
        after = self._chart(fields, other)
        return comparison(before, after, _question(fields, "initial"), _lang(fields))


def _simplified(answer, key: str = ""):
    """An answer for the page in simplified characters (简体): its text, never the choices the
    trainer's buttons send back."""
    from ..datalog.script import simplified

    if isinstance(answer, str):
        return simplified(answer)
    if isinstance(answer, dict):
        return {k: v if k == "choices" else _simplified(v, k) for k, v in answer.items()}
    if isinstance(answer, list):
        return [_simplified(v, key) for v in answer]
    return answer


def _lang(fields: dict) -> str:
    lang = fields.get("lang", "zh")
    if lang not in ("zh", "en"):
        raise InputError(f"unknown language {lang!r} (zh or en)", f"無此語言「{lang}」（zh 或 en）", "lang")
    return lang


def _question(fields: dict, default: Optional[str] = None) -> str:
    question = fields.get("q") or default
    if not question:
        raise InputError("missing q (the conclusion asked about: initial, method, pattern …)",
                         "未言所問之結論（初傳、課法、課格 …）", "q")
    return question


def _fields(query: str) -> dict[str, str]:
    """The query's fields, percent-decoded as UTF-8."""
    if len(query.encode("utf-8")) > MAX_QUERY:
        raise InputError(f"the request is too long (at most {MAX_QUERY} bytes)", f"請求過長（至多 {MAX_QUERY} 字節）")
    parsed = parse_qs(query, keep_blank_values=True, strict_parsing=False, max_num_fields=32)
    return {k: v[-1] for k, v in parsed.items()}


def _percent_encoded(line: bytes) -> bytes:
    """A request line with its raw bytes above ASCII percent-encoded, as a browser sends them
    (http.server reads the line as Latin-1 and splits at 0x85, a byte of 寅, as at a space)."""
    return re.sub(rb"[\x80-\xff]", lambda byte: b"%%%02X" % byte[0][0], line)


def _shown(text: str, lang: str = "en", limit: int = 80) -> str:
    """A header value as an error quotes it, cut to ``limit`` characters: repr in English, 「…」 in Chinese."""
    cut = text if len(text) <= limit else text[:limit] + "…"
    return f"「{cut}」" if lang == "zh" else repr(cut)


def _page_lang(query: str) -> str:
    """The language of the page a request comes from: en where its query says lang=en, else zh."""
    return "en" if re.search(r"(?:^|&)lang=en(?:&|$)", query) else "zh"


def handler(app: App, turns: Turns, log: Optional[Callable[[str], None]] = None, deadline: float = DEADLINE):
    """The request handler class for :class:`LoopbackServer`."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "liuren-serve"
        timeout = 5  # seconds a client may take to send its request (a loopback client needs none)

        def setup(self) -> None:
            super().setup()
            self.rfile.close()
            self.rfile = io.BytesIO(self.server.head())  # read whole by Heads (a GET has no body to read)

        def parse_request(self) -> bool:
            self.raw_requestline = _percent_encoded(self.raw_requestline)
            return super().parse_request()

        def do_GET(self):  # noqa: N802 - http.server's name
            url = urlsplit(self.path)
            lang = _page_lang(url.query)
            if not self._addressed_to_us(url, lang):
                return
            if url.path in ("/", "/index.html"):
                from ..explain.app import app_page

                simple = lang == "zh" and bool(re.search(r"(?:^|&)simplified=1(?:&|$)", url.query))
                return self._send(HTTPStatus.OK, app_page(lang, simple).encode("utf-8"), "text/html; charset=utf-8")
            route, said = App.ROUTES.get(url.path), REFUSALS[lang]
            if route is None:
                return self._json(HTTPStatus.NOT_FOUND, {"error": said["page"].format(path=_shown(url.path, lang))})
            try:
                fields = _fields(url.query)
                answer = turns.run(route, lambda: app.answer(route, fields), self.server.arrival() + deadline)
            except Busy as busy:
                return self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": said["busy"].format(seconds=busy.seconds)},
                                  {"Retry-After": str(max(1, math.ceil(busy.seconds)))})
            except Late:
                return self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": said["late"].format(seconds=deadline)})
            except Stopped:
                return self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": said["stopping"]})
            except LiurenError as error:
                from ..explain.app import form_error

                return self._json(HTTPStatus.BAD_REQUEST, form_error(error, lang))
            except ValueError as error:  # a malformed query string
                return self._json(HTTPStatus.BAD_REQUEST, {"error": said["request"].format(error=error)})
            except Exception as error:  # a bug: one line to the page, the server goes on
                return self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                                  {"error": f"internal error ({type(error).__name__}: {error}); please report it"})
            return self._json(HTTPStatus.OK, answer)

        def do_POST(self):  # noqa: N802
            said = REFUSALS[_page_lang(urlsplit(self.path).query)]
            self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": said["get"]})

        def _addressed_to_us(self, url, lang: str) -> bool:
            """True for a request to this server by a loopback name and its port (a rebound DNS
            name is refused, 421; in the absolute form, ``GET http://host/…``, the host is the
            URL's) and, for the API, from no other page than its own (403); a refusal is said in
            ``lang``."""
            api = url.path.startswith("/api/")
            port, said = self.server.server_address[1], REFUSALS[lang]
            ours = [f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]")]
            host = url.netloc if url.scheme or url.netloc else self.headers.get("Host", "")
            if host.lower() not in ours:
                self._json(HTTPStatus.MISDIRECTED_REQUEST,
                           {"error": said["host"].format(ours="、".join(ours) if lang == "zh" else ", ".join(ours),
                                                         host=_shown(host, lang))})
                return False
            origin = self.headers.get("Origin")
            if api and (origin is not None and origin.lower() not in [f"http://{o}" for o in ours]
                        or self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none")):
                self._json(HTTPStatus.FORBIDDEN, {"error": said["origin"].format(
                    origin=_shown(origin, lang) if origin else said["elsewhere"])})
                return False
            return True

        def _json(self, status: HTTPStatus, data: dict, headers: Optional[dict] = None):
            self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8",
                       headers)

        def _send(self, status: HTTPStatus, body: bytes, kind: str, headers: Optional[dict] = None):
            self.send_response(status)
            for name, value in {"Content-Type": kind, "Content-Length": str(len(body)), "Cache-Control": "no-store",
                                "Content-Security-Policy": "default-src 'self'; style-src 'unsafe-inline'; "
                                "script-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
                                "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
                                "Referrer-Policy": "no-referrer", **(headers or {})}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):  # noqa: A002 - http.server's signature
            if log:
                log(f"{self.address_string()} {format % args}")

    return Handler


BUSY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
        b"Retry-After: 1\r\nConnection: close\r\n\r\n"
        + json.dumps({"error": BUSY_SAID}, ensure_ascii=False).encode("utf-8"))
SLOW = (b"HTTP/1.0 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n"
        + json.dumps({"error": SLOW_SAID}, ensure_ascii=False).encode("utf-8"))
STOPPING = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
            b"Connection: close\r\n\r\n" + json.dumps({"error": STOPPING_SAID}, ensure_ascii=False).encode("utf-8"))


class Heads:
    """The connections whose request head (request line and headers) is still coming in, read by
    one thread through a selector: a connection costs no pool thread until its head is whole.
    Each has :data:`HEAD_SECONDS` from its arrival (else 408 and closed); past :data:`MAX_READING`
    heads being read, or :data:`PER_CLIENT` from one address, the one reading longest is answered
    408 and closed (a loopback client needs a few milliseconds: the slowest is the trickler). A
    head larger than :data:`MAX_HEAD` is refused (431). A whole head goes to ``ready``."""

    def __init__(self, ready: Callable, log: Callable[[str], None]):
        self._ready, self._log = ready, log
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._new: list = []  # (socket, address, arrival) handed over by the accepting thread
        self._wake_r, self._wake_w = socket.socketpair()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="liuren-heads", daemon=True)
        self._thread.start()

    def add(self, connection, address, arrived: float) -> None:
        with self._lock:
            self._new.append((connection, address, arrived))
        self._wake()

    def close(self) -> None:
        """Stop reading: the connections still sending their heads are closed unanswered."""
        self._closed = True
        self._wake()
        self._thread.join(5)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b".")

    def _run(self) -> None:
        reading: dict = {}  # socket → [address, arrival, bytes so far]
        while not self._closed:
            with self._lock:
                new, self._new = self._new, []
            for connection, address, arrived in new:
                connection.setblocking(False)
                reading[connection] = [address, arrived, bytearray()]
                self._selector.register(connection, selectors.EVENT_READ, None)
                self._evict(reading, address[0])
            now = time.monotonic()
            for connection, (address, arrived, _) in list(reading.items()):
                if now - arrived > HEAD_SECONDS:
                    self._drop(reading, connection, SLOW, f"{address[0]} sent no whole request within {HEAD_SECONDS:g} s: 408")
            for key, _ in self._selector.select(timeout=0.25):
                if key.fileobj is self._wake_r:
                    with contextlib.suppress(OSError):
                        self._wake_r.recv(4096)
                    continue
                self._read(reading, key.fileobj)
        for connection in list(reading):
            self._drop(reading, connection, None, None)

    def _read(self, reading: dict, connection) -> None:
        address, arrived, head = reading[connection]
        try:
            chunk = connection.recv(16384)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            return self._drop(reading, connection, None, f"{address[0]} left before sending its request")
        head += chunk
        if b"\r\n\r\n" in head or b"\n\n" in head:
            self._selector.unregister(connection)
            del reading[connection]
            connection.setblocking(True)
            self._ready(connection, address, arrived, bytes(head))
        elif len(head) > MAX_HEAD:
            self._drop(reading, connection, TOO_LARGE, f"{address[0]} sent a request head over {MAX_HEAD:,} bytes: 431")

    def _evict(self, reading: dict, client: str) -> None:
        """Past the caps, the connection that has been reading longest (of ``client`` first) goes."""
        mine = [c for c, (address, *_) in reading.items() if address[0] == client]
        for among, cap in ((mine, PER_CLIENT), (list(reading), MAX_READING)):
            while len(among) > cap:
                oldest = min(among, key=lambda c: reading[c][1])
                among.remove(oldest)
                address = reading[oldest][0]
                self._drop(reading, oldest, SLOW, f"{address[0]}: a connection still sending its request after "
                                                  f"{len(among)} others dropped (the slowest of them): 408")
                mine = [c for c in mine if c in reading]

    def _drop(self, reading: dict, connection, answer: Optional[bytes], said: Optional[str]) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(connection)
        reading.pop(connection, None)
        if answer is not None:
            with contextlib.suppress(OSError):
                connection.send(answer)  # non-blocking: what fits; the client is not waited for
        with contextlib.suppress(OSError):
            connection.close()
        if said:
            self._log(said)


TOO_LARGE = (b"HTTP/1.0 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n")


class LoopbackServer(ThreadingHTTPServer):
    """An HTTP server whose connections are read by :class:`Heads` until their request is in, then
    served by a bounded pool of threads: at most ``connections`` at once; one more is answered
    503 at once and closed. Closed, it accepts no more and answers what it holds (interrupted
    again meanwhile: what has not started is answered 503), then returns."""

    daemon_threads = True
    request_queue_size = MAX_CONNECTIONS  # the listen backlog: socketserver's 5 drops a burst's SYNs (1 s resend)
    turns: Optional[Turns] = None  # the answers' worker, closed with the server

    def __init__(self, address: tuple, handler_class, connections: int = MAX_CONNECTIONS,
                 log: Optional[Callable[[str], None]] = None):
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self._slots = threading.BoundedSemaphore(connections)
        self._connections = ThreadPoolExecutor(connections, thread_name_prefix="liuren-connection")
        self._served = threading.local()  # the connection each pool thread serves: its arrival and head
        self.log = log or (lambda line: None)
        self.stopping = False
        super().__init__(address, handler_class)
        self._heads = Heads(self._ready, self.log)

    def arrival(self) -> float:
        """The :func:`time.monotonic` time the connection being served was accepted: a deadline
        counts from it, not from when a busy pool got round to reading the request."""
        return getattr(self._served, "arrival", None) or time.monotonic()

    def head(self) -> bytes:
        """The request head :class:`Heads` read for the connection being served."""
        return getattr(self._served, "head", b"")

    def process_request(self, request, client_address) -> None:
        self._heads.add(request, client_address, time.monotonic())

    def _ready(self, request, client_address, arrived: float, head: bytes) -> None:
        if self.stopping or not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(STOPPING if self.stopping else BUSY)
            self.shutdown_request(request)
            return
        try:
            self._connections.submit(self._serve, request, client_address, arrived, head)
        except RuntimeError:  # the pool has shut down: the server is stopping
            self._slots.release()
            with contextlib.suppress(OSError):
                request.sendall(STOPPING)
            self.shutdown_request(request)

    def _serve(self, request, client_address, arrived: float, head: bytes) -> None:
        self._served.arrival, self._served.head = arrived, head
        try:
            self.finish_request(request, client_address)
        except OSError as error:  # the client left (reset, a closed pipe) or stopped reading
            self.log(f"{client_address[0]} left before its answer was sent ({type(error).__name__})")
        except Exception as error:  # noqa: BLE001 - a bug: one line, and serve the next
            self.log(f"{client_address[0]}: internal error ({type(error).__name__}: {error})")
        finally:
            self.shutdown_request(request)
            self._slots.release()

    def server_close(self) -> None:
        self.stopping = True
        super().server_close()  # the listening socket: no more connections
        self._heads.close()
        try:
            self._connections.shutdown(wait=True)  # what is in hand is answered (each within its deadline)
        except KeyboardInterrupt:  # asked again: what has not started is refused (503)
            if self.turns is not None:
                self.turns.close()
            self._connections.shutdown(wait=True)
        if self.turns is not None:
            self.turns.close()


def make_server(host: str = "127.0.0.1", port: int = 0, school: str = "default",
                log: Optional[Callable[[str], None]] = None, connections: int = MAX_CONNECTIONS,
                deadline: float = DEADLINE) -> LoopbackServer:
    """A server on ``host:port`` (port 0: a free one; see ``server.server_address``) serving at
    most ``connections`` at once, each answer within ``deadline`` seconds of its request."""
    if host not in LOOPBACK:
        raise InputError(f"the app listens on the loopback interface only (127.0.0.1, ::1), not {host!r}",
                         f"本應用只聽本機回送介面（127.0.0.1、::1），不聽「{host}」", "host")
    if not 0 <= port <= 65535:
        raise InputError(f"--port {port} is not a port: give a number from 0 (any free one) to 65535",
                         f"--port {port} 不是埠號：應為 0（任一空埠）至 65535", "port")
    app = App(school)
    turns = Turns(MAX_WAITING)
    try:
        server = LoopbackServer((host, port), handler(app, turns, log, deadline), connections, log)
    except OSError as error:
        turns.close()
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror}",
                         f"無法在 {host}:{port} 聽候：{refused_zh(error)}") from None
    server.app, server.turns = app, turns
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"


def serve(host: str, port: int, school: str, open_browser: bool, quiet: bool, out=print) -> None:
    """Start the app and answer until interrupted, or until ``out`` cannot write a line (an
    OSError: standard output closed or full): the server then stops and that error is raised."""
    failed: list[OSError] = []

    def say(line: str) -> bool:
        """``out(line)``; False, the error kept, once a line could not be written."""
        if not failed:
            try:
                out(line)
            except OSError as error:
                failed.append(error)
        return not failed

    def log(line: str) -> None:  # from a connection's thread, while the server is serving
        if not say(line):
            server.shutdown()  # returns once serve_forever has (at once if it has already)

    server = make_server(host, port, school, None if quiet else log)
    started = time.monotonic()
    terminated = _interrupt_on_sigterm()
    try:
        if say(f"liuren serve: listening on {url_of(server)} (Ctrl-C stops)"):
            if open_browser:
                import webbrowser

                webbrowser.open(url_of(server))
            server.serve_forever()
    finally:
        server.server_close()  # no more connections; those in hand answered (Ctrl-C again: 503)
        terminated()
        say(f"liuren serve: stopped after {time.monotonic() - started:.0f} s")
    if failed:
        raise failed[0]


def _interrupt_on_sigterm() -> Callable[[], None]:
    """Make SIGTERM stop the server as Ctrl-C does (KeyboardInterrupt in the main thread); returns
    what puts the old handler back. Off the main thread, where no handler can be set, nothing."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, old)


__all__ = ["make_server", "serve", "url_of", "App", "shipped_readings"]
