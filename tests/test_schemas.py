"""Every command's --json against the shipped JSON Schemas (liuren_logic/schemas/), and the
promises of the schema: the same objects everywhere, --simplified on prose only, ISO 8601 input."""
from __future__ import annotations

import json
import re
from importlib.resources import files

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from liuren_logic.faces.cli import main
from liuren_logic.domain.jsondata import SCHEMA_VERSION

CHART = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
SCHEMAS = {p.name.removesuffix(".schema.json"): json.loads(p.read_text("utf-8"))
           for p in files("liuren_logic").joinpath("schemas").iterdir() if p.name.endswith(".schema.json")}
REGISTRY = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in SCHEMAS.values())


def run_json(capsys, *argv) -> dict:
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def valid(data: dict) -> dict:
    """``data`` after checking it against the schema it names."""
    kind = data["schema"].removeprefix("liuren-logic/")
    errors = sorted(Draft202012Validator(SCHEMAS[kind], registry=REGISTRY).iter_errors(data), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    assert data["schema_version"] == SCHEMA_VERSION
    return data


def test_the_schemas_are_valid_json_schema():
    assert set(SCHEMAS) == {"common", "chart", "derivation", "lesson", "table", "audit", "cases", "against", "topics"}
    for schema in SCHEMAS.values():
        Draft202012Validator.check_schema(schema)
    broken = {"schema": "liuren-logic/chart", "schema_version": SCHEMA_VERSION, "transmissions": [{"position": 1}]}
    assert not Draft202012Validator(SCHEMAS["chart"], registry=REGISTRY).is_valid(broken)


@pytest.mark.parametrize("argv, kind", [
    (["cast", *CHART], "chart"),
    (["cast", "--at", "1998-11-30 12:00"], "chart"),
    (["cast", "--at", "1998-11-30 12:00", "--matter", "家宅", "--question", "弟犯邪，是否風水"], "chart"),
    (["cast", *CHART, "--natal", "戌", "--xingnian", "卯"], "chart"),  # 年命 given without a birth year
    (["why", "initial", *CHART], "derivation"),
    (["why", "clashes(子, 午)"], "derivation"),
    (["why", "jiang", "--at", "1998-11-30 12:00"], "derivation"),
    (["why-not", "initial", "丑", *CHART], "derivation"),
    (["teach", *CHART], "lesson"),
    (["teach", "--day", "丁卯", "--offset", "10", "--reading", "shehai=shortcut"], "lesson"),
    (["teach", "--at", "1998-11-30 12:00", "--matter", "家宅"], "lesson"),  # its 斷 step: 另有N條 is a line too
    (["table", "--night"], "table"),
    (["audit", "--vs", "punishment=seed000", "--times", "day", "--explain", "庚午/0"], "audit"),
    (["audit", "--vs", "day_boundary=00:00", "--from", "2024-03-01 21:00", "--to", "2024-03-02 02:00", "--step", "30m"],
     "audit"),
    (["audit", "--vs", "shehai=shortcut", "--cases", "tests/data/cases/seed_cases.json"], "cases"),
    (["audit", "--cases", "tests/data/cases/seed_cases.json"], "topics"),
    (["audit", "--against", "tests/data/against/kinliuren.json"], "against"),
])
def test_every_commands_json_follows_its_schema(capsys, argv, kind):
    data = valid(run_json(capsys, *argv))
    assert data["schema"] == f"liuren-logic/{kind}"


def test_a_chart_is_the_same_objects_in_cast_table_why_and_audit(capsys):
    cast = valid(run_json(capsys, "cast", "--day", "庚午", "--offset", "0"))
    row = next(r for r in valid(run_json(capsys, "table"))["rows"] if r["id"] == cast["id"])
    assert row["transmissions"] == cast["transmissions"] and (row["jiang"], row["hour"]) == ("午", "午")
    audit = valid(run_json(capsys, "audit", "--vs", "punishment=seed000", "--times", "day"))
    before = next(r["before"] for r in audit["rows"] if r["before"]["id"] == cast["id"])
    assert before == row
    why = valid(run_json(capsys, "why", "initial", "--day", "庚午", "--offset", "0"))
    assert why["chart"] == cast["id"]


def test_a_spirit_that_is_a_day_mark_says_so_and_is_among_the_marks(capsys):
    """日德 and 日祿 are spirits (kb/spirits/day.dl) and day marks (kb/patterns/marks.dl): the JSON
    lists them under spirits with ``mark`` set and under ``marks``, the board on the marks line only."""
    cast = valid(run_json(capsys, "cast", "--day", "丁卯", "--offset", "10"))
    marked = {(s["spirit"], s["branch"]) for s in cast["spirits"] if s["mark"]}
    assert ("日德", "亥") in marked and marked <= {(m["mark"], m["branch"]) for m in cast["marks"]}
    assert not any(s["mark"] for s in cast["spirits"] if s["spirit"] not in ("日德", "日祿"))
    main(["cast", "--day", "丁卯", "--offset", "10"])
    board = capsys.readouterr().out
    spirits = board[board.index("神煞:"):]
    listed = {re.sub("[吉凶]$", "", word) for line in spirits.splitlines() for word in line.split()}
    assert "日德 亥臨丑" in board and not {name for name, _ in marked} & listed


def test_derivation_nodes_carry_data_not_prose(capsys):
    nodes = valid(run_json(capsys, "why", "initial", *CHART))["nodes"]
    rule = next(n for n in nodes if n.get("rule") == "zeike.yuanshou")
    assert rule["source"] == {"book": "000", "line": rule["source"]["line"]} and rule["source"]["line"]
    assert rule["where"]["file"].startswith("kb/") and rule["where"]["line"] > 0
    assert isinstance(rule["bindings"], dict) and rule["bindings"]
    given = next(n for n in nodes if n["kind"] == "fact" and n["pred"] == "day")
    assert given["where"] == {"given": "day 辛巳"}


def test_the_calendar_is_data_with_its_reasons_apart(capsys):
    calendar = valid(run_json(capsys, "cast", "--at", "1998-11-30 12:00"))["calendar"]
    assert calendar["pillars"] == {"year": "戊寅", "month": "癸亥", "day": "辛巳", "hour": "甲午"}
    assert calendar["zhongqi"] == {"name": "小雪", "at": "1998-11-22T20:34:12+08:00"}
    assert calendar["jie"]["name"] == "立冬" and calendar["lunar_month"] == {"number": 10, "leap": False}
    assert calendar["moment"] == "1998-11-30T12:00:00+08:00" and "立春" in calendar["reasons"]["year_pillar"]


def test_iso_8601_with_an_offset_is_the_same_moment(capsys):
    plain = run_json(capsys, "cast", "--at", "1998-11-30 12:00")
    for text in ("1998-11-30T12:00+08:00", "1998-11-30T04:00Z", "1998-11-30T04:00:00+00:00"):
        assert run_json(capsys, "cast", "--at", text) == plain, text


def test_simplified_changes_the_prose_only(capsys):
    plain = run_json(capsys, "cast", "--day", "丁未", "--jiang", "丑", "--hour", "戌")
    assert run_json(capsys, "cast", "--day", "丁未", "--jiang", "丑", "--hour", "戌", "--simplified") == plain
    lesson = run_json(capsys, "teach", "--day", "丁未", "--jiang", "丑", "--hour", "戌", "--simplified")
    assert "八专" in json.dumps(lesson, ensure_ascii=False) and lesson["chart"] == plain["id"]
    assert [s["rules"] for s in lesson["steps"]] == [s["rules"] for s in run_json(
        capsys, "teach", "--day", "丁未", "--jiang", "丑", "--hour", "戌")["steps"]]
