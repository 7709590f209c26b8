"""``python -m eval.sql.spider_study counterexamples``: the shared sets' passes put to the counterexample search,
per set and per database, and the hand-checked sample of refutations (issue 36 point 5).

The whole command (both sets, every pass) takes minutes; its ``--check-docs`` is run by hand. Here: its parts on
made data and real SQLite files, and on the shared sets only the judged questions, searched again (cheap): each
must still be refuted, and the page's table must be the judgements file's.
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from eval.core.errors import UsageError
from eval.sql.records import docs
from eval.sql.spider_study import _counter as counter
from eval.sql.spider_study import _refutations as refutations
from eval.sql.spider_study._audit import audit, audit_one
from eval.sql.spider_study._graded import GradedSet, dev_index, grade_set
from eval.tests import needs_spider


def test_the_draw_takes_the_first_of_each_set_by_the_stated_hash_whatever_order_they_come_in():
    found = {"A": tuple(range(40)), "B": tuple(range(100, 140))}
    drawn = refutations.draw(found)
    assert len(drawn) == refutations.SIZE
    assert sum(1 for s, _ in drawn if s == "A") == refutations.PER_SET == sum(1 for s, _ in drawn if s == "B")
    a = sorted(range(40), key=lambda i: refutations._order("A", i))[: refutations.PER_SET]
    assert sorted(i for s, i in drawn if s == "A") == sorted(a)
    assert drawn == refutations.draw({"B": tuple(reversed(found["B"])), "A": tuple(reversed(found["A"]))})


def test_a_set_with_few_refutations_gives_all_and_the_other_set_the_rest():
    drawn = refutations.draw({"A": (1, 2, 3), "B": tuple(range(100, 150))})
    assert [i for s, i in drawn if s == "A"] == [1, 2, 3]
    assert sum(1 for s, _ in drawn if s == "B") == refutations.SIZE - 3
    assert len(refutations.draw({"A": (1,), "B": (2,)})) == 2  # fewer than the size in all: every one


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "checked.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_judgements_are_read_and_a_bad_one_is_named_with_its_file_and_question(tmp_path):
    good = "- {set: A, id: spider-0007, class: reference wrong, reason: 'LIMIT 1 drops a tie'}\n"
    (c,) = refutations.load(_write(tmp_path, good))
    assert c.key == ("A", 7) and c.verdict == "reference wrong"
    with pytest.raises(UsageError, match=r"checked\.yaml: entry 1 \(spider-0007\): class 'maybe'"):
        refutations.load(_write(tmp_path, "- {set: A, id: spider-0007, class: maybe, reason: x}\n"))
    with pytest.raises(UsageError, match="give set, id, class and reason"):
        refutations.load(_write(tmp_path, "- {set: A, id: spider-0007, class: candidate wrong}\n"))
    with pytest.raises(UsageError, match="the reason must say why"):
        refutations.load(_write(tmp_path, "- {set: A, id: spider-0007, class: candidate wrong, reason: ' '}\n"))


def test_the_judgements_must_be_the_draw_and_each_must_still_be_refuted():
    checked = [refutations.Checked("A", "spider-0001", "candidate wrong", "x")]
    assert refutations.mismatch([("A", 1)], checked) == []
    assert refutations.mismatch([("A", 2)], checked) == [
        "A/spider-0002 drawn but not judged",
        "A/spider-0001 judged but not drawn",
    ]
    refuted = {"id": "spider-0001", "verdict": "pass", "search": {"tried": 3, "refuted": {"edits": []}}}
    assert refutations.still_refuted(checked, {"A": GradedSet("A", {"questions": [refuted]})}) == []
    agreed = {"id": "spider-0001", "verdict": "pass", "search": {"tried": 40}}
    assert refutations.still_refuted(checked, {"A": GradedSet("A", {"questions": [agreed]})}) == [
        "A/spider-0001: no longer refuted"
    ]


def test_the_table_counts_each_class_and_keeps_a_reason_out_of_the_tables_structure():
    checked = [
        refutations.Checked("B", "spider-0002", "both defensible", "a <b> | c\nd"),
        refutations.Checked("A", "spider-0009", "candidate wrong", "NOT IN meets a NULL"),
    ]
    text = refutations.table(checked)
    assert "candidate wrong 1, reference wrong 0, both defensible 1" in text
    rows = [line for line in text.splitlines() if line.startswith("| A") or line.startswith("| B")]
    assert rows == [
        "| A | spider-0009 | candidate wrong | NOT IN meets a NULL |",
        "| B | spider-0002 | both defensible | a &lt;b&gt; \\| c d |",
    ]


def _q(i: int, verdict: str, search: dict | None = None, database: str = "db") -> dict:
    return {"id": f"spider-{i:04d}", "verdict": verdict, "database": database, "search": search}


def test_a_sets_figures_count_passes_searched_refuted_and_set_aside():
    questions = [
        _q(1, "pass", {"tried": 40, "discarded": {"the reference returned nothing": 2}}),
        _q(2, "pass", {"tried": 3, "discarded": {"broke a constraint or a stated rule": 1}, "refuted": {"x": 1}}),
        _q(3, "pass", {"tried": 0, "note": "not searched: the database holds more than 200,000 rows"}, "big"),
        _q(4, "wrong"),
    ]
    s = counter.searched_set(GradedSet("S", {"questions": questions}), 12.0)
    assert (s.questions, s.passes, s.searched, s.refuted, s.judged) == (4, 3, 2, (2,), 43)
    assert s.discarded == {"the reference returned nothing": 2, "broke a constraint or a stated rule": 1}
    assert s.not_searched == {"not searched: the database holds more than 200,000 rows": 1}
    assert s.by_database == {"big": (1, 0), "db": (2, 1)}
    block = counter.docs_block([s], [])
    assert "| S | 4 | 3 | 2 | 1 (33.3%) | 43 | 3 |" in block and "12 s" not in block
    assert "graded and searched in 12 s" in counter.report([s], [])
    with pytest.raises(ValueError, match="searched no pass"):
        counter.searched_set(GradedSet("S", {"questions": [_q(1, "pass")]}))


def test_the_audit_reads_declared_keys_held_keys_broken_rows_and_keys_sqlite_cannot_check(tmp_path):
    db = tmp_path / "shop" / "shop.sqlite"
    db.parent.mkdir()
    with sqlite3.connect(db) as con:
        con.executescript(
            """
            CREATE TABLE maker (id INTEGER PRIMARY KEY, region TEXT);
            CREATE TABLE car (id INTEGER PRIMARY KEY, maker INTEGER REFERENCES maker(id),
                              maker_again INTEGER REFERENCES maker(id), ghost INTEGER REFERENCES nowhere(id));
            CREATE TABLE sale (car INTEGER, region TEXT REFERENCES maker(region));
            INSERT INTO maker VALUES (1, 'north');
            INSERT INTO car VALUES (1, 1, 1, NULL), (2, 7, 1, NULL);
            """
        )
    con.close()
    a = audit_one(db)
    assert (a.database, a.declared, a.held, a.unchecked) == ("shop", 4, 3, ("sale",))
    assert a.broken_label == "cannot be checked"  # sale's key is no key of maker, so SQLite checks nothing
    assert "1 of its 4 declared foreign keys are not held" in a.note and "sale" in a.note
    assert [x.database for x in audit(tmp_path)] == ["shop"]
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE sale")
    con.close()
    assert audit_one(db).broken == 1  # car 2's maker 7 is no maker: the orphan counted


def _judged_on_page() -> str:
    return docs.SPIDER_REFUTATIONS.on_page()


def test_the_pages_table_is_the_judgements_file():
    checked = refutations.load()
    assert len(checked) == refutations.SIZE
    assert len({c.key for c in checked}) == refutations.SIZE
    assert _judged_on_page() == refutations.table(checked).strip()


@needs_spider.mark
def test_every_judged_refutation_is_still_found_by_the_search():
    spider = needs_spider.SPIDER
    assert spider is not None
    checked = refutations.load()
    names = sorted({c.set for c in checked})

    def graded(name: str) -> GradedSet:  # only the judged questions of the set: seconds, not minutes
        return grade_set(spider, name, counter.RUN_FLAGS, only={dev_index(c.id) for c in checked if c.set == name})

    with ThreadPoolExecutor(len(names)) as pool:  # each set is its own processes: both at once
        sets = dict(zip(names, pool.map(graded, names)))
    for name, g in sets.items():
        assert len(g.questions) == sum(1 for c in checked if c.set == name)  # nothing else was graded
    assert refutations.still_refuted(checked, sets) == []
