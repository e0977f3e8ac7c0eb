"""The docs: the examples in the docstrings run as written; every tracked file cites only documents
of the repository, by repository paths, and every ``docs/rules.md §N`` it cites exists."""
from __future__ import annotations

import doctest
import importlib
import json
import re
import subprocess
from functools import cache
from pathlib import Path, PurePosixPath

import pytest

from conftest import CHECKOUT, seed_text

RULES = CHECKOUT / "docs" / "rules.md"
# An absolute path of a particular machine: a user's home, a build or work folder.
MACHINE_PATH = re.compile(r"(?<![\w$.~-])(?:/(?:work|root|home|Users|mnt|srv)/|[A-Za-z]:\\(?:Users|home)\\)")
# A relative path that climbs out of the file's folder (it may leave the checkout).
CLIMB = re.compile(r"(?<![\w.])((?:\.\./)+)([\w.-]+(?:/[\w.-]+)*)")
# The project's shared folder holds the seed texts, which a reader may have beside the checkout;
# anything else of it (its docs, its cases) is not the repository's to cite.
SHARED_DOC = re.compile(r"(?<![\w.-])shared/(?!seeds\b)[\w.-]+")
# A repository path of a Markdown document, or a Markdown link's target.
MD_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.md)(?![\w/])")
MD_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
DOCUMENT_SUFFIXES = {".md", ".txt", ".json", ".toml", ".dl", ".py", ".html", ".csv", ".yaml", ".pdf"}
# A citation of the specification: docs/rules.md and the sections after it on the same line.
SECTION = re.compile(r"§(\d+)((?:(?:,\s*|\s+(?:and\s+)?)[A-Z](?![\w\u3400-\u9fff]))*)")
HEADING = re.compile(r"^#{2,3} §(\d+)(?: ([A-G])\b)?", re.M)


@pytest.mark.parametrize("name", ["liuren_logic", "liuren_logic.domain.session", "liuren_logic.explain.lesson",
                                  "liuren_logic.explain.picture", "liuren_logic.explain.view", "liuren_logic.datalog.labels", "liuren_logic.datalog.digraph",
                                  "liuren_logic.datalog.script", "liuren_logic.domain.matter"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@cache
def tracked() -> dict[str, str]:
    """Every text file git tracks in the checkout, by its repository path (binary files left out)."""
    try:
        listing = subprocess.run(["git", "-C", str(CHECKOUT), "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"the tracked files are unknown (not a git checkout, or no git): {error}")
    texts = {}
    for name in filter(None, listing.decode("utf-8").split("\0")):
        path = CHECKOUT / name
        if path.is_file() and b"\0" not in (data := path.read_bytes()):
            texts[name] = data.decode("utf-8", errors="replace")
    return texts


def lines(pattern: re.Pattern) -> list[str]:
    """``file:line: match`` for every match of ``pattern`` in the tracked files."""
    return [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for name, text in tracked().items() for m in pattern.finditer(text)]


def inside(path: Path) -> bool:
    return path.resolve().is_relative_to(CHECKOUT.resolve())


def test_no_tracked_file_names_a_machine_path():
    assert lines(MACHINE_PATH) == []


def test_no_tracked_file_cites_the_shared_folder_beyond_its_seeds():
    assert lines(SHARED_DOC) == []


def test_no_relative_path_leads_out_of_the_checkout_to_a_document():
    """A relative path that climbs, read from its file's folder, stays in the checkout when it names a
    document or the shared folder; what merely climbs (a bad ``--reading`` a test feeds the CLI) is no
    citation."""
    outside = []
    for name, text in tracked().items():
        for m in CLIMB.finditer(text):
            target = CHECKOUT / PurePosixPath(name).parent / m.group(1) / m.group(2)
            first = m.group(2).split("/")[0]
            if not inside(target) and (PurePosixPath(m.group(2)).suffix in DOCUMENT_SUFFIXES or first == "shared"):
                outside.append(f"{name}: {m.group(0)}")
    assert outside == []


def test_every_markdown_document_cited_is_in_the_repository():
    """A Markdown file's path in any file is a repository path; a Markdown link is read from its file's
    folder."""
    missing = []
    for name, text in tracked().items():
        for m in MD_PATH.finditer(text):
            if m.group(1) not in tracked() and not (CHECKOUT / PurePosixPath(name).parent / m.group(1)).is_file():
                missing.append(f"{name}: {m.group(1)}")
        if name.endswith(".md"):
            for m in MD_LINK.finditer(text):
                target = m.group(1)
                if "://" not in target and not target.startswith("mailto:"):
                    path = CHECKOUT / PurePosixPath(name).parent / target
                    if not (inside(path) and path.exists()):
                        missing.append(f"{name}: ({target})")
    assert missing == []


def rules_sections() -> set[tuple[str, str]]:
    """The sections of docs/rules.md: ("3", "") for §3, ("3", "A") for §3 A."""
    headings = HEADING.findall(RULES.read_text("utf-8"))
    return {(n, "") for n, _ in headings} | {(n, x) for n, x in headings if x}


def test_rules_has_its_sections():
    sections = rules_sections()
    assert {(str(n), "") for n in range(1, 8)} <= sections
    assert {("3", x) for x in "ABCDEFG"} <= sections
    assert re.search(r"^## Variants$", RULES.read_text("utf-8"), re.M)


def test_every_citation_of_rules_names_a_section_it_has():
    """``docs/rules.md §N`` (and ``§3 F, G``, ``§1 (…) and §4``) anywhere, and ``§N`` within it."""
    sections, rules = rules_sections(), RULES.read_text("utf-8")
    cited, wrong = 0, []
    for name, text in tracked().items():
        for number, line in enumerate(text.splitlines(), 1):
            at = line.find("docs/rules.md") if name != "docs/rules.md" else 0
            if at < 0:
                continue
            for m in SECTION.finditer(line, at):
                cited += 1
                for letter in re.findall(r"[A-Z]", m.group(2)) or [""]:
                    if (m.group(1), letter) not in sections:
                        wrong.append(f"{name}:{number}: §{m.group(1)} {letter}".rstrip())
            for variant in re.findall(r"VARIANT ([^\s,.;)]+)", line[at:]):
                if variant not in rules:
                    wrong.append(f"{name}:{number}: VARIANT {variant}")
    assert wrong == []
    assert cited > 60  # the KB, the tests and the docs cite it by section


def test_every_disputed_topic_and_reading_is_a_named_variant_of_rules():
    """Each topic of kb/variants/names.json is a row of the table of Variants, with its Chinese name and
    both readings by id and by the name the board shows."""
    names = json.loads((CHECKOUT / "kb" / "variants" / "names.json").read_text("utf-8"))["topics"]
    table = RULES.read_text("utf-8").split("\n## Variants\n", 1)[1]
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` .*$", table, re.M)}
    assert set(rows) == set(names)
    for topic, entry in names.items():
        for reading in entry["readings"]:
            assert f"`{reading}` {entry['readings'][reading]['zh']}" in rows[topic], (topic, reading)
        assert entry["zh"] in rows[topic], topic


def test_the_seed_lines_rules_quotes_are_the_seeds_own():
    """Each quotation of seed 000 set apart in docs/rules.md is in the seed, piece by piece between its
    ellipses; a character the seed lost, restored in 〔〕, is the seed's blank."""
    quotes = re.findall(r"^> (.+?) \((?:《福山堂》, )?seed 000\b", RULES.read_text("utf-8"), re.M)
    assert len(quotes) >= 10
    text = seed_text("000")
    for quote in quotes:
        for piece in re.split(r"\s*…\s*", re.sub(r"〔.〕", "", quote)):
            assert re.sub(r"\s+", "", piece) in text, piece
