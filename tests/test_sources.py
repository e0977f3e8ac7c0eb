"""Every rule that cites a seed quotes it word for word; every rule and predicate is labelled."""
from __future__ import annotations

import re

from conftest import seed_text

SEEDS = ("000", "003")


# Classical books a rule may cite beyond the seeds (kb/keti, kb/bifa): key → the book. Their
# lines are quoted as docs/coverage_keti.md and docs/coverage_bifa.md give them, with where
# each text was read; the seeds are checked word for word.
BOOKS = {"大全": "《六壬大全》課經", "心鏡": "《大六壬心鏡》 in 《六壬大全》", "訂訛": "《訂訛》 in 《六壬大全》",
         "觀月": "《觀月經》 in 《六壬大全》", "指南": "《六壬指南》", "畢法": "凌福之《畢法賦》"}


def test_every_source_is_a_verbatim_seed_line(session):
    texts = {key: seed_text(key) for key in SEEDS}
    cited = [r for r in session.kb.program.rules if r.source]
    assert len(cited) > 40
    for rule in cited:
        key, _, quote = rule.source.partition(": ")
        assert key in texts or key in BOOKS, f"{rule.id}: source must start with 000:, 003: or a book of {sorted(BOOKS)}"
        if key in texts:
            assert re.sub(r"\s+", "", quote) in texts[key], f"{rule.id} at {rule.pos}: {quote!r} is not in seed {key}"
        else:
            assert quote.strip(), f"{rule.id}: a book's source quotes its line"


def test_every_annotated_rule_and_declared_predicate_has_both_labels(session):
    for rule in session.kb.program.rules:
        if rule.annotated:
            assert rule.label("zh") and rule.label("en"), rule.id
    for decl in session.kb.program.preds.values():
        assert decl.label("zh") and decl.label("en"), decl.name


def test_every_rule_of_the_default_school_is_annotated(session):
    plain = [f"{r.pos}" for r in session.kb.program.rules if not r.annotated]
    assert plain == []
