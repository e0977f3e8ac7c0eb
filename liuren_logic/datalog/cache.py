"""A cache of parsed KB files (and of whole loaded schools, :mod:`.snapshot`), so start-up
does not re-parse unchanged files.

Entries live in memory for the process and on disk (``$LIUREN_CACHE`` or
``~/.cache/liuren-logic``) as plain JSON data, never pickles: reading an entry builds
only this package's syntax nodes from strings, numbers and lists, so no entry can run
code. The key covers the file's bytes, its shown path, lark's version and the source
files of this package's own modules, so a changed file, grammar or parser misses. Each entry
carries an HMAC of its name and payload under a per-user key (``key``, mode 0600); an entry
whose MAC does not match is parsed afresh and replaced, and a key that is empty or unreadable
is made again. The directory is used only when it is a real directory owned by the user and
not writable by group or others; temporary files are removed whether or not the write
succeeds (and those a killed writer left, at the next write), and the oldest entries beyond
``MAX_ENTRIES`` or ``MAX_BYTES``. A large file of plain facts is not stored (``module``).

An entry may also be shipped prepared in a folder of the installed package (``shipped``,
written at build time by ``write_shipped``): it is read before the user's directory, as
trusted as the package's code beside it, so it carries a SHA-256 digest of its name and
payload instead of a MAC: a damaged one (a flipped byte, a truncated file) is not used, and
its name covers the same code and bytes, so a changed file or package never finds it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import stat
import time
from functools import lru_cache
from importlib.util import find_spec
from itertools import repeat
from pathlib import Path
from typing import Callable, NamedTuple, Optional

from . import syntax as S

_memory: dict[str, S.Module] = {}
_NODES = {name: cls for name, cls in vars(S).items()
          if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == S.__name__
          and cls is not S.Module}
_KEY_BYTES = 32
MAX_ENTRIES = 2000  # about 25 versions of the KB and the package; the oldest written go first
MAX_BYTES = 200 * 2**20  # and no more than this in all (a whole school's entry is about 1.5 MB)
_TEMPORARY = ".tmp-"  # the names of files being written: .tmp-PID-…, renamed when whole
STALE_SECONDS = 3600  # a temporary file older than this, or whose writer is gone, is removed (_prune)
DIRECT_BYTES, DIRECT_SHARE = 2**20, 0.9  # a larger file with this share of plain facts is not stored (module)


def directory() -> Path:
    return Path(os.environ.get("LIUREN_CACHE") or Path.home() / ".cache" / "liuren-logic")


@lru_cache(maxsize=1)
def code_digest() -> bytes:
    return digest_of_code(Path(__file__).parent)


def digest_of_code(package: Path) -> bytes:
    """A digest of a package's own modules (its top-level .py and .lark files: the parser, checker,
    compiler and engines; not the explanations or the KB) and of lark's version, read from the
    bytes of lark's ``__init__.py``, which states it (importing lark or importlib.metadata costs more)."""
    lark = find_spec("lark")
    digest = hashlib.sha256(Path(lark.origin).read_bytes() if lark and lark.origin else b"no lark")
    for path in sorted(package.glob("*")):
        if path.suffix in (".py", ".lark"):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def module(path: str, data: bytes, parse) -> S.Module:
    """The parsed form of the KB file ``path`` with these bytes; ``parse()`` computes it on a miss.

    A file of more than ``DIRECT_BYTES`` whose clauses are nearly all plain facts (``DIRECT_SHARE``)
    is not stored: the parser reads such lines directly, about as fast as an entry decodes (a 12 MB
    file of 377,619 facts: 6.4 s to parse, 5.6 s to decode an entry of 59 MB that took 3 s to write)."""
    name = entry_name(path.encode("utf-8", "surrogateescape"), data)
    if name not in _memory:
        encode = encode_module if len(data) <= DIRECT_BYTES else _unless_plain_facts
        _memory[name] = entry(name, parse, encode, lambda payload: decode_module(payload, path))
    return _memory[name]


def _unless_plain_facts(module: S.Module) -> Optional[bytes]:
    """``encode_module(module)``, or None (not stored) when its clauses are nearly all plain facts."""
    plain = sum(1 for rule in module.rules if not rule.body and not rule.annotated)
    clauses = len(module.rules) + len(module.preds) + len(module.kinds)
    return None if plain >= DIRECT_SHARE * clauses else encode_module(module)


def entry(name: str, make, encode, decode):
    """The value stored under ``name`` (``decode(payload)``), or ``make()``'s, then stored as ``encode(value)``.

    A payload whose MAC does not match, or that ``decode`` refuses (ValueError, TypeError,
    KeyError, IndexError, RecursionError), counts as a miss; ``encode`` may refuse a value
    (TypeError, ValueError, RecursionError) or return None, and the value is then not stored."""
    folder = _usable_directory()
    found = _load(folder, name, decode) if folder is not None else None
    if found is None:
        found = make()
        if folder is not None:
            _store(folder, name, found, encode)
    return found


def entry_name(*parts: bytes) -> str:
    """An entry's name: a digest of the package's code and of these parts."""
    digest = hashlib.sha256(code_digest())
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def _usable_directory() -> Optional[Path]:
    """The cache directory (made if absent), or None when it is not safely the user's own."""
    folder = directory()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return folder


def _secret(folder: Path) -> Optional[bytes]:
    """The per-user MAC key, made on first use and made again when it is empty, short or cannot be
    read (the entries written under the old key then fail their MAC and are made again); None if
    it is not private to the user (readable by others, or another user's: not trusted, not used)."""
    path = folder / "key"
    for _ in range(2):
        try:
            key = _read_private(path)
        except FileNotFoundError:
            _publish(folder, path, os.urandom(_KEY_BYTES), replace=False)
            continue
        except OSError:  # unreadable: no permission, a link
            key = b""
        if key is None or len(key) == _KEY_BYTES:
            return key
        _publish(folder, path, os.urandom(_KEY_BYTES), replace=True)
    return None


def _read_private(path: Path) -> Optional[bytes]:
    """A file's bytes if it is a regular file owned by the user and unreadable by others."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # no link followed, no FIFO waited on
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        return handle.read()


def _mac(secret: bytes, name: str, payload: bytes) -> bytes:
    return hmac.new(secret, name.encode() + b"\0" + payload, hashlib.sha256).hexdigest().encode()


def _load(folder: Path, name: str, decode):
    secret = _secret(folder)
    try:
        stored = _read_private(folder / f"{name}.json") if secret else None
    except OSError:
        return None
    if not stored:
        return None
    mac, _, payload = stored.partition(b"\n")
    if not hmac.compare_digest(mac, _mac(secret, name, payload)):
        return None
    try:
        return decode(payload)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None


def shipped(folder: Path, name: str, decode):
    """The value of the entry ``name`` shipped in ``folder`` (``decode(payload)``), or None when there
    is none, its digest does not match or ``decode`` refuses it (as ``entry`` counts a miss)."""
    try:
        stored = (folder / f"{name}.json").read_bytes()
    except OSError:
        return None
    digest, _, payload = stored.partition(b"\n")
    if not hmac.compare_digest(digest, _digest(name, payload)):
        return None
    try:
        return decode(payload)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None


def write_shipped(folder: Path, name: str, payload: bytes) -> Path:
    """Write an entry to ship in ``folder`` (read by ``shipped``); its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_bytes(_digest(name, payload) + b"\n" + payload)
    return path


def _digest(name: str, payload: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\0" + payload).hexdigest().encode()


def _store(folder: Path, name: str, value, encode) -> None:
    secret = _secret(folder)
    if secret is None:
        return
    try:
        payload = encode(value)
    except (TypeError, ValueError, RecursionError):  # not plain data (or too deep): make it again next time
        return
    if payload is None:  # not worth storing
        return
    _publish(folder, folder / f"{name}.json", _mac(secret, name, payload) + b"\n" + payload, replace=True)
    _prune(folder)


def _prune(folder: Path) -> None:
    """Remove the old pickle cache's entries (never read), temporary files a writer left (``_stale``)
    and the oldest entries beyond ``MAX_ENTRIES`` or ``MAX_BYTES``."""
    try:
        entries = sorted(((p.stat(), p) for p in folder.glob("*.json")), key=lambda e: e[0].st_mtime_ns)
        kept, size = len(entries), sum(info.st_size for info, _ in entries)
        doomed = list(folder.glob("*.pickle")) + [p for p in folder.glob(f"{_TEMPORARY}*") if _stale(p)]
        for info, path in entries[:-1]:  # the newest stays
            if kept <= MAX_ENTRIES and size <= MAX_BYTES:
                break
            doomed.append(path)
            kept, size = kept - 1, size - info.st_size
        for path in doomed:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _stale(temporary: Path) -> bool:
    """Whether a temporary file's writer is gone: the process named in it is not running (killed
    while writing), or it is older than ``STALE_SECONDS`` (a name without a process, or one reused)."""
    writer = temporary.name[len(_TEMPORARY):].partition("-")[0]
    if writer.isdigit() and not _running(int(writer)):
        return True
    try:
        return time.time() - temporary.stat().st_mtime > STALE_SECONDS
    except OSError:  # gone already
        return False


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal sent: only whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # it exists, as another user's
        return True
    return True


def _publish(folder: Path, path: Path, data: bytes, replace: bool) -> None:
    """Write ``data`` to a private temporary file, then move it to ``path`` (or link, keeping an existing one)."""
    try:
        import tempfile  # only to write: a warm start reads

        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f"{_TEMPORARY}{os.getpid()}-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)
    except OSError:
        pass
    finally:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def dumps(data) -> bytes:
    """Plain data as one line of compact JSON (a newline inside a string is escaped)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def encode_module(module: S.Module, with_lines: bool = True) -> bytes:
    """A module as one line of JSON data: its path, its kinds, predicates, rules and @prefer statements, its lines (null
    without ``with_lines``: the reader has the file's text)."""
    parts = [[node_data(v, module.path) for v in part] for part in (module.kinds, module.preds, module.rules,
                                                                     module.prefers)]
    return dumps([module.path, parts, module.lines if with_lines else None])


def node_data(value, path: str):
    """Syntax nodes of the file ``path`` as JSON data: a node is ``{"ClassName": [fields…]}``, the
    places of its terms (``[line, col, line, col…]``) and its own place (``line, col``) last, when it
    has them; tuples are lists. An atom's variable argument is written as its name, a constant as
    ``[value]`` (the thousands of terms are then no JSON objects). A fact (a rule without a body
    over constants) is written flat, ``{"Fact": [pred, [value, line, col, value, line, col…], line,
    col, the rule's other fields…, line, col]}`` (a KB holds thousands). Anything else is a TypeError."""
    if isinstance(value, tuple):
        return [node_data(v, path) for v in value]
    if type(value) in (str, int, bool):
        return value
    cls = type(value)
    if cls is S.Rule and _FACT_FIELDS:
        flat = _flat_fact(value, path)
        if flat is not None:
            return {"Fact": flat}
    layout = _LAYOUT.get(cls.__name__)
    if layout is None or layout.cls is not cls:
        raise TypeError(f"not a syntax node: {value!r}")
    data = [node_data(getattr(value, name), path) for name in layout.names]
    if cls is S.Atom and _TERM_FIELDS:
        data[1] = [arg.name if type(arg) is S.Var else [arg.value] if type(arg) is S.Const else node_data(arg, path)
                   for arg in value.args]
    if layout.places is not None:
        data.append([n for place in value.places for n in _line_col(place, path)])
    if layout.at is not None:
        data += _line_col(value.at, path)
    return {cls.__name__: data}


def _line_col(place: S.Place, path: str) -> list:
    if place[0] != path:
        raise TypeError(f"a place in {place[0]}, not {path}")
    return [place[1], place[2]]


def decode_module(payload: bytes, path: str, terms: Optional[dict] = None, lines: Optional[list] = None) -> S.Module:
    """An entry's payload back into syntax nodes (``terms``: as for ``decode_nodes``; ``lines``: the
    file's, for a payload written without them)."""
    stored_path, parts, stored = decode_nodes(payload, path, terms)
    if stored_path != path:
        raise ValueError("an entry for another file")
    if stored is None and lines is None:
        raise ValueError("an entry without its lines")
    kinds, preds, rules, prefers = parts
    return S.Module(path, kinds, preds, rules, list(lines if stored is None else stored), prefers)


def decode_nodes(payload: bytes, path: str, terms: Optional[dict] = None):
    """JSON data back into the syntax nodes of the file ``path``, each built as the JSON parser meets it
    (lists stay lists outside nodes); equal variables and constants are one object, and so is each
    sequence of them that atoms take as arguments, shared with those already in ``terms`` (a dict,
    filled as it goes).

    A node's slots are set as its dataclass ``__init__`` would set them (these classes have no
    ``__post_init__``: ``_layout``), through the slots' descriptors, without going through
    ``__init__``, which for a frozen dataclass costs more than the rest of the decoding."""
    new = object.__new__
    terms = {} if terms is None else terms
    (set_value,), (set_name,) = _LAYOUT["Const"].setters, _LAYOUT["Var"].setters
    atom, rule_layout = _LAYOUT["Atom"], _LAYOUT["Rule"]
    (set_pred, set_args), set_places, set_atom_at = atom.setters, atom.places, atom.at
    (set_head, set_body, *set_rest), set_rule_at = rule_layout.setters, rule_layout.at

    def leaf(cls, set_field, value, key):
        """The one node of ``cls`` whose field is ``value``, kept in ``terms`` under ``key`` (as node() keys it)."""
        found = terms.get(key)
        if found is None:
            found = terms[key] = new(cls)
            set_field(found, value)
        return found

    def const(value) -> S.Const:
        return leaf(S.Const, set_value, value, ("Const", type(value), value))

    def arguments(args: list) -> tuple:
        key = ("args", *map(id, args))  # the tuple kept under it holds its objects: no id is reused
        found = terms.get(key)
        if found is None:
            found = terms[key] = tuple(args)
        return found

    def variable(name: str) -> S.Var:
        return leaf(S.Var, set_name, name, ("Var", str, name))

    def places(flat: list) -> tuple:
        if len(flat) % 2:
            raise ValueError("a place without its column")
        pairs = iter(flat)
        return tuple([(path, line, col) for line, col in zip(pairs, pairs)])

    def fact(fields: list) -> S.Rule:
        pred, consts, line, col, *rest = fields
        if len(rest) != len(set_rest) + 2 or len(consts) % 3:
            raise ValueError(f"a fact with {len(fields)} fields")
        head = new(S.Atom)
        set_pred(head, pred)
        set_args(head, arguments(list(map(const, consts[::3]))))
        set_places(head, tuple(zip(repeat(path), consts[1::3], consts[2::3])))
        set_atom_at(head, (path, line, col))
        rule = new(S.Rule)
        set_head(rule, head)
        set_body(rule, ())
        for setter, field in zip(set_rest, rest):
            setter(rule, tuple(map(_tuples, field)) if type(field) is list else field)
        set_rule_at(rule, (path, rest[-2], rest[-1]))
        return rule

    def node(value: dict):
        ((tag, fields),) = value.items()
        if tag == "Fact":
            return fact(fields)
        if tag in _TERMS and len(fields) == 1:  # a variable or constant: one object for each
            (field,) = fields
            key = (tag, type(field), field)
            found = terms.get(key)
            if found is None:
                found = terms[key] = built(_LAYOUT[tag], fields)
            return found
        layout = _LAYOUT[tag]
        if len(fields) != layout.width:
            raise ValueError(f"a {tag} with {len(fields)} fields")
        if layout is atom:
            fields[1] = arguments([variable(arg) if type(arg) is str else const(*arg) if type(arg) is list else arg
                                   for arg in fields[1]])
        return built(layout, fields)

    def built(layout: _Layout, fields: list):
        made = new(layout.cls)
        for setter, field in zip(layout.setters, fields):
            setter(made, tuple(map(_tuples, field)) if type(field) is list else field)
        if layout.places is not None:
            layout.places(made, places(fields[len(layout.setters)]))
        if layout.at is not None:
            layout.at(made, (path, fields[-2], fields[-1]))
        return made

    return json.loads(payload, object_hook=node)


class _Layout(NamedTuple):
    """A syntax node class: its fields but ``places`` and ``at``, their slots' setters, those of
    ``places`` and ``at`` (None when it has no such field) and how many JSON fields it takes."""

    cls: type
    names: tuple[str, ...]
    setters: tuple
    places: Optional[Callable]
    at: Optional[Callable]
    width: int


def _layout(cls) -> _Layout:
    names = tuple(f.name for f in dataclasses.fields(cls))
    if hasattr(cls, "__post_init__") or tuple(cls.__slots__) != names:
        raise TypeError(f"{cls.__name__} cannot be built field by field")
    placed = tuple(name for name in ("places", "at") if name in names)
    if names[len(names) - len(placed):] != placed:
        raise TypeError(f"{cls.__name__}'s places are not its last fields")
    own = names[:len(names) - len(placed)]
    setter = {name: getattr(cls, name).__set__ for name in names}
    return _Layout(cls, own, tuple(setter[name] for name in own), setter.get("places"), setter.get("at"),
                   len(own) + ("places" in names) + 2 * ("at" in names))


def _flat_fact(rule: S.Rule, path: str) -> Optional[list]:
    """A fact of constants, every place in ``path``, as ``node_data`` writes it flat; None for
    any other rule. The rule's other fields are strings, booleans and tuples of strings, written
    as they are (anything else is a TypeError of the JSON encoder: the entry is not stored)."""
    head = rule.head
    if rule.body or rule.at[0] != path or head.at[0] != path:
        return None
    consts = []
    for arg, (in_path, line, col) in zip(head.args, head.places):
        if type(arg) is not S.Const or in_path != path:
            return None
        consts += [arg.value, line, col]
    return [head.pred, consts, head.at[1], head.at[2], *[getattr(rule, name) for name in _FACT_FIELDS],
            rule.at[1], rule.at[2]]


_LAYOUT = {name: _layout(cls) for name, cls in _NODES.items()}
# The nodes of one field and no place (a variable, a constant): equal ones are one object (decode_nodes).
_TERMS = frozenset(name for name, layout in _LAYOUT.items() if layout.places is None and layout.at is None and layout.width == 1)
# Whether a variable is just its name and a constant its value (an atom's are then written short).
_TERM_FIELDS = _LAYOUT["Var"].names == ("name",) and _LAYOUT["Const"].names == ("value",)
# The rule's fields after its head and body, when a fact can be written flat (Atom and Const as expected).
_FACT_FIELDS = (_LAYOUT["Rule"].names[2:] if _LAYOUT["Rule"].names[:2] == ("head", "body")
                and _LAYOUT["Atom"].names == ("pred", "args") and _LAYOUT["Const"].names == ("value",) else ())


def _tuples(value):
    """JSON lists as the tuples the syntax nodes hold."""
    return tuple(map(_tuples, value)) if type(value) is list else value
