"""An audit limited to some conclusions (--only), and what changed shown as −/+ (issue 31, item 7)."""
from __future__ import annotations

import json

from liuren_logic.faces.cli import main


def test_only_some_conclusions_and_the_html_shows_what_changed(capsys, tmp_path):
    page = tmp_path / "audit.html"
    argv = ["audit", "--vs", "punishment=seed000", "--times", "day", "--only", "三傳,patterns", "--json", "--html", str(page)]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["三傳"] == 33 and data["summary"]["patterns"] > 0  # as the whole audit finds them
    assert {d["conclusion"] for d in data["differences"]} == {"三傳", "patterns"} and data["summary"]["spirits"] == 0
    assert {r["before"]["id"] for r in data["rows"]} == {d["chart"] for d in data["differences"]}
    text = page.read_text("utf-8")
    lists = [d for d in data["differences"] if d["conclusion"] == "patterns"]
    first = next(d for d in lists if len(d["before"].split()) > 2)
    assert first["lost"] or first["gained"]
    for name in first["lost"]:
        assert f"<del>−{name}</del>" in text
    for name in first["gained"]:
        assert f"<ins>+{name}</ins>" in text
    assert first["before"] not in text  # the two whole lists are not printed, only what changed
    walk = next(d for d in data["differences"] if d["conclusion"] == "三傳")
    assert f"<del>{walk['before']}</del> → <ins>{walk['after']}</ins>" in text


def test_an_unknown_conclusion_is_one_line_before_any_work(capsys):
    assert main(["audit", "--vs", "punishment=seed000", "--only", "三傳,kin", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert err == "liuren: --only kin: the conclusions are 三傳, method, names, generals, spirits, patterns\n"
