"""Schools: which KB folders to load and which reading of each disputed topic.

A school is a small TOML file in ``kb/schools/``::

    name = "default"
    include = ["core", "chart", "methods"]
    [readings]
    punishment = "common"        # kb/variants/punishment/common.dl

``load_school("default", {"punishment": "seed000"})`` swaps one reading; a reading may
also be a user's own file (``{"punishment": "my_reading.dl"}``, or ``punishment =
"my_reading.dl"`` in a school file, relative to it). User files (``extra``) are parsed
and checked with the rest.
"""
from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping

from ..datalog import cache
from ..datalog import snapshot
from ..datalog.program import KnowledgeBase
from .errors import FILE_KINDS_ZH, InputError, KBError, refused_zh


_schools: dict[str, dict] = {}  # entry name → a school file's data (_school_data)
DEFAULT = "default"  # the school that supplies what another school leaves out
# Readings the calendar applies (not KB files): topic → the readings it knows.
MAX_KB_FILE = 4 * 2**20  # bytes of one KB file: the largest shipped holds 48 KB; 4 MB of facts load in ~11 s, 440 MB
MAX_KB_TOTAL = 6 * 2**20  # bytes of the files of one knowledge base, the school's and the user's
CALENDAR_READINGS = {"day_boundary": ("23:00", "00:00"), "hours": ("civil", "true_solar")}
# Readings that only a moment can decide: a chart cast from pillars has no sun to judge by.
MOMENT_READINGS = {("daynight", "sun")}


def kb_root() -> Path:
    """The folder the packaged KB files live in (beside this module: the package is installed as files)."""
    return Path(__file__).parents[1] / "kb"


def prepared_root() -> Path:
    """The folder of the packaged schools loaded whole at build time (:mod:`.prepared`), if any."""
    return Path(__file__).parents[1] / "prepared"


@dataclass(frozen=True)
class School:
    name: str
    include: tuple[str, ...]
    readings: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    defaulted: tuple[str, ...] = ()  # what the school file left out and the default school supplied

    def files(self, root: Path) -> list[Path]:
        """The school's KB files: its folders' and its readings'. A folder that is not one of the
        KB's (a name missing, or a path) is an InputError naming it."""
        paths, folders = [], kb_folders(root)
        for folder in self.include:
            if folder not in folders:
                raise InputError(f"school {self.name}: include names {folder!r}, which is no KB folder "
                                 f"(folders: {', '.join(folders)})",
                                 f"門派 {self.name} 之 include 所列「{folder}」不是 KB 資料夾（資料夾有：{'、'.join(folders)}）",
                                 "school")
            paths += sorted((root / folder).rglob("*.dl"))
        for topic, reading in sorted(self.readings.items()):
            if topic not in CALENDAR_READINGS:
                paths.append(reading_file(root, topic, reading))
        return paths

    def with_readings(self, overrides: Mapping[str, str]) -> "School":
        readings = dict(self.readings)
        for topic, reading in overrides.items():
            if topic not in readings:
                raise InputError(f"unknown topic {topic!r}; the topics are: {', '.join(sorted(readings))}",
                                 f"無此題「{topic}」；諸題為：{'、'.join(topic_name(t) for t in sorted(readings))}",
                                 "reading")
            readings[topic] = reading
        name = self.name + "".join(f"+{t}={r}" for t, r in sorted(overrides.items()) if self.readings[t] != r)
        return School(name, self.include, readings, self.labels, self.defaulted)

    def completed(self, default: "School") -> "School":
        """This school with the default's folders and readings wherever it names none.

        A topic named after a KB folder (``keti_zhanguan`` reads kb/keti) is taken from the
        default only when this school includes that folder: its files need the folder's relations.
        """
        include = self.include or default.include
        owners = {t: next((f for f in default.include if t.startswith(f + "_")), None) for t in default.readings}
        missing = sorted(t for t in set(default.readings) - set(self.readings) if owners[t] in (None, *include))
        readings = {**{t: default.readings[t] for t in missing}, **self.readings}
        defaulted = (() if self.include else ("include",)) + tuple(missing)
        return School(self.name, include, readings, self.labels, defaulted)

    def note(self) -> str:
        """What the school took from the default school, in one line ('' when nothing)."""
        taken = [f"include={','.join(self.include)}" if t == "include" else f"{t}={self.readings[t]}"
                 for t in self.defaulted]
        return f"school {self.name} leaves these to the default school: {'; '.join(taken)}" if taken else ""


def kb_folders(root: Path) -> list[str]:
    """The folders of KB files a school may include: those under ``root`` but its schools and variants."""
    return sorted(p.name for p in root.iterdir() if p.is_dir() and p.name not in ("schools", "variants", "__pycache__"))


def reading_file(root: Path, topic: str, reading: str) -> Path:
    """A reading's KB file: a packaged one by name (``seed000``), or a user's by path (``mine.dl``)."""
    if reading.endswith(".dl"):
        return Path(reading).expanduser()
    return root / "variants" / topic / f"{reading}.dl"


def read_school(name_or_path: str) -> School:
    """A school by name (``default``) or by the path of a TOML file."""
    path = Path(name_or_path)
    if not path.suffix:
        path = kb_root() / "schools" / f"{name_or_path}.toml"
    if not is_file(path, "school file"):
        known = ", ".join(sorted(p.stem for p in (kb_root() / "schools").glob("*.toml")))
        raise InputError(f"no school {name_or_path!r} (known: {known}; or give a .toml path)",
                         f"無此門派「{name_or_path}」（已知：{known.replace(', ', '、')}；或給一個 .toml 檔）", "school")
    data = _school_data(path)
    readings = data.get("readings", {})
    if isinstance(readings, dict):  # a user's reading file is named relative to the school file
        readings = {t: os.path.realpath(path.parent / r) if isinstance(r, str) and r.endswith(".dl") else r
                    for t, r in readings.items()}
    if not isinstance(readings, dict) or not all(isinstance(v, str) for v in readings.values()):
        raise InputError(f"{path}: [readings] must map topics to reading names",
                         f"{path}：[readings] 須以各題對其讀法之名", "school")
    include = data.get("include", [])
    if not isinstance(include, list) or not all(isinstance(v, str) for v in include):
        raise InputError(f"{path}: include must be a list of KB folder names", f"{path}：include 須為 KB 資料夾名之列表",
                         "school")
    school = School(str(data.get("name", path.stem)), tuple(include), dict(readings),
                    {k: str(data[k]) for k in ("zh", "en", "zh_short", "en_short") if k in data})
    default = kb_root() / "schools" / f"{DEFAULT}.toml"
    return school if os.path.samefile(path, default) else school.completed(read_school(str(default)))


def _school_data(path: Path) -> dict:
    """A school file's TOML as plain data, through :mod:`.cache` (keyed by its bytes): a warm start
    imports no TOML parser. A file that is not valid TOML is an InputError (and not stored)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read the school file {path}: {error.strerror or error}",
                         f"讀不了門派檔 {path}：{refused_zh(error)}", "school") from None
    name = cache.entry_name(b"school file", data)
    if name not in _schools:  # read only: read_school builds its own objects from it
        _schools[name] = cache.entry(name, lambda: _parse_toml(path, data), cache.dumps, json.loads)
    return _schools[name]


def _parse_toml(path: Path, data: bytes) -> dict:
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not a valid school file: {error}",
                         f"{path} 不是有效的門派檔（TOML 格式有誤，或非 UTF-8 文字）", "school") from None


@lru_cache(maxsize=1)
def names() -> dict:
    """kb/variants/names.json: each topic's and reading's zh and en names."""
    return json.loads((kb_root() / "variants" / "names.json").read_text("utf-8"))["topics"]


def reading_name(topic: str, reading: str, lang: str = "zh", bare: bool = False) -> str:
    """``伏吟末傳（取沖）`` (zh) or ``伏吟's final (the clash)`` (en), ``bare``: the reading's own name
    only (``取沖``, where the topic goes without saying); the ids where a name is missing."""
    entry = names().get(topic, {})
    shown = entry.get("readings", {}).get(reading, {}).get(lang, reading)
    if bare:
        return shown
    return f"{entry.get(lang, topic)}（{shown}）" if lang == "zh" else f"{entry.get(lang, topic)} ({shown})"


def topic_name(topic: str, lang: str = "zh") -> str:
    """A disputed topic by its name (``三刑``), or its id where it has none."""
    return names().get(topic, {}).get(lang, topic)


def _readings_zh(topic: str, readings) -> str:
    """A topic's readings by their Chinese names, as ``--reading`` takes them (三刑=四鏈)."""
    return "、".join(reading_name(topic, r, bare=True) for r in readings)


def parse_readings(text: str) -> dict[str, str]:
    """``'punishment=seed000,shehai=shortcut'`` → a dict, topics and readings given by id or by the
    names they are shown by (``三刑=四鏈``, simplified too); an error names a malformed part."""
    from ..datalog.script import traditional

    readings = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        topic, sep, reading = part.partition("=")
        if not sep or not topic or not reading:
            raise InputError(f"cannot read {part!r}: expected topic=reading, e.g. punishment=seed000",
                             f"讀不懂「{part}」：應寫作 題=讀法，如 punishment=seed000", "reading")
        topic, reading = topic.strip(), reading.strip()
        topic = next((t for t, e in names().items() if traditional(topic) in (e["zh"], e["en"])), topic)
        said = names().get(topic, {}).get("readings", {})
        readings[topic] = next((r for r, e in said.items() if traditional(reading) in (e["zh"], e["en"])), reading)
    return readings


def display_path(path: Path, root: Path) -> str:
    try:
        return "kb/" + path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def load_files(paths: Iterable[Path], name: str = "kb", root: Path | None = None,
               school: School | None = None) -> KnowledgeBase:
    """Parse, check and compile KB files into a knowledge base; KBError lists every problem.

    A warm load reads the whole checked knowledge base from :mod:`.snapshot` instead: as the
    package shipped it (a packaged school, :mod:`.prepared`), or from the user's cache."""
    root = root or kb_root()
    sources, total = [], 0
    for path in paths:
        data = _read_kb_file(path, root)
        total += len(data)
        if total > MAX_KB_TOTAL:
            raise InputError(f"KB file {display_path(path, root)}: the KB files read together pass "
                             f"{MAX_KB_TOTAL:,} bytes, the limit of one knowledge base",
                             f"KB 檔 {display_path(path, root)}：合讀之 KB 檔超過 {MAX_KB_TOTAL:,} 字節，"
                             "即一個知識庫之限", "kb")
        sources.append((display_path(path, root), data))
    loaded = snapshot.load(snapshot.key(sources), sources, lambda: _load_afresh(sources), prepared_root())
    return KnowledgeBase(loaded.prepared.program, name, school, loaded.prepared, loaded.static)


def is_file(path: Path, what: str) -> bool:
    """Whether ``path`` is a file (False when it or a folder on the way is missing, or a link
    loops); a path the system refuses otherwise (too long, unreadable) is an InputError naming ``what``."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return False
    except OSError as error:
        if error.errno == errno.ELOOP:
            return False
        said = {"KB file": "KB 檔", "school file": "門派檔"}.get(what, what.replace("reading ", "讀法 "))
        raise InputError(f"{what}: cannot read {path}: {error.strerror or error}",
                         f"{said}：讀不了 {path}：{refused_zh(error)}") from None


def file_kind(mode: int) -> str:
    """What a file's mode says it is, in words."""
    for test, kind in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "some other kind of file"


def _read_kb_file(path: Path, root: Path) -> bytes:
    """The bytes of a KB file: a regular file of at most :data:`MAX_KB_FILE` bytes (refused unread
    when larger, or when it is a directory, a FIFO or a device: each named)."""
    shown = display_path(path, root)
    if not is_file(path, "KB file"):
        try:
            kind = file_kind(os.stat(path).st_mode)
        except (OSError, ValueError):  # missing, or a link that loops
            raise InputError(f"no KB file {shown}", f"無此 KB 檔：{shown}", "kb") from None
        raise InputError(f"KB file {shown} is {kind}, not a file of rules and facts",
                         f"KB 檔 {shown} 是{FILE_KINDS_ZH[kind]}，不是規則與事實之檔", "kb")
    try:
        size = os.stat(path).st_size
        data = path.read_bytes() if size <= MAX_KB_FILE else b""
    except OSError as error:  # unreadable (permissions, a disk error)
        raise InputError(f"cannot read KB file {shown}: {error.strerror or error}",
                         f"讀不了 KB 檔 {shown}：{refused_zh(error)}", "kb") from None
    if max(size, len(data)) > MAX_KB_FILE:  # (read only when it was within the bound when asked)
        raise InputError(f"KB file {shown} is larger than {MAX_KB_FILE:,} bytes, the limit of one KB file",
                         f"KB 檔 {shown} 大於 {MAX_KB_FILE:,} 字節，即一個 KB 檔之限", "kb")
    return data


def sources_of(school: School, root: Path) -> list[tuple[str, bytes]]:
    """The school's KB files as (shown path, bytes), in load order."""
    return [(display_path(path, root), _read_kb_file(path, root)) for path in school.files(root)]


def parsed(path: Path, root: Path | None = None):
    """A KB file's module: as a shipped school holds it (:mod:`.prepared`), else parsed (cached by its bytes)."""
    root = root or kb_root()
    shown, data = display_path(path, root), _read_kb_file(path, root)
    found = snapshot.shipped_module(prepared_root(), shown, data)
    if found is None:
        from ..datalog.parser import parse_source

        found = parse_source(data, shown)
    return found


def _load_afresh(sources) -> snapshot.Loaded:
    """Parse and check the files, plan the rules and evaluate what no chart changes."""
    from ..datalog.checker import check
    from ..datalog.evaluate import Materialisation
    from ..datalog.parser import parse_source
    from ..datalog.semantics import EvaluationLimit

    modules, problems = [], []
    for shown, data in sources:
        try:
            modules.append(parse_source(data, shown))
        except KBError as error:
            problems += error.problems
    if problems:
        raise KBError(problems)
    kb = KnowledgeBase(check(modules))
    try:
        static = Materialisation(kb).static_state()
    except EvaluationLimit:  # the engine says so again when a session evaluates it
        static = None
    return snapshot.Loaded(kb.prepared, static)


def _packaged_readings(root: Path, topic: str) -> list[str]:
    return sorted(p.stem for p in (root / "variants" / topic).glob("*.dl"))


def _is_reading(root: Path, topic: str, reading: str) -> bool:
    """Whether ``reading`` names one of the topic's packaged readings (a name, never a path into
    another folder) or a user's .dl file that exists."""
    if reading.endswith(".dl"):
        return is_file(reading_file(root, topic, reading), f"reading {topic}")
    return reading in _packaged_readings(root, topic)


def load_school(school: str | School = "default", readings: Mapping[str, str] | None = None,
                extra: Iterable[Path] = ()) -> KnowledgeBase:
    """Load a school's knowledge base, optionally with other readings and user files."""
    chosen = read_school(school) if isinstance(school, str) else school
    if readings:
        chosen = chosen.with_readings(readings)
    root = kb_root()
    for topic, reading in chosen.readings.items():
        if topic in CALENDAR_READINGS:
            if reading not in CALENDAR_READINGS[topic]:
                raise InputError(f"no reading {reading!r} of {topic} (readings: {', '.join(CALENDAR_READINGS[topic])})",
                                 f"{topic_name(topic)}無此讀法「{reading}」（可取：{_readings_zh(topic, CALENDAR_READINGS[topic])}）",
                                 "reading")
        elif not _is_reading(root, topic, reading):
            options = _packaged_readings(root, topic)
            raise InputError(f"no reading {reading!r} of {topic} (readings: {', '.join(options) or 'none'}, or a .dl file)",
                             f"{topic_name(topic)}無此讀法「{reading}」（可取：{_readings_zh(topic, options) or '無'}，"
                             "或一個 .dl 檔）", "reading")
    return load_files(chosen.files(root) + list(extra), chosen.name, root, chosen)
