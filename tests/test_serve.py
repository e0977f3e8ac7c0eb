"""The teaching app's server: its API answers as the command line does, bounded, on loopback."""
from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from liuren_logic import InputError, Session
from liuren_logic.cli import main
from liuren_logic.serve import MAX_QUERY, make_server, url_of


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
    ({"day": "辛巳", "offset": "x"}, "--offset: invalid int value: 'x'"),
    ({"at": "1998-13-40 12:00"}, "1998-13-40"),
    ({"day": "辛巳", "offset": "3", "reading": "punishment=/etc/passwd.dl"}, "no reading '/etc/passwd.dl'"),
    ({"day": "辛巳", "offset": "3", "reading": "colour=blue"}, "unknown topic 'colour'"),
    ({"day": "辛巳" * (MAX_QUERY // 8)}, "too long"),
])
def test_bad_input_gets_the_command_lines_one_line(server, fields, words):
    status, data = get(server, "/api/cast", **fields)
    assert status == 400 and words in data["error"] and "\n" not in data["error"]


def test_unknown_pages_and_methods(server):
    assert get(server, "/api/nothing")[0] == 404
    request = urllib.request.Request(server + "api/cast", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=10)
    assert error.value.code == 405


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
    status, data = get(server, "/api/cast", at="1998-11-30 12:00", sex="m")
    assert status == 400 and "--born" in data["error"]


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
    status, error = get(server, "/api/quiz/answer", **data["chart"], question="initial", choice="甲")
    assert status == 400 and "not a choice" in error["error"]
