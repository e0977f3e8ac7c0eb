"""The teaching app's server: its API answers as the command line does, bounded, on loopback."""
from __future__ import annotations

import functools
import gc
import http.client
import itertools
import json
import multiprocessing
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from liuren_logic import InputError, Session
from liuren_logic.faces.cli import main
from liuren_logic.faces.serve import MAX_QUERY, Sessions, make_server, url_of


@pytest.fixture(scope="module")
def server():
    server = make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield url_of(server)
    server.shutdown()
    server.server_close()


def get(base: str, path: str, **fields) -> tuple[int, dict | str]:
    url = base + path.lstrip("/") + ("?" + urllib.parse.urlencode(fields) if fields else "")
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            status, body, kind = answer.status, answer.read().decode("utf-8"), answer.headers["Content-Type"]
    except urllib.error.HTTPError as error:
        status, body, kind = error.code, error.read().decode("utf-8"), error.headers["Content-Type"]
    return status, json.loads(body) if kind.startswith("application/json") else body


def test_the_page_is_one_document_that_fetches_nothing_elsewhere(server):
    status, page = get(server, "/")
    assert status == 200 and page.startswith("<!DOCTYPE html>")
    assert "http://" not in page and "https://" not in page and "<script src" not in page
    assert "起課" in page
    assert "cast" in get(server, "/", lang="en")[1]


def test_cast_answers_with_the_board_the_command_line_draws(server):
    status, data = get(server, "/api/cast", day="辛巳", jiang="寅", hour="午")
    assert status == 200 and data["id"] == "辛巳日寅將午時"
    assert "三傳午寅戌" in data["header"]
    chart = Session().cast("辛巳", jiang="寅", hour="午")
    for pattern in ("貴人入獄", "鬼呼"):
        assert f'data-value="{pattern}"' in data["html"] and ("pattern", pattern) in {("pattern", p) for _, p in chart.patterns}
    assert 'data-key="initial"' in data["html"] and 'data-q="general" data-value="午"' in data["html"]


def test_cast_from_a_moment_and_by_offset(server):
    status, data = get(server, "/api/cast", at="1998-11-30 12:00", tz="Asia/Shanghai")
    assert status == 200 and "辛巳" in data["header"] and "小雪" in data["html"]
    status, data = get(server, "/api/cast", day="丁卯", offset="10")
    assert status == 200 and data["id"] == Session().cast_offset("丁卯", 10).id


def test_why_and_why_not_answer_with_the_derivation(server):
    status, data = get(server, "/api/whynot", day="辛巳", jiang="寅", hour="午", q="initial", value="丑")
    assert status == 200 and 1 <= len(data["lines"]) <= 3
    assert "賊剋" in data["lines"][0] and "丑" in data["lines"][1] and "<svg" in data["html"]
    status, data = get(server, "/api/why", day="辛巳", jiang="寅", hour="午", q="pattern", value="貴人入獄")
    assert status == 200 and "貴人入獄" in data["html"] and "<svg" in data["html"]


def test_a_reading_switched_shows_what_changes_with_both_derivations(server):
    status, data = get(server, "/api/compare", day="庚午", offset="0", vs="punishment=seed000", q="middle")
    assert status == 200
    changed = {c["conclusion"]: (c["before"], c["after"]) for c in data["changes"]}
    assert changed["三傳"][0] == Session().cast_offset("庚午", 0).sanchuan
    assert changed["三傳"][1] == Session(readings={"punishment": "seed000"}).cast_offset("庚午", 0).sanchuan
    assert data["html"].count('class="lr-side"') == 2


@pytest.mark.parametrize("fields, words", [
    ({"day": "甲丑", "jiang": "寅", "hour": "午"}, "impossible pillar 甲丑"),
    ({"day": "辛巳", "jiang": "寅", "hour": "Q"}, "hour"),
    ({"day": "辛巳", "offset": "x"}, "“offset”: 'x' is not a whole number"),  # the form's field, not --offset
    ({"at": "1998-13-40 12:00"}, "1998-13-40"),
    ({"day": "辛巳", "offset": "3", "reading": "punishment=/etc/passwd.dl"}, "no reading '/etc/passwd.dl'"),
    ({"day": "辛巳", "offset": "3", "reading": "colour=blue"}, "unknown topic 'colour'"),
    ({"day": "辛巳" * (MAX_QUERY // 8)}, "too long"),
])
def test_bad_input_gets_the_command_lines_one_line(server, fields, words):
    status, data = get(server, "/api/cast", **fields, lang="en")
    assert status == 400 and words in data["error"] and "\n" not in data["error"] and "--" not in data["error"]


@pytest.mark.parametrize("fields, label, words", [
    ({"at": "1998-13-40 12:00"}, "時刻", "「1998-13-40 12:00」讀不出"),
    ({"at": "1998-11-30 12:00", "tz": "Mars/Base"}, "時區", "「Mars/Base」不識"),
    ({"day": "辛巳", "jiang": "寅"}, "占時", "未填"),
    ({}, "日干支", "未填"),
    ({"day": "甲丑", "jiang": "寅", "hour": "午"}, "日干支", "無甲丑此干支"),
    ({"day": "辛巳", "jiang": "X", "hour": "午"}, "月將", "「X」非地支"),
    ({"day": "辛巳", "offset": "13"}, "轉數", "「13」須為 0 至 11 之整數"),
    ({"day": "辛巳", "offset": "x"}, "轉數", "「x」不是數"),
    ({"day": "辛巳", "offset": "3", "matter": "foo"}, "占事", "「foo」非占事"),
    ({"day": "辛巳", "jiang": "寅", "hour": "午", "month": "亥亥"}, "月建", "「亥」非天干"),
    ({"day": "辛巳", "offset": "3", "born": "abc"}, "生年或生日", "「abc」讀不出"),
    ({"day": "辛巳", "offset": "3", "born": "1970", "sex": "q"}, "男女", "「q」不識"),
    ({"at": "1998-11-30 12:00", "latitude": "x"}, "緯度", "「x」不是數"),
    ({"day": "辛巳", "offset": "3", "at": "1998-11-30 12:00"}, "時刻", "只可擇一"),
    ({"day": "辛巳", "offset": "3", "reading": "colour=blue"}, None, "無此異說之題「colour」"),
])
def test_an_error_on_the_chinese_page_names_its_field_and_says_what_is_wrong_in_chinese(server, fields, label, words):
    """The zh page: 〔the field's label〕 then the reason in Chinese, no English word (the value echoed
    in 「」 aside); the field marked. The English page says the same in English, from the same error."""
    status, data = get(server, "/api/cast", **fields)
    said = data["error"]
    assert status == 400 and words in said and said.startswith(f"〔{label}〕" if label else "無"), said
    echoed = r"「[^」]*」|IANA|UTC|Asia/Shanghai"  # the value given, and names that are not words
    assert not re.search(r"[A-Za-z]{2,}", re.sub(echoed, "", said)), said
    if label:
        assert data["field"] in fields or data["field"] in ("hour", "day"), data
    status, data = get(server, "/api/cast", **fields, lang="en")
    assert status == 400 and re.search(r"\b[a-z]{4,}\b", data["error"]) and "〔" not in data["error"]


def test_unknown_pages_and_methods(server):
    assert get(server, "/api/nothing")[0] == 404
    assert get(server, "/api/nothing")[1]["error"] == "無此頁「/api/nothing」"
    request = urllib.request.Request(server + "api/cast", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=10)
    assert error.value.code == 405 and json.loads(error.value.read())["error"] == "本應用只應讀取之請求"
    request = urllib.request.Request(server + "api/cast?lang=en", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=10)
    assert json.loads(error.value.read())["error"] == "the app only answers GET"


def test_listens_on_loopback_only():
    with pytest.raises(InputError, match="loopback"):
        make_server("0.0.0.0", 0)
    assert main(["serve", "--host", "192.168.1.1"]) == 2


def test_concurrent_clients_each_get_their_own_right_answer(server):
    session = Session()
    charts = [(day, offset) for day in ("甲子", "辛巳", "丁卯", "庚午", "癸酉") for offset in (0, 3, 6, 10)]
    expected = {f"{d}/{o}": session.cast_offset(d, o).sanchuan for d, o in charts}

    def client(chart):
        day, offset = chart
        status, data = get(server, "/api/cast", day=day, offset=str(offset))
        return f"{day}/{offset}", status, data["header"]

    with ThreadPoolExecutor(8) as pool:
        for key, status, head in pool.map(client, charts * 2):
            assert status == 200 and head.endswith("三傳" + expected[key])


def test_the_loopback_load_test_gets_every_answer_right():
    """benchmarks/serve_load.py, small: mixed casts, whys and why-nots, each answer checked."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "serve_load.py"
    spec = importlib.util.spec_from_file_location("serve_load", path)
    load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load)
    figures = load.run(clients=4, requests=5, seed=7)
    assert figures["all"]["n"] == 20 and figures["wrong_or_failed"] == 0


def test_a_chart_cast_from_pillars_takes_the_month_and_year(server):
    """The app takes the cast command's own options: --month and --year bring the month and year spirits."""
    plain = get(server, "/api/cast", day="辛巳", jiang="寅", hour="午")[1]["html"]
    status, data = get(server, "/api/cast", day="辛巳", jiang="寅", hour="午", month="癸亥", year="戊寅")
    assert status == 200
    dated = Session().cast_at("1998-11-30 12:00", "Asia/Shanghai")
    assert {s for _, _, s in dated.spirits} <= set(re.findall(r'data-q="spirit" data-value="([^"]+)"', data["html"]))
    assert len(data["html"]) > len(plain)


def test_the_querent_brings_the_life_and_travelling_year(server):
    """--born and --sex, as the cast command takes them: 本命 and 行年 on the board."""
    status, data = get(server, "/api/cast", at="1998-11-30 12:00", born="1970", sex="m")
    assert status == 200 and "行年" in data["html"] and "甲午" in data["html"]
    status, data = get(server, "/api/cast", at="1998-11-30 12:00", sex="m", lang="en")
    assert status == 400 and "“born”" in data["error"] and "--" not in data["error"]  # the field, not the flag
    status, data = get(server, "/api/cast", at="1998-11-30 12:00", sex="m")
    assert status == 400 and data["error"] == "〔男女〕須並給生年或生日（行年自生年起算）"


def exchange(base: str, path: str = "/api/readings", **headers) -> tuple[int, dict, dict | str]:
    """(status, headers, body) of a GET sent with these headers (``Host`` as given, or the server's)."""
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        connection.request("GET", path, headers={name.replace("_", "-"): value for name, value in headers.items()})
        answer = connection.getresponse()
        body = answer.read().decode("utf-8")
        kind = answer.headers.get("Content-Type", "")
        return answer.status, dict(answer.headers), json.loads(body) if kind.startswith("application/json") else body
    finally:
        connection.close()


def test_only_requests_addressed_to_this_server_by_a_loopback_name_are_answered(server):
    port = urllib.parse.urlsplit(server).port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert exchange(server, Host=host)[0] == 200, host
    for host in (f"rebound.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}", f"localhost:{port}.evil", "x" * 5000):
        status, _, data = exchange(server, "/api/readings?lang=en", Host=host)
        assert status == 421 and "not Host" in data["error"] and len(data["error"]) < 200, host
        status, _, data = exchange(server, Host=host)  # the Chinese page's, the default
        assert status == 421 and data["error"].startswith("本伺服器只應寄往") and len(data["error"]) < 200, host
        assert f"不應寄往「{host[:80]}" in data["error"] and "Host" not in data["error"], host
    assert exchange(server, "/", Host=f"rebound.example:{port}")[0] == 421  # the page too


def test_the_api_answers_its_own_page_only(server):
    port = urllib.parse.urlsplit(server).port
    assert exchange(server, Origin=f"http://127.0.0.1:{port}", Sec_Fetch_Site="same-origin")[0] == 200
    assert exchange(server, Sec_Fetch_Site="none")[0] == 200  # typed into the address bar
    for headers in ({"Origin": "http://evil.example"}, {"Origin": f"http://127.0.0.1:{port + 1}"},
                    {"Origin": "null"}, {"Sec_Fetch_Site": "cross-site"}, {"Sec_Fetch_Site": "same-site"}):
        query = {"day": "辛巳", "offset": 3, "lang": "en"}
        status, _, data = exchange(server, "/api/cast?" + urllib.parse.urlencode(query), **headers)
        assert status == 403 and "its own page only" in data["error"], headers
        del query["lang"]  # the Chinese page's, the default
        status, _, data = exchange(server, "/api/cast?" + urllib.parse.urlencode(query), **headers)
        assert status == 403 and data["error"].startswith("此介面只應本頁之請求"), headers
        assert not re.search(r"[A-Za-z]{2,}", re.sub(r"「[^」]*」", "", data["error"])), headers
    assert exchange(server, "/", Origin="http://evil.example")[0] == 200  # a link to the page is fine


def test_no_answer_may_be_framed_or_sniffed(server):
    for path in ("/", "/api/readings", "/api/nothing", "/api/cast?day=x"):
        status, headers, _ = exchange(server, path)
        assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff", path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path


def test_a_raw_utf8_request_line_is_read(server):
    """寅 is E5 AF 85 in UTF-8; http.server read 0x85 (NEL in Latin-1) as a space and refused the line."""
    url = urllib.parse.urlsplit(server)
    with socket.create_connection((url.hostname, url.port), timeout=60) as connection:
        request = f"GET /api/cast?day=辛巳&jiang=寅&hour=午 HTTP/1.0\r\nHost: {url.netloc}\r\n\r\n"
        connection.sendall(request.encode("utf-8"))
        reply = b"".join(iter(lambda: connection.recv(65536), b""))
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200") and json.loads(body)["id"] == "辛巳日寅將午時"


def test_connections_past_the_cap_are_refused_at_once_and_the_rest_served():
    """Idle connections hold no slot (their request is not in); requests in hand past the cap get 503."""
    server = make_server("127.0.0.1", 0, connections=2)
    answer = server.app.answer
    server.app.answer = lambda route, fields: (time.sleep(1.5), answer(route, fields))[1]  # slow answers hold slots
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base, address = url_of(server), server.server_address
    try:
        idle = [socket.create_connection(address, timeout=10) for _ in range(8)]
        time.sleep(0.2)
        with ThreadPoolExecutor(2) as pool:
            held = [pool.submit(exchange, base) for _ in range(2)]
            time.sleep(0.5)
            started = time.monotonic()
            status, headers, data = exchange(base)
            assert status == 503 and headers["Retry-After"] == "1" and "too many connections" in data["error"]
            assert data["error"].startswith("忙：同時連線過多") and "\n" not in data["error"]  # read before the request: both
            assert time.monotonic() - started < 1
            assert [h.result()[0] for h in held] == [200, 200]
        assert exchange(base)[0] == 200
        for connection in idle:
            connection.close()
    finally:
        server.shutdown()
        server.server_close()


def _trickle(address: tuple, until: float) -> None:
    """A slowloris client: a request line, then a header line every half second, again and again."""
    while time.monotonic() < until:
        try:
            with socket.create_connection(address, timeout=10) as connection:
                connection.send(b"GET / HTTP/1.1\r\n")
                while time.monotonic() < until:
                    connection.send(b"X-Slow: 1\r\n")
                    time.sleep(0.5)
        except OSError:
            time.sleep(0.05)


def test_trickling_connections_leave_a_normal_client_answered():
    """70 connections sending their headers a line at a time hold no slot: a normal client is answered
    within 3 s while they trickle, and each trickler is cut off at the head's time limit (408)."""
    logged = []
    server = make_server("127.0.0.1", 0, log=logged.append)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = url_of(server)
    try:
        assert get(base, "/api/cast", day="辛巳", offset="3")[0] == 200  # the school loaded
        until = time.monotonic() + 8
        tricklers = [threading.Thread(target=_trickle, args=(server.server_address, until), daemon=True)
                     for _ in range(70)]
        for trickler in tricklers:
            trickler.start()
        time.sleep(1)
        took = []
        for offset in range(4):
            started = time.monotonic()
            status, data = get(base, "/api/cast", day="辛巳", offset=str(offset))
            took.append(time.monotonic() - started)
            assert status == 200 and data["id"].startswith("辛巳日"), data
            time.sleep(0.5)
        for trickler in tricklers:
            trickler.join(20)
    finally:
        server.shutdown()
        server.server_close()
    print(f"\nunder 70 tricklers a normal client waited {', '.join(f'{t:.2f}' for t in took)} s")
    assert max(took) < 3.0 and any("no whole request within" in line for line in logged)


def test_a_client_that_leaves_is_one_line_in_the_log_never_a_traceback(capfd):
    logged = []
    server = make_server("127.0.0.1", 0, log=logged.append)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address
    try:
        for n in range(6):
            with socket.create_connection((host, port), timeout=10) as connection:
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                connection.sendall(f"GET /api/cast?day=%E8%BE%9B%E5%B7%B3&offset={n} HTTP/1.1\r\n"
                                   f"Host: 127.0.0.1:{port}\r\n\r\n".encode())
            # closed at once with a reset: the answer finds no one to take it
        with socket.create_connection((host, port), timeout=10) as connection:
            connection.sendall(b"GET / HTTP/1.1\r\n")  # and one that leaves before its request is in
        time.sleep(3)
    finally:
        server.shutdown()
        server.server_close()
    _, err = capfd.readouterr()
    assert "Traceback" not in err and err == ""
    assert any("left before its answer was sent" in line for line in logged), logged
    assert any("left before sending its request" in line for line in logged), logged
    assert all("\n" not in line for line in logged)


def test_the_absolute_form_for_another_host_is_refused_like_a_wrong_host(server):
    port = urllib.parse.urlsplit(server).port
    for target, status in (("http://evil.example/api/readings?lang=en", 421),
                           (f"http://evil.example:{port}/api/readings?lang=en", 421),
                           (f"http://127.0.0.1:{port}/api/readings?lang=en", 200)):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
            connection.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        assert answer.split(b" ")[1] == str(status).encode(), (target, answer[:200])
        if status == 421:
            assert b"evil.example" in answer and b"not Host" in answer


def test_a_field_that_starts_with_a_dash_is_a_value_never_an_option(server):
    status, data = get(server, "/api/cast", day="--help", offset="3", lang="en")
    assert status == 400 and "cannot read the day '--help'" in data["error"] and data["field"] == "day"
    status, data = get(server, "/api/cast", at="2020-01-01 12:00", tz="-05:00")
    assert status == 200 and data["id"].startswith("2020-01-01 12:00:00-0500"), data


SERVE_IN_FLIGHT = """
import sys
from liuren_logic.faces.console import run
sys.argv = ["liuren", "serve", "--port", "0", "--quiet"]
sys.exit(run())
"""


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_stop_with_requests_in_flight_answers_each_or_refuses_it_never_500(signal_name):
    import signal
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", SERVE_IN_FLIGHT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        line = child.stdout.readline()
        base = re.search(r"http://\S+/", line).group()
        assert get(base, "/api/readings")[0] == 200
        stems, branches = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"
        with ThreadPoolExecutor(20) as pool:
            asked = [pool.submit(get, base, "/api/cast", day=stems[n % 10] + branches[n % 12], offset=str(n % 12))
                     for n in range(20)]
            time.sleep(0.4)
            child.send_signal(getattr(signal, signal_name))
            statuses = Counter()
            for future in asked:
                try:
                    statuses[future.result()[0]] += 1
                except OSError:  # refused or reset: never accepted
                    statuses["unanswered"] += 1
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    print(f"\n{signal_name} with 20 requests in flight: {dict(statuses)}")
    assert child.returncode == 0 and "Traceback" not in err and "stopped after" in out
    assert set(statuses) <= {200, 503} and statuses[200] >= 1  # each request in hand answered, or refused
def _compare(base: str, n: int) -> tuple[int, str, float]:
    """One client's compare (chart ``n`` of the burst): its status, error and seconds taken."""
    stems, branches = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"
    started = time.monotonic()
    status, data = get(base, "/api/compare", day=stems[n % 10] + branches[n % 12], offset=str(n // 12),
                       vs="punishment=seed000", q="middle", lang="en" if n % 2 else "zh")
    return status, data.get("error", ""), time.monotonic() - started


def _burst(base: str, clients: int) -> list[tuple[int, str, float]]:
    """``clients`` compares at once, from threads of this (child) process."""
    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(functools.partial(_compare, base), range(clients)))


def test_a_burst_of_compares_does_not_lock_out_the_next_client():
    """60 compares at once (each chart another one): those that cannot be answered by their deadline
    are refused at once or never started, so that a probe right after the burst is answered at once.
    The clients run in a child process: in the server's own, their 60 threads would take the GIL
    from it and the times measured would be the test's."""
    server = make_server("127.0.0.1", 0, deadline=3.0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = url_of(server)
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as clients:
            clients.submit(_compare, base, 0).result()  # the child is up before the burst is timed
            started = time.monotonic()
            answers = clients.submit(_burst, base, 60).result()
            ended = time.monotonic()
        status, data = get(base, "/api/cast", day="辛巳", jiang="寅", hour="午")
        probe = time.monotonic() - ended
    finally:
        server.shutdown()
        server.server_close()
    statuses = Counter(status for status, _, _ in answers)
    busy = [took for status, error, took in answers if status == 503 and error.startswith(("busy", "忙："))]
    late = [took for status, error, took in answers if status == 503 and error.startswith("no answer")
            or error.endswith("秒內未能作答")]
    for n, (refused, error, _) in enumerate(answers):  # odd clients asked in English, even ones in Chinese
        assert refused != 503 or bool(re.match("[a-z]", error)) == bool(n % 2), (n, error)
    print(f"\nburst of 60 compares: {statuses[200]} answered, {len(busy)} refused at once (at most "
          f"{max(busy, default=0):.2f} s), {len(late)} late; the burst took {ended - started:.2f} s, the probe {probe:.2f} s")
    assert set(statuses) <= {200, 503} and statuses[200] >= 1 and busy and len(busy) + len(late) == statuses[503]
    # refused without waiting for the deadline (through a loopback socket: not instantly)
    assert max(busy) < 3.0 and max(took for _, _, took in answers) < 3.0 + 1.5
    assert status == 200 and data["id"] == "辛巳日寅將午時" and probe < 2.0


def test_a_session_is_loaded_afresh_once_the_memory_its_charts_take_passes_the_cap():
    counter = itertools.count()
    sessions = Sessions(cap_mb=3, measure=lambda: float(next(counter)))  # each answer grows by 1 MB
    first = sessions.measured(lambda: sessions.get({}))  # loads: not measured
    assert sessions.mb_per_chart == 0
    for offset in (0, 0, 1, 2):  # the second 0 casts nothing new: its growth is not a chart's
        assert sessions.measured(lambda: sessions.get({}).cast_offset("甲子", offset).sanchuan)
    assert sessions.mb_per_chart == 1.0 and sessions.sizes() == {"(the school's own)": (3, 3.0)}
    assert sessions.recycled == 0
    other = sessions.get({"punishment": "seed000"})
    assert sessions.get({}) is not first and sessions.recycled == 1
    assert sessions.sizes() == {"punishment=seed000": (0, 0.0), "(the school's own)": (0, 0.0)}
    released = weakref.ref(first)
    del first
    gc.collect()
    assert released() is None and sessions.get({"punishment": "seed000"}) is other


def test_the_trainer_draws_asks_and_answers(server):
    """/api/quiz: a chart the method decides, its questions; /api/quiz/answer: the verdict with its why-not."""
    status, data = get(server, "/api/quiz", method="涉害", keti="1")
    assert status == 200 and [q["key"] for q in data["questions"]] == ["method", "initial", "middle", "final", "keti"]
    assert "lr-lessons" in data["html"] and "lr-transmissions" not in data["html"]  # the answer is not on show
    assert len(data["questions"][-1]["choices"]) == 4 and "涉害" in data["questions"][0]["choices"]
    chart = Session().cast_offset(data["chart"]["day"], int(data["chart"]["offset"]))
    assert chart.method == "涉害"
    status, verdict = get(server, "/api/quiz/answer", **data["chart"], question="method", choice="賊剋")
    assert status == 200 and not verdict["right"] and verdict["answer"] == "涉害"
    assert verdict["why_not"] and "你選賊剋：" in verdict["html"] and verdict["steps"]
    status, verdict = get(server, "/api/quiz/answer", **data["chart"], question="initial",
                          choice=chart.transmissions[0].branch)
    assert status == 200 and verdict["right"] and not verdict["why_not"]
    status, error = get(server, "/api/quiz/answer", **data["chart"], question="initial", choice="甲", lang="en")
    assert status == 400 and "not a choice" in error["error"]
    status, error = get(server, "/api/quiz/answer", **data["chart"], question="initial", choice="甲")
    assert status == 400 and error["error"].startswith("「甲」不在選項之中")


def test_the_readings_are_offered_by_their_names_not_their_ids(server):
    status, info = get(server, "/api/readings")
    punishment = info["topics"]["punishment"]
    assert status == 200 and punishment["readings"] == ["common", "seed000"]
    assert punishment["names"]["zh"] == ["三刑", "通行", "四鏈"]
    assert punishment["names"]["en"][2] == "《福山堂》's four chains"
    for topic in info["topics"].values():  # every shipped topic and reading has a Chinese name
        assert len(topic["names"]["zh"]) == len(topic["readings"]) + 1
        assert all(any("\u4e00" <= ch <= "\u9fff" for ch in name) for name in topic["names"]["zh"]), topic


def test_the_command_lines_notes_go_into_the_answer_not_onto_the_servers_stderr(capfd):
    """A moment with a longitude and latitude the school ignores, and no zone: the command line warns on
    stderr; the app says so on the board, in the page's language, and writes nothing on its stderr."""
    from liuren_logic.faces.serve import App

    app, moment = App(), {"at": "1998-11-30 12:00", "longitude": "116.4", "latitude": "39.9"}
    capfd.readouterr()
    zh = app.answer("cast", moment)
    en = app.answer("cast", {**moment, "lang": "en"})
    for route, extra in (("why", {"q": "initial"}), ("whynot", {"q": "initial", "value": "丑"}),
                         ("compare", {"vs": "punishment=seed000"}),
                         ("quiz_answer", {"question": "initial", "choice": "午"})):
        assert app.answer(route, {**moment, **extra}), route
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert [note.split("：")[0] for note in zh["notes"]] == ["經度不起作用", "緯度不起作用", "未給時區"]
    named = r"「[^」]*」|Asia/Shanghai|UTC"  # a reading's name quoted, the zone: no English words besides
    assert not re.search(r"[A-Za-z]{2,}", re.sub(named, "", "".join(zh["notes"]))), zh["notes"]
    assert [note.split(" ")[0] for note in en["notes"]] == ["--longitude", "--latitude", "no"]
    assert all(f'<p class="lr-note">{note}</p>' in zh["html"] for note in zh["notes"])
    quiet = app.answer("cast", {**moment, "tz": "Asia/Shanghai", "reading": "hours=true_solar,daynight=sun"})
    assert quiet["notes"] == [] and 'class="lr-note"' not in quiet["html"] and capfd.readouterr() == ("", "")
