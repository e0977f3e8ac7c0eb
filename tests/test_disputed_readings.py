"""The readings other casters and books use (issue 32), each against the charts it was found on:
涉害 over all candidates (Damongu's liuren-classics-lab), 涉害 counted from the seat palace
(wlhyl/daliuren), 《大全》's 比用格 (《指南》 case 37) and the void branch's 遁干 from the next
decade (《指南》's transmission rows). Their invariant is tests/test_invariant.py's."""
from __future__ import annotations

import pytest

from liuren_logic import Session
from liuren_logic.domain.audit import compare, follows, table_inputs


@pytest.fixture(scope="module")
def default():
    return Session(engine="materialise")


def _changed(default, readings) -> dict:
    """(day, offset) → (default 三傳, 三傳 under the readings), over the 720 day charts."""
    audit = compare(default, Session(readings=readings, engine="materialise"), lambda s: table_inputs(s, (True,)))
    return {(d.day, d.offset): (d.before, d.after) for d in audit.differences if d.conclusion == "三傳"}


def test_counting_from_the_seat_palace_gives_wlhyls_six_differences(default):
    changed = _changed(default, {"shehai_start": "seat"})
    assert set(changed) == {("丁卯", 4), ("乙卯", 4), ("己亥", 4), ("己卯", 4), ("辛卯", 4), ("甲辰", 5)}
    assert changed[("丁卯", 4)] == ("未亥卯", "亥卯未")  # the seat 寅 (甲) adds one 剋 to 亥's walk
    # under the short-cut nothing is counted, so where the count starts changes nothing
    assert not _changed(Session(readings={"shehai": "shortcut"}, engine="materialise"),
                        {"shehai": "shortcut", "shehai_start": "seat"})


def test_comparing_all_candidates_gives_damongus_six_differences(default):
    changed = _changed(default, {"shehai_pool": "all"})
    damongu = {("戊辰", 7), ("己巳", 7), ("庚辰", 7), ("辛巳", 7), ("甲辰", 5), ("丁巳", 7)}
    # and 辛未 7, where Damongu keeps the default's 酉辰亥: there 子 寅 酉 tie and 複等 takes 寅
    assert set(changed) == damongu | {("辛未", 7)}
    assert changed[("辛巳", 7)] == ("未寅酉", "子未寅")  # 子 (yang, on 午) enters and wades deepest


def test_daquans_biyong_ge_gives_zhinan_case_37(default, zhinan_cases):
    daquan = Session(readings={"shehai_biyong": "daquan"}, engine="materialise")
    chart = daquan.cast("戊辰", "戌", "辰")
    assert (chart.sanchuan, chart.method, chart.subnames) == ("巳亥巳", "返吟", ["比用格"])
    assert default.cast("戊辰", "戌", "辰").sanchuan == "亥巳亥"  # 戊 overcomes 亥; 巳 (火) generates 戊
    verdicts = {v.case.split()[0]: v.follows for v in follows([default, daquan], zhinan_cases)}
    assert verdicts["37"] == (daquan.name,)
    # and it loses one: case 105 (乙亥 offset 8), where 乙 overcomes the pick 未 and the book keeps it (未卯亥)
    assert [n for n, f in verdicts.items() if f == (default.name,)] == ["105"]
    changed = _changed(default, {"shehai_biyong": "daquan"})
    assert changed[("戊辰", 7)] == ("子未寅", "午丑申") and len(changed) == 9
    for day, offset in changed:  # why-not under the reading: every branch but its initial, and never the initial
        chart = daquan.cast_offset(day, offset)
        rejected = {x for (x,) in chart.rows("rejected")}
        assert rejected == set("子丑寅卯辰巳午未申酉戌亥") - {chart.sanchuan[0]}, chart.id


def test_the_void_branch_carries_the_next_decades_stem_as_the_zhinan_prints(default, zhinan_cases):
    nxt = Session(readings={"void_stem": "next_decade"}, engine="materialise")
    assert nxt.cast("甲寅", "寅", "午").hidden_stems["子"] == "甲" and nxt.cast("甲寅", "寅", "午").hidden_stems["丑"] == "乙"
    assert "子" not in default.cast("甲寅", "寅", "午").hidden_stems
    agree = {}
    for name, session in (("default", default), ("next_decade", nxt)):
        agree[name] = 0
        for case in (c for c in zhinan_cases if c.get("transmission_rows")):
            chart = session.cast(case["day"], case["yuejiang"], case["hour"])
            void = {v for (v,) in chart.rows("void")}
            agree[name] += sum(chart.hidden_stems.get(r["branch"]) == (r["hidden_stem"] or None)
                               for r in case["transmission_rows"] if r["branch"] in void)
    assert agree == {"default": 2, "next_decade": 27}  # of 29 rows on a void branch
