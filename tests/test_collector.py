"""What an evaluated batch leaves for Python's cyclic collector to walk: its relations, once
evaluated, are dicts the collector does not track (``Store.settle``), and a caller that turned
the collector off finds it off, with nothing collected."""
from __future__ import annotations

import gc
import weakref

import pytest

from liuren_logic import Session
from liuren_logic.datalog.collector import collected_young, collection_paused
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.passes import ALL, NONE

from test_engine import planning_facts


@pytest.fixture(scope="module")
def evaluated(session):
    """A batch large enough to plan, evaluated whole with the collector on."""
    assert gc.isenabled()
    return session.base.extend(planning_facts(session)).evaluate_all()


def _untracked_rows(relations: dict) -> list[str]:
    return [pred for pred, rows in relations.items() if rows and not any(map(gc.is_tracked, rows))]


def test_an_evaluated_batch_holds_its_relations_untracked(evaluated):
    relations = evaluated.store.relations
    assert all(type(rows) is dict for rows in relations.values())
    settled = _untracked_rows(relations)
    assert len(settled) > len(relations) // 2  # a collection ran before the relations were rebuilt
    assert not [pred for pred in settled if gc.is_tracked(relations[pred])]


def test_a_relation_added_to_after_it_settled_keeps_its_rows_in_order(session):
    batch = session.base.extend(planning_facts(session))
    batch.query("hour", [None, None])
    rows = list(batch.store.rows("hour"))
    assert batch.store.add("hour", [rows[0], ("新", "子")]) == 1
    assert list(batch.store.rows("hour")) == rows + [("新", "子")]
    assert batch.store.add("hour", [("新", "子")]) == 0


def test_a_collector_the_caller_turned_off_stays_off_and_collects_nothing(session):
    gc.disable()
    try:
        batch = session.base.extend(planning_facts(session))
        before = gc.get_count()[0]
        batch.evaluate_all()
        assert not gc.isenabled()
        assert gc.get_count()[0] > before  # no collection ran: the count of new objects only grew
        with collection_paused():
            assert not collected_young()
    finally:
        gc.enable()
    with collection_paused():
        made = [set() for _ in range(gc.get_threshold()[0] + 1)]  # more new objects than the threshold
        assert collected_young() and made
        assert gc.get_count()[0] < len(made)
        assert not gc.isenabled()
    assert gc.isenabled()


def test_without_the_collector_pass_an_evaluation_neither_pauses_nor_settles(session):
    """The collector pass (``Passes.collector``) is all that pauses the collector while a batch
    evaluates and settles its relations after: with it, one young collection at most; without it,
    the collector runs as the batch allocates, and no relation is settled even inside a pause."""
    facts = planning_facts(session)

    def evaluated(passes):
        batch = Materialisation(session.loaded, passes=passes).extend(facts)
        before = gc.get_stats()[0]["collections"]
        batch.evaluate_all()
        return gc.get_stats()[0]["collections"] - before, batch.store

    paused, settled = evaluated(ALL)
    running, unsettled = evaluated(NONE)
    assert paused <= 1 < running
    with collection_paused():  # a caller's pause (a cast's) leaves the collection due after it to the caller
        _, inside = evaluated(NONE)
    assert settled._settled and not unsettled._settled and not inside._settled


def test_a_charts_input_facts_are_ones_the_collector_stops_tracking(session):
    """A batch keeps its charts' facts (for ``session.kb``) and their origins: tuples of strings
    and numbers, which the collector untracks (the arguments at one pass, the fact at the next; a
    list among them would keep each fact tracked)."""
    inputs = [session.offset_input("甲子", 3), session.dated_input("1998-11-30 12:00", born=1970, sex="f")]
    facts = [fact for i in inputs for fact in i.facts()]
    batch = session.base.extend(facts)
    gc.collect()
    gc.collect()
    assert len(facts) > 10
    assert not [fact for fact in facts if gc.is_tracked(fact)]
    assert not [key for key in batch.origins.maps[0] if gc.is_tracked(key)]


def test_a_released_batch_is_freed_without_the_collector_and_a_chart_still_held_answers(session):
    """``forget`` frees a batch at once, by reference counting: nothing of it waits for the cyclic
    collector's next full pass (a long audit releases a batch every few hundred charts, and its
    memory was held until then). A chart still held keeps its batch and reads as before."""
    with collection_paused():  # what is freed is freed by reference counting
        dropped, kept = (session.cast_offset(day, 5, born=1957, sex="m") for day in ("壬申", "癸酉"))  # this test's only
        for chart in (dropped, kept):
            chart.sanchuan, chart.spirits  # the batch's groups and views made
        batch = weakref.ref(session.source(dropped.id))
        before = (kept.sanchuan, kept.spirits)
        session.forget([dropped.id, kept.id])
        del dropped
        assert batch() is None
        assert (kept.sanchuan, kept.spirits) == before
        assert kept.patterns and kept.lessons  # relations first grouped after the release


def test_a_chart_cast_and_read_leaves_few_objects_for_the_collector_to_walk():
    """What a cast chart keeps once read (its batch's relations, tables and bookkeeping, the chart and
    its values) is mostly untracked: a collection walks about 66 objects a chart, where a tuple kept
    per rule fired and per table built made it 174, and every collection walked them all again."""
    session = Session()
    session.cast_offset("甲子", 1).sanchuan  # what the first cast of a session makes once
    days = ["乙丑", "丙寅", "丁卯", "戊辰", "己巳", "庚午", "辛未", "壬申", "癸酉", "甲戌"]
    gc.collect()
    before = len(gc.get_objects())
    charts = [session.cast_offset(day, k % 12) for k, day in enumerate(days * 2)]
    for chart in charts:
        chart.sanchuan, chart.method, chart.subnames, chart.lessons, chart.generals
    gc.collect()
    assert (len(gc.get_objects()) - before) / len(charts) < 90
