"""The parse cache: plain data, checked on read, used only in a private directory."""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from liuren_logic.datalog import cache
from liuren_logic.datalog import snapshot
from liuren_logic.datalog.parser import parse_file

KB = Path(__file__).resolve().parents[1] / "kb"
FACT = "element_overcomes(水, 火)."


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty cache directory and an empty memory cache, and no schools shipped prepared (an
    installed package has them: the cache is tested alone)."""
    from liuren_logic.domain import school

    folder = tmp_path / "cache"
    monkeypatch.setenv("LIUREN_CACHE", str(folder))
    monkeypatch.setattr(cache, "_memory", {})
    for memo in ("_memory", "_modules", "_stored", "_terms", "_pools"):
        monkeypatch.setattr(snapshot, memo, {})
    monkeypatch.setattr(school, "prepared_root", lambda: tmp_path / "none shipped")
    return folder


@pytest.fixture(scope="module")
def loaded_once(tmp_path_factory):
    """A cache directory that holds the default school (parsed files and the school whole), made once."""
    folder = tmp_path_factory.mktemp("warm") / "cache"
    with pytest.MonkeyPatch.context() as patch:
        from liuren_logic.domain import school

        patch.setenv("LIUREN_CACHE", str(folder))
        patch.setattr(cache, "_memory", {})
        patch.setattr(snapshot, "_memory", {})
        patch.setattr(school, "prepared_root", lambda: folder.parent / "none shipped")
        table()
    return folder


@pytest.fixture
def warm_store(store, loaded_once):
    shutil.copytree(loaded_once, store)
    return store


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json"))


def fresh(path: Path, name: str):
    cache._memory.clear()
    return parse_file(path, name)


def swap_water_and_fire(payload: bytes) -> bytes:
    """An entry's payload with the constants 水 and 火 trading places (水剋火 reads 火剋水)."""
    return payload.replace('"水"'.encode(), b'"@"').replace('"火"'.encode(), '"水"'.encode()).replace(b'"@"', '"火"'.encode())


class _Planted:
    """A pickle that, if ever loaded, leaves a file behind."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pwned"))


def test_a_planted_pickle_runs_no_code(store, tmp_path):
    source = tmp_path / "one.dl"
    source.write_text("p(子).\n", "utf-8")
    expected = fresh(source, "one.dl")
    (entry,) = entries(store)
    marker = tmp_path / "ran"
    entry.write_bytes(pickle.dumps(_Planted(marker)))
    os.chmod(entry, 0o600)
    assert fresh(source, "one.dl") == expected
    assert not marker.exists()


def test_a_tampered_entry_is_detected_and_parsed_again(store):
    expected = fresh(KB / "core" / "elements.dl", "core/elements.dl")
    (entry,) = entries(store)
    original = entry.read_bytes()
    mac, _, payload = original.partition(b"\n")
    swapped = swap_water_and_fire(payload)
    assert swapped != payload
    for forged in (mac, hashlib.sha256(swapped).hexdigest().encode()):  # a stale MAC, or a digest anyone can compute
        entry.write_bytes(forged + b"\n" + swapped)
        loaded = fresh(KB / "core" / "elements.dl", "core/elements.dl")
        assert loaded == expected and FACT in map(str, loaded.rules)
        assert entry.read_bytes() == original  # replaced by the fresh parse


def test_an_entry_is_used_when_intact_and_keeps_every_position(store):
    path = KB / "methods" / "zeike.dl"
    first = fresh(path, "methods/zeike.dl")
    again = fresh(path, "methods/zeike.dl")
    assert again is not first and again == first
    assert [r.pos for r in again.rules] == [r.pos for r in first.rules]
    assert [a.pos for r in again.rules for a in r.body] == [a.pos for r in first.rules for a in r.body]
    assert _places(again.rules) == _places(first.rules) and len(_places(first.rules)) > 3 * len(first.rules)
    terms = [arg for r in again.rules for arg in r.head.args]
    assert len({id(t) for t in terms}) == len(set(terms)) < len(terms)  # equal terms are one object
    assert again.lines == first.lines


def _places(value) -> list:
    """Every place a node holds (its own, its terms') and its inner nodes hold, in field order."""
    if isinstance(value, (tuple, list)):
        return [place for v in value for place in _places(v)]
    if not dataclasses.is_dataclass(value):
        return []
    fields = [getattr(value, f.name) for f in dataclasses.fields(value)]
    return [place for f, v in zip(dataclasses.fields(value), fields)
            for place in ([v] if f.name == "at" else list(v) if f.name == "places" else _places(v))]


def test_an_entry_in_the_format_of_terms_with_places_is_not_misread(store, tmp_path):
    source = tmp_path / "one.dl"
    source.write_text("p(X) :- q(X).\n", "utf-8")
    expected = fresh(source, "one.dl")
    (entry,) = entries(store)
    old = ('["one.dl",[[],[],[{"Rule":[{"Atom":["p",[{"Var":["X",1,3]}],1,1]},[{"Atom":["q",[{"Var":["X",1,11]}],1,9]}],'
           '"one.1",[],"",false,1,1]}]],["p(X) :- q(X)."]]').encode()
    entry.write_bytes(cache._mac((store / "key").read_bytes(), entry.stem, old) + b"\n" + old)
    again = fresh(source, "one.dl")
    assert again == expected and again.rules[0].head.places == (("one.dl", 1, 3),)
    assert entry.read_bytes().partition(b"\n")[2] != old  # replaced by the fresh parse


@pytest.mark.parametrize("spoil", ["group-writable", "symlink", "public key"])
def test_a_directory_that_others_could_write_is_not_used(store, tmp_path, spoil):
    source = tmp_path / "one.dl"
    source.write_text("p(子).\n", "utf-8")
    if spoil == "group-writable":
        store.mkdir(mode=0o700)
        os.chmod(store, 0o770)
    elif spoil == "symlink":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        store.symlink_to(tmp_path / "elsewhere")
    else:
        store.mkdir(mode=0o700)
        (store / "key").write_bytes(os.urandom(32))
        os.chmod(store / "key", 0o644)
    assert fresh(source, "one.dl").rules[0].head.args[0].value == "子"
    assert entries(store) == [] and entries(tmp_path / "elsewhere") == []


def test_the_key_covers_the_package_code(tmp_path):
    package = tmp_path / "package"
    shutil.copytree(Path(cache.__file__).parent, package, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "kb"))
    before = cache.digest_of_code(package)
    (package / "parser.py").write_text((package / "parser.py").read_text("utf-8") + "\n# changed\n", "utf-8")
    assert cache.digest_of_code(package) != before


def test_the_oldest_entries_beyond_the_limit_are_removed(store, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 2)
    for number, branch in enumerate("子丑寅"):
        (tmp_path / f"{number}.dl").write_text(f"p({branch}).\n", "utf-8")
        fresh(tmp_path / f"{number}.dl", f"{number}.dl")
    kept = [e.read_bytes().partition(b"\n")[2] for e in entries(store)]
    assert sorted(p[:8] for p in kept) == [b'["1.dl",', b'["2.dl",']


def test_the_oldest_entries_beyond_the_size_limit_are_removed(store, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "MAX_BYTES", 1)  # every entry is larger: only the newest stays
    for number, branch in enumerate("子丑"):
        (tmp_path / f"{number}.dl").write_text(f"p({branch}).\n", "utf-8")
        fresh(tmp_path / f"{number}.dl", f"{number}.dl")
    assert [e.read_bytes().partition(b"\n")[2][:8] for e in entries(store)] == [b'["1.dl",']


def test_temporary_files_are_removed_when_a_write_fails(store, tmp_path, monkeypatch):
    source = tmp_path / "one.dl"
    source.write_text("p(子).\n", "utf-8")

    def full_disk(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    assert fresh(source, "one.dl").rules
    assert sorted(p.name for p in store.iterdir()) == ["key"]


@pytest.mark.parametrize("spoil", ["empty", "short", "symlink", "unreadable"])
def test_a_key_that_is_empty_or_unreadable_is_made_again_once(store, tmp_path, monkeypatch, spoil):
    source = tmp_path / "one.dl"
    source.write_text("p(子).\n", "utf-8")
    store.mkdir(mode=0o700)
    key = store / "key"
    if spoil == "symlink":
        (tmp_path / "known").write_bytes(b"k" * 32)
        key.symlink_to(tmp_path / "known")
    else:
        key.write_bytes(b"" if spoil == "empty" else b"abc")
        os.chmod(key, 0o600)
    if spoil == "unreadable":  # as root no mode denies a read: the open fails as it would
        real = cache._read_private
        monkeypatch.setattr(cache, "_read_private", lambda path: real(path) if key.stat().st_size == 32
                            else (_ for _ in ()).throw(PermissionError(13, "Permission denied")))
    expected = fresh(source, "one.dl")
    made = key.read_bytes()
    assert len(made) == 32 and not key.is_symlink() and (key.stat().st_mode & 0o777) == 0o600
    (entry,) = entries(store)
    written = entry.stat().st_mtime_ns

    def parsed(*_):
        raise AssertionError("parsed again: the entry was not read")

    cache._memory.clear()
    monkeypatch.setattr(cache, "encode_module", parsed)  # a rewrite would encode the module again
    assert cache.module("one.dl", source.read_bytes(), parsed) == expected
    assert key.read_bytes() == made and entry.stat().st_mtime_ns == written


def test_temporary_files_a_killed_writer_left_are_removed(store, tmp_path):
    source = tmp_path / "one.dl"
    source.write_text("p(子).\n", "utf-8")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    store.mkdir(mode=0o700)
    dead, old, writing = store / f".tmp-{gone}-a1b2", store / ".tmp-x9y8", store / f".tmp-{os.getpid()}-c3d4"
    for path in (dead, old, writing):
        path.write_bytes(b"half an entry")
    hours_ago = time.time() - cache.STALE_SECONDS - 60
    os.utime(old, (hours_ago, hours_ago))
    fresh(source, "one.dl")
    assert sorted(p.name for p in store.iterdir() if p.name.startswith(".tmp-")) == [writing.name]
    assert len(entries(store)) == 1


def snapshots(folder: Path) -> list[Path]:
    """The entries that hold a whole loaded knowledge base (:mod:`liuren_logic.datalog.snapshot`)."""
    return [e for e in entries(folder) if e.read_bytes().partition(b"\n")[2].startswith(b'{"files":')]


def table(keep_snapshots: bool = True):
    from liuren_logic import Session

    cache._memory.clear()
    snapshot._memory.clear()
    if not keep_snapshots:
        for entry in snapshots(cache.directory()):
            entry.unlink()
    return [(c.id, c.sanchuan, c.method) for c in Session().table()]


def test_a_tampered_entry_cannot_change_the_charts(warm_store, monkeypatch):
    """The issue's experiment: one entry with 水 and 火 swapped; trusted, it changes charts; checked, it cannot."""
    expected = table()
    (entry,) = [e for e in entries(warm_store) if e.read_bytes().partition(b"\n")[2].startswith(b'["kb/core/elements.dl"')]
    mac, _, payload = entry.read_bytes().partition(b"\n")
    swapped = swap_water_and_fire(payload)
    entry.write_bytes(mac + b"\n" + swapped)
    with monkeypatch.context() as trusting:
        trusting.setattr(cache.hmac, "compare_digest", lambda *_: True)
        trusted = table(keep_snapshots=False)  # the files are parsed (from their entries), not the school read whole
    assert entry.read_bytes() == mac + b"\n" + swapped  # still there for the checked run
    changed = sum(a != b for a, b in zip(trusted, expected))
    assert changed > 100  # 518 of the 720 when this test was written
    assert table(keep_snapshots=False) == expected


def test_a_tampered_school_entry_cannot_change_the_charts(warm_store, monkeypatch):
    """The same experiment on the stored school: its relation overcomes read backwards (X剋Y as Y剋X)."""
    expected = table()
    (entry,) = snapshots(warm_store)
    original = entry.read_bytes()
    mac, _, payload = original.partition(b"\n")
    header, _, modules = payload.partition(b"\n")
    data = json.loads(header)
    data["static"] = [[pred, [row[::-1] for row in rows] if pred == "overcomes" else rows]
                      for pred, rows in data["static"]]
    forged = mac + b"\n" + cache.dumps(data) + b"\n" + modules
    assert forged != original
    entry.write_bytes(forged)
    with monkeypatch.context() as trusting:
        trusting.setattr(cache.hmac, "compare_digest", lambda *_: True)
        trusted = table()
    assert sum(a != b for a, b in zip(trusted, expected)) > 100
    assert table() == expected
    assert entry.read_bytes() == original  # replaced by a fresh load


def test_a_planted_school_entry_runs_no_code_and_a_failing_program_is_not_stored(store, tmp_path):
    from liuren_logic.domain.errors import KBError
    from liuren_logic.domain.school import load_files

    good, bad = tmp_path / "good.dl", tmp_path / "bad.dl"
    good.write_text("@kind b: 子 丑.\n@pred p(x: b).\n@pred q(x: b).\np(子).\nq(X) :- p(X).\n", "utf-8")
    bad.write_text("@pred r(x: b).\nr(寅).\n", "utf-8")
    expected = load_files([good]).static["q"]
    assert expected == (("子",),)
    (entry,) = snapshots(store)
    marker = tmp_path / "ran"
    entry.write_bytes(pickle.dumps(_Planted(marker)))
    os.chmod(entry, 0o600)
    snapshot._memory.clear()
    assert load_files([good]).static["q"] == expected and not marker.exists()
    with pytest.raises(KBError):
        load_files([good, bad])
    assert len(snapshots(store)) == 1


def test_a_large_file_of_plain_facts_is_read_directly_not_stored(store, tmp_path, monkeypatch):
    """Past ``DIRECT_BYTES``, a file of nearly all plain facts is not stored (reading it costs what
    decoding an entry would); one with as many bytes of rules is, and a small file of facts too."""
    monkeypatch.setattr(cache, "DIRECT_BYTES", 2000)
    facts, rules, small = (tmp_path / f"{name}.dl" for name in ("facts", "rules", "small"))
    facts.write_text("@pred e(x: int, y: int).\n" + "".join(f"e({i}, {i + 1}).\n" for i in range(400)), "utf-8")
    rules.write_text("@pred e(x: int, y: int).\n@pred t(x: int, y: int).\ne(0, 1).\n"
                     + "".join(f"t(X, Y) :- e(X, Y), X < {i}.\n" for i in range(100)), "utf-8")
    small.write_text("@pred e(x: int, y: int).\ne(0, 1). e(1, 2).\n", "utf-8")
    assert min(p.stat().st_size for p in (facts, rules)) > cache.DIRECT_BYTES > small.stat().st_size
    parsed = fresh(facts, "facts.dl")
    assert len(parsed.rules) == 400 and entries(store) == []
    assert fresh(facts, "facts.dl") == parsed and entries(store) == []
    fresh(rules, "rules.dl")
    fresh(small, "small.dl")
    assert len(entries(store)) == 2


def test_a_relation_only_facts_give_is_stored_once_in_a_school_entry(store, tmp_path):
    """Its rows are read back from the module's facts; a derived relation's rows are stored."""
    from liuren_logic.domain.school import load_files

    path = tmp_path / "kb.dl"
    path.write_text("@kind b: 子 丑 寅.\n@pred e(x: b, y: b).\n@pred t(x: b, y: b).\n"
                    "e(子, 丑). e(丑, 寅).\nt(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n", "utf-8")
    first = load_files([path]).static
    (entry,) = snapshots(store)
    header = json.loads(entry.read_bytes().split(b"\n")[1])
    assert dict(header["static"])["e"] is None and len(dict(header["static"])["t"]) == 3
    snapshot._memory.clear()
    again = load_files([path]).static
    assert {p: set(r) for p, r in again.items()} == {p: set(r) for p, r in first.items()}
    assert set(again["e"]) == {("子", "丑"), ("丑", "寅")}


def test_a_cycle_through_defeat_read_from_its_entry_compiles_as_afresh_without_the_analysis(store, tmp_path,
                                                                                             monkeypatch):
    """A school entry keeps what compiling the defeasible rules worked out (the relations read through
    a defeasible one, the cycles through defeat): read back, the program compiles to the same rules,
    estimates and conclusions without working them out again."""
    from liuren_logic.datalog import defeasible
    from liuren_logic.datalog.evaluate import Materialisation
    from liuren_logic.domain.school import load_files

    path = tmp_path / "cycle.dl"
    path.write_text("@pred answer(c: any, v: any). @pred good(c: any). @pred p(). @pred r().\n"
                    "good(1). r().\n@default t.cheng.\nanswer(C, 成) :- good(C).\n@default t.xiong.\n"
                    "answer(C, 凶) :- good(C).\n@defeater t.block.\n~answer(C, 凶) :- answer(C, 成).\n"
                    "@default t.p.\np() :- r().\n@defeater t.self.\n~p() :- p().\n", "utf-8")
    afresh = load_files([path])
    assert afresh.program.defeat.cycles and afresh.program.defeat.estimates
    snapshot._memory.clear(), snapshot._modules.clear(), snapshot._stored.clear()
    for worked_out in ("_problems", "_tainted", "_cycles"):
        monkeypatch.setattr(defeasible, worked_out, lambda *args: pytest.fail("worked out again"))
    again = load_files([path])
    assert [c.rule for c in again.prepared.rules] == [c.rule for c in afresh.prepared.rules]
    assert again.program.preds == afresh.program.preds
    mine, theirs = again.program.defeat, afresh.program.defeat
    assert (mine.tainted, mine.cycles, mine.estimates, mine.readings) == \
        (theirs.tainted, theirs.cycles, theirs.estimates, theirs.readings)
    engine = Materialisation(again, static=again.static)
    assert engine.query("answer", [None, None]) == [(1, "成")] and engine.query("est·beaten·p", []) == [()]


def test_a_school_entry_keeps_the_shape_of_the_plan_as_worked_out_afresh(store, monkeypatch):
    """Read back from its entry, the default school's plan has the shape worked out from its program,
    and is not worked out again: the same strata in the same order, constants asked, needs and reads."""
    from liuren_logic.datalog import evaluate
    from liuren_logic.domain.school import load_school

    load_school("default")
    snapshot._memory.clear()
    kept = load_school("default")
    assert kept.prepared.layout == evaluate.layout(kept.prepared)
    monkeypatch.setattr(evaluate, "layout", lambda kb: pytest.fail("worked out again"))
    plan = evaluate.Materialisation(kept, static=kept.static).plan
    assert plan.dynamic and plan.needs and plan.asked == kept.prepared.layout.asked


def test_the_same_files_share_one_plan_and_no_other_program_gets_it(store, tmp_path):
    """What the bottom-up engine prepares depends only on the loaded program: two loads of the same
    files share it (threads asking at once included); a user's extra file, or a changed file, has its own."""
    from concurrent.futures import ThreadPoolExecutor

    from liuren_logic.datalog.evaluate import Materialisation
    from liuren_logic.domain.school import load_files

    path, mine = tmp_path / "kb.dl", tmp_path / "mine.dl"
    path.write_text("@kind b: 子 丑 寅.\n@pred e(x: b, y: b).\n@pred at(x: b) input.\n@pred t(x: b, y: b).\n"
                    "e(子, 丑). e(丑, 寅).\nt(X, Y) :- at(X), e(X, Y).\n", "utf-8")
    mine.write_text("@pred u(x: b).\nu(Y) :- t(_, Y).\n", "utf-8")
    first = load_files([path])
    with ThreadPoolExecutor(4) as pool:
        plans = list(pool.map(lambda _: Materialisation(first, static=first.static).plan, range(8)))
    again = load_files([path])
    assert again is not first and again.prepared is first.prepared
    assert all(plan is plans[0] for plan in plans) and Materialisation(again, static=again.static).plan is plans[0]
    other = load_files([path, mine])
    assert Materialisation(other, static=other.static).plan is not plans[0]
    path.write_text(path.read_text("utf-8").replace("at(X), e(X, Y)", "at(Y), e(X, Y)"), "utf-8")
    changed = load_files([path])
    base = Materialisation(changed, static=changed.static)
    assert changed.prepared is not first.prepared and base.plan is not plans[0]
    batch = base.extend([("at", ("丑",), "given")])
    assert batch.query("t", [None, None]) == [("子", "丑")]


def test_a_school_file_is_read_through_the_cache_by_its_bytes(store, tmp_path, monkeypatch):
    """A warm start reads a school file's TOML from its entry; an entry that does not check is parsed
    again, and a changed file is another entry."""
    from liuren_logic.domain import school

    monkeypatch.setattr(school, "_schools", {})
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n[readings]\npunishment = "seed000"\n', "utf-8")
    first = school.read_school(str(path))
    school._schools.clear()
    assert school.read_school(str(path)) == first and first.readings["punishment"] == "seed000"
    (entry,) = [e for e in entries(store) if b'"mine"' in e.read_bytes()]
    entry.write_bytes(entry.read_bytes().replace(b"seed000", b"common"))
    school._schools.clear()
    assert school.read_school(str(path)).readings["punishment"] == "seed000"
    path.write_text('name = "mine"\n[readings]\npunishment = "common"\n', "utf-8")
    assert school.read_school(str(path)).readings["punishment"] == "common"


def test_schools_one_reading_apart_decode_the_files_they_share_once(store, monkeypatch):
    """A school with one reading swapped, read from its entry, shares the modules of every other file
    with the school already read, and holds what loading its files afresh holds."""
    from liuren_logic.domain import school
    from liuren_logic.domain.school import load_school

    load_school("default"), load_school("default", {"fuyin_final": "clash"})  # both stored
    snapshot._memory.clear(), snapshot._modules.clear(), snapshot._stored.clear()
    with monkeypatch.context() as patch:  # both read from their entries
        patch.setattr(school, "_load_afresh", lambda sources: pytest.fail("loaded afresh"))
        default, clash = load_school("default"), load_school("default", {"fuyin_final": "clash"})
    mine = {m.path: m for m in default.program.modules}
    shared = [m.path for m in clash.program.modules if mine.get(m.path) is m]
    assert len(shared) == len(mine) - 1 and "kb/variants/fuyin_final/clash.dl" not in shared
    from liuren_logic.datalog.evaluate import Materialisation  # the rules in the same place: prepared once

    plans = [Materialisation(kb, static=kb.static).plan for kb in (default, clash)]
    prepared = [{id(r): r for rules, _ in p.static + p.dynamic for r in rules} for p in plans]
    same = [r for r in prepared[1].values() if id(r) in prepared[0]]
    assert same and all(r.compiled.rule.at[0] != "kb/variants/fuyin_final/clash.dl" for r in same)
    cache._memory.clear(), snapshot._memory.clear(), snapshot._modules.clear(), snapshot._stored.clear()
    for entry in snapshots(cache.directory()):
        entry.unlink()
    afresh = load_school("default", {"fuyin_final": "clash"})
    assert [c.rule for c in afresh.prepared.rules] == [c.rule for c in clash.prepared.rules]
    assert [(c.index, c.fire, c.body) for c in afresh.prepared.rules] == [(c.index, c.fire, c.body)
                                                                         for c in clash.prepared.rules]


def _ship_default(folder: Path) -> tuple[str, Path]:
    """The default school shipped into ``folder`` as the build step ships it; its entry name and path."""
    from liuren_logic.domain.school import _load_afresh, kb_root, read_school, sources_of

    sources = sources_of(read_school("default"), kb_root())
    name = snapshot.key(sources)
    written = snapshot.prepare(folder, [(name, sources, _load_afresh(sources))])
    assert [p.name for p in written] == [f"{name}.json", f"{snapshot.POOL}.json", f"{snapshot.FILES}.json"]
    return name, written[0]


def test_a_shipped_school_is_read_first_and_parses_nothing(store, tmp_path, monkeypatch):
    """A school shipped with the package is read before the user's cache: nothing is parsed or
    stored, the charts are those of a fresh load, and each file's module is there too."""
    from liuren_logic.domain import school
    from liuren_logic.datalog.parser import parse_file

    expected = table()
    shipped = tmp_path / "shipped"
    _ship_default(shipped)
    shutil.rmtree(store)
    cache._memory.clear(), snapshot._modules.clear(), snapshot._stored.clear()
    monkeypatch.setattr(school, "prepared_root", lambda: shipped)
    monkeypatch.setattr(school, "_load_afresh", lambda sources: pytest.fail("loaded afresh"))
    assert table() == expected
    assert snapshots(store) == [] and not any(b'"kb/' in e.read_bytes() for e in entries(store))
    path = school.kb_root() / "methods" / "zeike.dl"
    module = school.parsed(path)
    assert module == parse_file(path, "kb/methods/zeike.dl") and module.lines
    assert snapshot.shipped_module(shipped, "kb/methods/zeike.dl", path.read_bytes() + b"\n") is None  # other bytes


def test_a_damaged_or_forged_shipped_school_is_not_used(store, tmp_path, monkeypatch):
    """水 and 火 swapped in a shipped school's modules, or a byte cut from its entry: the digest
    does not match, so the school is loaded afresh and the charts stay right."""
    from liuren_logic.domain import school

    expected = table()
    shipped = tmp_path / "shipped"
    _, entry = _ship_default(shipped)
    pool = shipped / f"{snapshot.POOL}.json"
    digest, _, lines = pool.read_bytes().partition(b"\n")
    intact_pool, intact_entry = pool.read_bytes(), entry.read_bytes()
    monkeypatch.setattr(school, "prepared_root", lambda: shipped)
    for damage in (lambda: pool.write_bytes(digest + b"\n" + swap_water_and_fire(lines)),
                   lambda: entry.write_bytes(intact_entry[:-1])):
        pool.write_bytes(intact_pool), entry.write_bytes(intact_entry)
        damage()
        snapshot._pools.clear(), snapshot._modules.clear(), snapshot._stored.clear(), snapshot._terms.clear()
        for stored in snapshots(store):
            stored.unlink()
        assert table() == expected
        assert len(snapshots(store)) == 1  # loaded afresh, and stored in the user's cache


def test_the_build_step_ships_every_school_a_cast_weighs(tmp_path, monkeypatch):
    """After tools/build_prepared.py's step, a cast (its disputes: the school with each other reading)
    with an empty cache parses no file and loads no school afresh, and shows what a fresh load shows."""
    from liuren_logic.domain import school
    from liuren_logic.domain.prepared import prepare_schools

    monkeypatch.setenv("LIUREN_CACHE", str(tmp_path / "build"))
    shipped = tmp_path / "shipped"
    written = prepare_schools(shipped)
    assert len(written) > 20  # the default school, one for each other reading, the pool and its files
    monkeypatch.setenv("LIUREN_CACHE", str(tmp_path / "user"))
    for memo in ("_memory", "_modules", "_stored", "_terms", "_pools"):
        monkeypatch.setattr(snapshot, memo, {})
    monkeypatch.setattr(cache, "_memory", {})
    monkeypatch.setattr(school, "prepared_root", lambda: shipped)
    monkeypatch.setattr(school, "_load_afresh", lambda sources: pytest.fail("loaded afresh"))
    from liuren_logic.datalog import parser
    from liuren_logic.domain import disputes

    monkeypatch.setattr(parser, "_parse_bytes", lambda data, name: pytest.fail(f"parsed {name}"))
    monkeypatch.setattr(disputes, "_sessions", {})
    disputes.module.cache_clear()
    from liuren_logic import Session

    chart = Session().cast("辛巳", jiang="寅", hour="午")
    assert disputes._disputes(chart, chart.session.kb.school)  # some reading changes this chart
