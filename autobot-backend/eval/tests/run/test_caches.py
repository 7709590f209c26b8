"""What a run keeps instead of doing again: one parse per statement, one execution per (database, SQL), the
fixtures' code digest. Each is shown to be used, and to give what doing it again would give."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from eval.sql.corpus.composition import composition
from eval.sql.corpus.questions import Question, load_corpus
from eval.sql.fixtures import cache as fixture_cache
from eval.sql.oracle.inner import inner_orderings
from eval.sql.oracle.lints import ordering_plan
from eval.sql.oracle.peers import peer_probe
from eval.sql.oracle.selfcheck import SelfCheckResult
from eval.sql.oracle.sharing import keep_references
from eval.sql.oracle.suspect_shapes import read as read_shapes
from services.nl_database_service import NLDatabaseService
from services.readonly import parsed
from services.readonly.execute import ErrorKind, Execution, ReadOnlySQL
from services.readonly.guard import validate_readonly_sql
from services.readonly.result_cache import ResultCache


def test_the_guard_and_the_lints_share_one_parse(monkeypatch):
    parsed.clear()
    calls: list[str] = []
    real = parsed._parse
    monkeypatch.setattr(parsed, "_parse", lambda tokens, sql, engine: calls.append(sql) or real(tokens, sql, engine))
    sql = "SELECT name, total FROM customers ORDER BY total DESC LIMIT 3"
    assert validate_readonly_sql(sql, "sqlite").allowed
    tree = parsed.statement_tree(sql, "sqlite")
    assert parsed.statement_tree(sql, "sqlite") is tree
    assert calls == [sql]  # the guard parsed it; the lints got that tree
    assert tree == sqlglot.parse_one(sql, read="sqlite")


def test_a_failed_parse_is_kept_and_raised_again():
    parsed.clear()
    for _ in range(2):
        with pytest.raises(sqlglot.errors.SqlglotError):
            parsed.statement_tree("SELECT FROM WHERE (", "sqlite")
    with pytest.raises(sqlglot.errors.ParseError, match="one statement"):
        parsed.statement_tree("SELECT 1; SELECT 2", "sqlite")


def test_a_kept_failure_raised_again_and_again_keeps_a_short_traceback():
    """Raising the one kept instance again would chain every earlier raise's frames (and their locals) onto it: a
    run whose answers repeat one unparseable text would hold them all."""
    import traceback

    parsed.clear()
    caught = None
    for _ in range(50):
        try:
            parsed.statement_tree("SELEC broken FROM", "sqlite")
        except sqlglot.errors.SqlglotError as exc:
            caught = exc
    assert caught is not None and len(list(traceback.walk_tb(caught.__traceback__))) < 10


def test_no_consumer_changes_a_shared_tree():
    """Every reference of the built-in corpus through every consumer of the shared tree: the trees stay as
    parsed, every node still its parent's child (a node put into another tree would be re-parented)."""
    parsed.clear()
    questions = [q for q in load_corpus().questions if q.expect == "answer" and q.sql]
    trees = {q.id: parsed.statement_tree(q.sql or "", "sqlite") for q in questions}
    before = {i: t.sql() for i, t in trees.items()}
    for q in questions:
        sql = q.sql or ""
        validate_readonly_sql(sql, "sqlite")
        ordering_plan.__wrapped__(sql, "sqlite")
        peer_probe.__wrapped__(sql, "sqlite")
        inner_orderings.__wrapped__(sql, "sqlite")
        composition(q)
        read_shapes(sql, "sqlite", {"orders": {"status": "TEXT"}})  # the suspect checks change their copy
    for q in questions:
        tree = parsed.statement_tree(q.sql or "", "sqlite")
        assert tree is trees[q.id]
        assert tree.sql() == before[q.id]
        assert tree == sqlglot.parse_one(q.sql or "", read="sqlite"), q.id
        for node in tree.walk():
            for child in node.iter_expressions():
                assert child.parent is node, f"{q.id}: a node of the shared tree was moved"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "n.db"
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE n (x INTEGER)")
        c.execute("INSERT INTO n VALUES (1), (2)")
    return path


def test_identical_sql_runs_once_per_database_and_a_fresh_run_runs_again(db: Path, tmp_path: Path):
    other = tmp_path / "m.db"
    other.write_bytes(db.read_bytes())
    sql = "SELECT SUM(x) FROM n"
    with ReadOnlySQL(results=ResultCache()) as ro:
        first = ro.run_readonly(sql, f"sqlite:///{db}")
        with sqlite3.connect(db) as c:  # the database changes behind the cache's back
            c.execute("INSERT INTO n VALUES (10)")
        assert ro.run_readonly(sql, f"sqlite:///{db}") is first  # not run again
        second = ro.run_readonly(sql, f"sqlite:///{db}", fresh=True)
        assert second.rows == [(13,)]  # the determinism run ran again
        assert ro.run_readonly(sql, f"sqlite:///{db}", fresh=True) is second  # once: a repeat compares the same two
        assert ro.run_readonly(sql, f"sqlite:///{db}") is first
        assert ro.run_readonly(sql, f"sqlite:///{other}").rows == [(3,)]  # another database is its own
        assert ro.results is not None and ro.results.hits == 3
    with ReadOnlySQL() as plain:  # the service's own default: nothing kept
        assert plain.run_readonly(sql, f"sqlite:///{db}").rows == [(13,)]


def test_a_failed_statement_is_run_again(db: Path):
    with ReadOnlySQL(results=ResultCache()) as ro:
        bad = ro.run_readonly("SELECT y FROM n", f"sqlite:///{db}")
        assert not bad.ok
        assert ro.run_readonly("SELECT y FROM n", f"sqlite:///{db}") is not bad
        assert ro.results is not None and len(ro.results) == 0


def test_the_result_cache_is_bounded_by_the_values_it_holds():
    cache: ResultCache[Execution] = ResultCache(max_values=400)
    for i in range(10):
        cache.put("u", f"q{i}", Execution(f"q{i}", ("a",), [(j,) for j in range(50)]))
    assert cache.values <= 400 and len(cache) == 8
    assert cache.get("u", "q0") is None and cache.get("u", "q9") is not None  # the oldest went first
    cache.put("u", "big", Execution("big", ("a",), [(j,) for j in range(101)]))  # over a quarter: not kept
    assert cache.get("u", "big") is None


def test_a_held_result_is_kept_whatever_its_size_and_outside_the_bound():
    cache: ResultCache[Execution] = ResultCache(max_values=400)
    big = Execution("big", ("a",), [(j,) for j in range(1_000)])  # ten times what the bound allows one result
    cache.put("u", "big", big, held=True)
    assert cache.get("u", "big") is big and cache.values == 0
    for i in range(10):  # the bound drops the oldest of what it counts, never what is held
        cache.put("u", f"q{i}", Execution(f"q{i}", ("a",), [(j,) for j in range(50)]))
    assert cache.get("u", "big") is big and cache.get("u", "q0") is None
    assert cache.get("u", "big", second=True) is None  # a determinism run is its own, never the held first run
    cache.put("u", "bad", Execution.failed("bad", ErrorKind.DATABASE, "no such column"), held=True)
    assert cache.get("u", "bad") is None  # only what ran is kept


def test_a_candidate_that_is_its_reference_runs_once_whatever_the_results_size(db: Path):
    """The self-check's result of a reference, too big for the bound, is held for the asking: a candidate answering
    with the reference's SQL gets it instead of running the statement again (issue 40: a million rows, twice)."""
    url = f"sqlite:///{db}"
    sql = "SELECT x FROM n ORDER BY x"
    question = Question(id="q1", question="Every x?", sql=sql)
    with NLDatabaseService(results=ResultCache(max_values=4)) as service:  # 2 rows: over a quarter of 4 values
        reference = service.sql.run_readonly(sql, url, reference=True)
        assert reference.ok and service.sql.results is not None and len(service.sql.results) == 0
        keep_references(service, [question], {None: [url]}, SelfCheckResult(reference={"q1": [reference]}))
        with sqlite3.connect(db) as c:  # the database changes behind the cache's back: a second run would see it
            c.execute("INSERT INTO n VALUES (3)")
        assert service.sql.run_readonly(sql, url) is reference
        assert service.sql.run_readonly("SELECT x FROM n", url).rows == [(1,), (2,), (3,)]  # other SQL runs


def test_the_code_digest_is_kept_per_source_bytes(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(fixture_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(fixture_cache, "_CODE_DIGESTS", {})
    module = tmp_path / "builder.py"
    module.write_text("def rows():\n    return [1, 2]\n")
    digest = fixture_cache.code_digest([module])
    assert list((tmp_path / "cache").glob("code-*.txt"))
    monkeypatch.setattr(fixture_cache, "_CODE_DIGESTS", {})  # a new process: the memo file answers
    monkeypatch.setattr(fixture_cache, "_code_digest", lambda paths: pytest.fail("parsed again"))
    assert fixture_cache.code_digest([module]) == digest
    monkeypatch.undo()
    monkeypatch.setenv(fixture_cache.CACHE_ENV, str(tmp_path / "cache"))
    module.write_text("def rows():\n    return [1, 3]\n")  # other bytes: computed again, and different
    assert fixture_cache.code_digest([module]) != digest
