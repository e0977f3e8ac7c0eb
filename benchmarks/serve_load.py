#!/usr/bin/env python3
"""A bounded load test of ``liuren serve`` from loopback: N clients × M requests.

The server runs in this process on 127.0.0.1 (a free port); each client sends a mixed,
seeded sequence of casts, whys and why-nots for charts drawn from the 720 and checks
every answer against a ``Session`` of its own (the 三傳 in the header, the asked
conclusion in the derivation); a 503 (busy) is asked again after its Retry-After. Prints
p50/p95/max latency (to the answer, retries included) per kind and overall, the 503s, and
exits 1 if any answer was wrong or failed (or, measuring memory, if the app passed its budget).
``--charts N [--pairs P]`` measures memory instead: the resident memory of the app as it answers
N distinct casts (day × 月將 × hour) from one school, then 5 distinct casts under each of P
distinct pairs of readings, against ``serve.MEMORY_MB``.

    python benchmarks/serve_load.py                  # 50 clients × 20 requests
    python benchmarks/serve_load.py --clients 5 --requests 4 --json out.json
    python benchmarks/serve_load.py --charts 4000    # memory after 4,000 distinct charts
    python benchmarks/serve_load.py --charts 800 --pairs 20
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from liuren_logic import Session
from liuren_logic.faces.serve import MEMORY_MB, App, make_server, resident_mb, url_of

STEMS, BRANCHES = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"
DAYS = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]
KINDS = ("cast", "why", "whynot")
METHODS = ("伏吟", "返吟", "賊剋", "比用", "涉害", "遙剋", "昴星", "別責", "八專")
MAX_RETRIES = 20  # 503s (busy) a client takes before it counts the request as failed


def plan(clients: int, requests: int, seed: int) -> list[list[tuple]]:
    """Each client's requests: (kind, day, offset, question, value)."""
    rng = random.Random(seed)

    def request() -> tuple:
        question = rng.choice(("initial", "method"))
        value = rng.choice(BRANCHES if question == "initial" else METHODS)
        return rng.choice(KINDS), rng.choice(DAYS), rng.randrange(12), question, value

    return [[request() for _ in range(requests)] for _ in range(clients)]


def expected(requests: list[list[tuple]]) -> dict[tuple, str]:
    """The 三傳 and method of every chart asked about, from a session of our own."""
    session = Session()
    charts = {(day, offset) for client in requests for _, day, offset, _, _ in client}
    return {c: (session.cast_offset(*c).sanchuan, session.cast_offset(*c).method) for c in charts}


def one(base: str, request: tuple, truth: dict) -> tuple[str, float, bool, int]:
    """(kind, seconds to the answer, whether it is right, 503s before it): a busy server's 503
    is asked again after its Retry-After, as a polite client does, up to MAX_RETRIES times."""
    kind, day, offset, question, value = request
    fields = {"day": day, "offset": offset, "q": question}
    if kind == "whynot":
        fields["value"] = value
    started, refused = time.perf_counter(), 0
    while True:
        try:
            with urllib.request.urlopen(f"{base}api/{kind}?{urllib.parse.urlencode(fields)}", timeout=120) as answer:
                status, data = answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            status, data, wait = error.code, json.loads(error.read()), error.headers.get("Retry-After")
        except (urllib.error.URLError, OSError, ValueError):
            return kind, time.perf_counter() - started, False, refused
        if status != 503 or refused == MAX_RETRIES:
            break
        refused += 1
        time.sleep(float(wait or 1))
    took = time.perf_counter() - started
    sanchuan, method = truth[(day, offset)]
    if kind == "whynot" and value == (sanchuan[0] if question == "initial" else method):
        return kind, took, status == 400 and "holds; ask why" in data["error"], refused  # it is so: no why-not
    if status != 200:
        return kind, took, False, refused
    if kind == "cast":
        right = data["header"].endswith("三傳" + sanchuan)
    elif kind == "why":
        right = (f"初傳{sanchuan[0]}" if question == "initial" else method) in data["html"]
    else:
        right = value in data["html"]
    return kind, took, right, refused


def run(clients: int, requests: int, seed: int = 1) -> dict:
    todo = plan(clients, requests, seed)
    truth = expected(todo)
    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = url_of(server)
    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            results = [r for client in pool.map(lambda reqs: [one(base, q, truth) for q in reqs], todo) for r in client]
        wall = time.perf_counter() - started
    finally:
        server.shutdown()
        server.server_close()

    def spread(times: list[float]) -> dict:
        times = sorted(times)
        return {"n": len(times), "p50_ms": round(1000 * statistics.median(times), 1),
                "p95_ms": round(1000 * times[max(0, int(0.95 * len(times)) - 1)], 1),
                "max_ms": round(1000 * times[-1], 1)}

    return {"clients": clients, "requests_each": requests, "wall_s": round(wall, 2),
            "wrong_or_failed": sum(not ok for _, _, ok, _ in results),
            "busy_503": sum(refused for *_, refused in results),
            "retried": sum(refused > 0 for *_, refused in results),
            "all": spread([t for _, t, _, _ in results]),
            **{kind: spread([t for k, t, _, _ in results if k == kind]) for kind in KINDS}}


def reading_pairs(count: int) -> list[str]:
    """``count`` distinct combinations of two shipped readings, each other than the school's own
    (those only a moment decides left out: the charts here are cast from pillars)."""
    from liuren_logic.domain.school import MOMENT_READINGS, read_school
    from liuren_logic.faces.serve import shipped_readings

    own = read_school("default").readings
    others = [(t, r) for t, rs in shipped_readings().items() for r in rs
              if own.get(t) != r and (t, r) not in MOMENT_READINGS and t not in ("day_boundary", "hours")]
    pairs = [(a, b) for a, b in itertools.combinations(others, 2) if a[0] != b[0]]
    return [f"{a[0]}={a[1]},{b[0]}={b[1]}" for a, b in random.Random(7).sample(pairs, count)]


def memory(charts: int, pairs: int = 0, per_pair: int = 5) -> dict:
    """The app's resident memory (MB) as one school answers ``charts`` distinct casts, then as
    ``pairs`` distinct combinations of two readings answer ``per_pair`` distinct casts each."""
    app = App()
    app.answer("readings_info", {})
    start, peak, trace = resident_mb(), 0.0, {}
    began = time.process_time()
    drawn = itertools.product(DAYS, BRANCHES, BRANCHES)
    for n, (day, jiang, hour) in enumerate(itertools.islice(drawn, charts), 1):
        app.answer("cast", {"day": day, "jiang": jiang, "hour": hour})
        peak = max(peak, resident_mb())
        if n % 100 == 0 or n == charts:
            trace[n] = round(resident_mb(), 1)
    after_charts, by_pairs = resident_mb(), {}
    for n, reading in enumerate(reading_pairs(pairs), 1):
        for day, jiang, hour in itertools.islice(drawn, per_pair):
            app.answer("cast", {"day": day, "jiang": jiang, "hour": hour, "reading": reading})
            peak = max(peak, resident_mb())
        if n % 5 == 0 or n == pairs:
            by_pairs[n] = round(resident_mb(), 1)
    return {"charts": charts, "pairs": pairs, "budget_mb": MEMORY_MB, "charts_cap_mb": app.sessions.cap_mb,
            "start_mb": round(start, 1), "after_charts_mb": round(after_charts, 1), "peak_mb": round(peak, 1),
            "end_mb": round(resident_mb(), 1), "within_budget": peak < MEMORY_MB, "recycled": app.sessions.recycled,
            "mb_per_chart": round(app.sessions.mb_per_chart, 3), "mb_by_charts": trace, "mb_by_pairs": by_pairs,
            "cpu_s": round(time.process_time() - began, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--charts", type=int, help="measure memory over this many distinct charts instead")
    parser.add_argument("--pairs", type=int, default=0, help="with --charts: then this many pairs of readings")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    figures = memory(args.charts, args.pairs) if args.charts else run(args.clients, args.requests, args.seed)
    text = json.dumps(figures, ensure_ascii=False, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 1 if figures.get("wrong_or_failed") or figures.get("within_budget") is False else 0


if __name__ == "__main__":
    sys.exit(main())
