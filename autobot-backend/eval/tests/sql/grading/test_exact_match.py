"""Spider's exact-set-match (EM), worked by hand from the component definitions of the Spider paper and of its
evaluator, with each quirk of the published script this implementation keeps or drops pinned by a case."""

from __future__ import annotations

import dataclasses

import pytest

from eval.core.forked import Spread
from eval.sql.grading.exact_match import exact_match, exact_of, with_exact_match
from eval.sql.grading.schema_names import unknown_names
from eval.sql.grading.spider_schema import SpiderSchema
from eval.sql.grading.spider_sql import parse, read_query
from eval.sql.model import codec
from eval.sql.model.exact import COMPONENTS, EXTENDED, OFFICIAL, ExactMatch, OtherMode, exact_match_figures
from eval.sql.model.outcome import NO_ANSWER, ORACLE, SQLOutcome, Verdict

SCHEMA = SpiderSchema.of(
    [
        ("singer", ["singer_id", "name", "country", "age"], []),
        ("concert", ["concert_id", "concert_name", "singer_id", "year"], [("singer_id", "singer", "singer_id")]),
        ("stadium", ["stadium_id", "name", "capacity"], []),
    ]
)


def em(pred: str, gold: str):
    return exact_match(pred, gold, "sqlite", SCHEMA)


def failed(pred: str, gold: str) -> set[str]:
    """The components that do not match (empty: every one does)."""
    result = em(pred, gold)
    return {name for name, ok in result.components.items() if not ok}


def test_the_same_query_matches_on_every_component():
    gold = "SELECT name, age FROM singer WHERE country = 'France' ORDER BY age DESC LIMIT 3"
    result = em(gold, gold)
    assert result.match is True and result.tables is True
    assert list(result.components) == list(COMPONENTS) and all(result.components.values())


def test_select_is_a_set_column_order_does_not_matter():
    assert em("SELECT age, name FROM singer", "SELECT name, age FROM singer").match is True


def test_select_with_and_without_aggregates():
    # Another aggregate over the same column: `select` fails, `select(no AGG)` (the column alone) holds.
    assert failed("SELECT min(age) FROM singer", "SELECT max(age) FROM singer") == {"select"}
    # Another column: both fail.
    assert failed("SELECT max(singer_id) FROM singer", "SELECT max(age) FROM singer") == {"select", "select(no AGG)"}


def test_values_are_ignored_as_the_official_default():
    assert em("SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > 20").match is True
    assert em(
        "SELECT name FROM singer WHERE country = 'Spain'", "SELECT name FROM singer WHERE country = 'France'"
    ).match


def test_where_with_and_without_operators():
    # Another operator on the same column: `where` fails, `where(no OP)` (the column) holds.
    assert failed("SELECT name FROM singer WHERE age < 20", "SELECT name FROM singer WHERE age > 20") == {"where"}
    # LIKE for = is another operator and a keyword.
    assert failed("SELECT name FROM singer WHERE name LIKE '%a%'", "SELECT name FROM singer WHERE name = 'a'") == {
        "where",
        "keywords",
    }
    # NOT is part of the condition unit and a keyword.
    assert failed(
        "SELECT name FROM singer WHERE country NOT IN ('France')", "SELECT name FROM singer WHERE country IN ('France')"
    ) == {"where", "keywords"}


def test_and_or():
    gold = "SELECT name FROM singer WHERE age > 20 AND country = 'France'"
    assert failed("SELECT name FROM singer WHERE age > 20 OR country = 'France'", gold) == {"and/or", "keywords"}
    # The conditions are a multiset: their order does not matter.
    assert em("SELECT name FROM singer WHERE country = 'x' AND age > 1", gold).match is True


def test_group_by_with_and_without_having():
    gold = "SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) > 1"
    # HAVING left out: `group(no Having)` holds, `group` (columns and HAVING) fails, and the keyword differs.
    assert failed("SELECT country, count(*) FROM singer GROUP BY country", gold) == {"group", "keywords"}
    assert em("SELECT country, count(*) FROM singer GROUP BY country HAVING count(*) > 5", gold).match is True
    # Another grouping column: both fail.
    assert failed("SELECT country, count(*) FROM singer GROUP BY age HAVING count(*) > 1", gold) == {
        "group",
        "group(no Having)",
    }


def test_order_by_with_limit():
    gold = "SELECT name FROM singer ORDER BY age DESC LIMIT 1"
    # The LIMIT's number is a value: ignored.
    assert em("SELECT name FROM singer ORDER BY age DESC LIMIT 3", gold).match is True
    # LIMIT missing: `order` fails (it needs both or neither), and the keyword.
    assert failed("SELECT name FROM singer ORDER BY age DESC", gold) == {"order", "keywords"}
    # Another direction: `order` and the asc/desc keyword.
    assert failed("SELECT name FROM singer ORDER BY age ASC LIMIT 1", gold) == {"order", "keywords"}
    # ASC by default, as written or not.
    assert em("SELECT name FROM singer ORDER BY age", "SELECT name FROM singer ORDER BY age ASC").match is True
    # One direction per clause, the last one written: Spider's parser keeps no direction per key.
    assert em(
        "SELECT name FROM singer ORDER BY age DESC, name DESC", "SELECT name FROM singer ORDER BY age, name DESC"
    ).match


def test_intersect_union_except():
    a = "SELECT name FROM singer WHERE age > 20"
    b = "SELECT name FROM singer WHERE country = 'France'"
    assert em(f"{a} UNION {b}", f"{a} UNION {b}").match is True
    assert failed(f"{a} INTERSECT {b}", f"{a} UNION {b}") == {"IUEN", "keywords"}
    # The part after the operation must itself match exactly.
    assert failed(f"{a} UNION SELECT name FROM singer WHERE age = 1", f"{a} UNION {b}") == {"IUEN"}
    # Missing: IUEN and the keyword.
    assert failed(a, f"{a} EXCEPT {b}") == {"IUEN", "keywords"}
    # An ORDER BY after the last SELECT belongs to it (as Spider's parser reads it), so the nested query differs.
    assert failed(f"{a} UNION {b} ORDER BY name", f"{a} UNION {b}") == {"IUEN"}


def test_a_chain_of_set_operations_nests_to_the_right():
    q = read_query("SELECT name FROM singer UNION SELECT name FROM stadium EXCEPT SELECT name FROM singer", "sqlite")
    assert q.union is not None and q.union.except_ is not None and q.union.tables == ("stadium",)


def test_table_aliases_are_resolved():
    gold = "SELECT name FROM singer WHERE age > 20"
    assert em("SELECT T1.name FROM singer AS T1 WHERE T1.age > 20", gold).match is True
    assert em("SELECT s.name FROM singer s WHERE s.age > 20", gold).match is True


def test_a_select_alias_in_order_by_is_what_it_names():
    gold = "SELECT country, count(*) FROM singer GROUP BY country ORDER BY count(*) DESC"
    assert em("SELECT country, count(*) AS n FROM singer GROUP BY country ORDER BY n DESC", gold).match is True


def test_joins_compare_the_set_of_tables():
    gold = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"
    assert em("SELECT T2.name FROM concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id", gold).match
    # A table more: every component matches, the FROM tables do not, so no exact match.
    extra = em(
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id JOIN stadium AS T3",
        gold,
    )
    assert extra.match is False and extra.tables is False and all(extra.components.values())


def test_quirk_kept_join_conditions_are_not_compared_direction_or_columns():
    """The published script compares no ON condition (an older one compared the first with its sides sorted)."""
    gold = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"
    assert em("SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T2.singer_id = T1.singer_id", gold).match
    assert em("SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.age = T2.year", gold).match
    # Nor the join type.
    assert em("SELECT T1.name FROM singer AS T1 LEFT JOIN concert AS T2 ON T1.singer_id = T2.singer_id", gold).match


def test_quirk_kept_count_star_is_a_column_of_its_own():
    """``*`` is Spider's ``__all__`` column: COUNT(*) is not COUNT(a key), even where their rows agree."""
    assert failed("SELECT count(singer_id) FROM singer", "SELECT count(*) FROM singer") == {"select", "select(no AGG)"}
    assert em("SELECT COUNT(*) FROM singer", "SELECT count(*) FROM singer").match is True


def test_quirk_kept_distinct_is_ignored():
    """The script's default DISABLE_DISTINCT: DISTINCT in SELECT and inside an aggregate counts for nothing."""
    assert em("SELECT country FROM singer", "SELECT DISTINCT country FROM singer").match is True
    assert em("SELECT count(country) FROM singer", "SELECT count(DISTINCT country) FROM singer").match is True


def test_quirk_kept_a_column_is_its_table_not_the_alias_of_it():
    """A self-join's two aliases are one table to the script: their columns cannot be told apart."""
    gold = "SELECT a.name, b.name FROM singer AS a JOIN singer AS b ON a.age = b.age"
    assert em("SELECT a.name, a.name FROM singer AS a JOIN singer AS b ON a.age = b.age", gold).match is True


def test_quirk_kept_group_by_compares_column_names_without_their_table():
    """``eval_group`` splits ``table.column`` on the dot: the same name in another table passes ``group(no
    Having)``, while ``group`` compares the whole column."""
    gold = "SELECT count(*) FROM singer AS T1 JOIN stadium AS T2 GROUP BY T1.name"
    assert failed("SELECT count(*) FROM singer AS T1 JOIN stadium AS T2 GROUP BY T2.name", gold) == {"group"}


def test_quirk_kept_a_column_on_the_right_of_a_comparison_is_a_value():
    """The script drops every value that is not a subquery, a column on the right of ``=`` included."""
    gold = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 WHERE T1.singer_id = T2.singer_id"
    assert em("SELECT T1.name FROM singer AS T1 JOIN concert AS T2 WHERE T1.singer_id = T2.year", gold).match


def test_foreign_keys_make_the_two_ends_one_column():
    """The script's ``kmap``: a column of a FROM table is its foreign-key set's first member."""
    gold = "SELECT T1.singer_id FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"
    assert em("SELECT T2.singer_id FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id", gold).match
    # Without the foreign key they are two columns.
    bare = exact_match(
        "SELECT T2.singer_id FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id", gold, "sqlite"
    )
    assert bare.match is False


def test_an_unqualified_column_belongs_to_the_first_from_table_that_has_it():
    gold = "SELECT T1.name FROM singer AS T1 JOIN stadium AS T2"
    assert em("SELECT name FROM singer AS T1 JOIN stadium AS T2", gold).match is True
    assert em("SELECT name FROM stadium AS T2 JOIN singer AS T1", gold).match is False


def test_subqueries_are_compared_whole_their_values_ignored():
    gold = "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer WHERE country = 'France')"
    assert em("SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer WHERE country = 'Spain')", gold).match
    assert failed(
        "SELECT name FROM singer WHERE age > (SELECT max(age) FROM singer WHERE country = 'France')", gold
    ) == {"where"}


@pytest.mark.parametrize(
    ("pred", "gold", "ran", "expected"),
    [
        ("SELECT name FROM singer", "SELEC name FROM", True, None),  # the reference: the harness cannot read it
        ("SELEC name FROM", "SELECT name FROM singer", True, None),  # ran, yet sqlglot cannot read it: its limit
        ("SELEC name FROM", "SELECT name FROM singer", False, False),  # neither read nor ran: the script's 0
        ("", "SELECT name FROM singer", False, False),  # no SQL at all
        (None, "SELECT name FROM singer", False, False),
    ],
)
def test_what_cannot_be_read_is_unmeasured_unless_it_is_the_candidates_fault(pred, gold, ran, expected):
    result = exact_match(pred, gold, "sqlite", SCHEMA, ran=ran)
    assert result.match is expected
    assert result.note and not result.components


def test_a_with_query_is_read_where_it_is_used_as_a_from_subquery():
    """Spider has no WITH: a FROM naming one reads its query as a FROM subquery, so its body is compared."""
    gold = "WITH old AS (SELECT name, age FROM singer WHERE age > 40) SELECT name FROM old"
    assert em("WITH o AS (SELECT name, age FROM singer WHERE age > 50) SELECT name FROM o", gold).match is True
    assert em("WITH old AS (SELECT name, age FROM singer WHERE age < 40) SELECT name FROM old", gold).match is False
    recursive = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n"
    assert em(recursive, recursive).match is True  # a WITH naming itself is read once, then as a table


def test_the_run_counts_unmeasured_em_apart_never_as_a_miss():
    def answer(n: int, verdict: Verdict, match: bool | None, level: str) -> SQLOutcome:
        parts = {} if match is None else dict.fromkeys(COMPONENTS, match)
        exact = ExactMatch(match, parts, match)
        return SQLOutcome(f"q{n}", "answer", "s", verdict, difficulty=level, exact=exact)

    outcomes = [
        answer(1, Verdict.PASS, True, "hard"),
        answer(2, Verdict.WRONG, True, "easy"),
        answer(3, Verdict.PASS, None, "easy"),
        answer(4, Verdict.ERROR, False, "easy"),
        SQLOutcome("q5", "answer", "s", Verdict.PASS, difficulty="easy"),  # EM not asked: not counted at all
    ]
    em = exact_match_figures(outcomes, ["easy", "hard"])
    assert em is not None
    t = em.overall
    assert (t.cases, t.measured, t.matched, t.unmeasured, t.rate) == (4, 3, 2, 1, 0.6667)
    assert t.execution_rate == 0.5  # passes of the same four questions
    assert list(em.by_difficulty) == ["easy", "hard"]
    assert (em.by_difficulty["easy"].measured, em.by_difficulty["easy"].matched) == (2, 1)
    assert em.components["select"] == 0.6667
    assert exact_match_figures(outcomes[4:], ["easy"]) is None


def official(pred: str | None, gold: str, schema: SpiderSchema | None = SCHEMA) -> ExactMatch:
    return exact_match(pred, gold, "sqlite", schema, mode=OFFICIAL)


@pytest.mark.parametrize(
    ("pred", "why"),
    [
        ("SELECT T1.name FROM singer AS T1 INNER JOIN concert AS T2 ON T1.singer_id = T2.singer_id", "JOIN alone"),
        ("SELECT T1.name AS n FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id", "alias"),
        ("SELECT s.name FROM singer s JOIN concert AS T2 ON s.singer_id = T2.singer_id", "needs AS"),
    ],
)
def test_official_mode_scores_what_spiders_parser_cannot_read_as_no_match(pred, why):
    gold = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"
    result = official(pred, gold)
    assert (result.mode, result.match, result.other, result.differs) == (OFFICIAL, False, True, True)
    assert result.note.startswith("Spider's parser cannot read the candidate's SQL") and why in result.note
    # Compared as the empty query, as the script compares it: no SELECT, no tables; no WHERE on either side.
    assert result.components["select"] is False and result.components["where"] is True and result.tables is False
    assert exact_match(pred, gold, "sqlite", SCHEMA).match is True  # extended: sqlglot reads it


def test_official_mode_leaves_a_reference_the_parser_cannot_read_unmeasured():
    gold = "SELECT count(*) AS n FROM singer"
    result = official("SELECT count(*) FROM singer", gold)
    assert result.match is None and "cannot read the reference" in result.note and "would stop" in result.note
    assert result.other is True  # extended reads it: the alias is only a name
    assert exact_match("SELECT count(*) AS n FROM singer", gold, "sqlite", SCHEMA).match is True


def test_official_mode_needs_the_schema_the_parser_reads_columns_against():
    result = official("SELECT name FROM singer", "SELECT name FROM singer", schema=None)
    assert result.match is None and "schema could not be read" in result.note
    assert result.other is True


def test_official_mode_maps_foreign_keys_and_drops_distinct_only_at_the_top_as_the_script():
    gold = "SELECT name FROM singer WHERE singer_id IN (SELECT singer_id FROM concert)"
    top = "SELECT T2.name FROM concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id"
    assert official(top, "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id").match
    distinct = "SELECT name FROM singer WHERE singer_id IN (SELECT DISTINCT singer_id FROM concert)"
    assert official(distinct, gold).match is False and official(distinct, gold).other is True
    assert official("SELECT DISTINCT name FROM singer", "SELECT name FROM singer").match is True  # top: dropped
    counted = "SELECT name FROM singer WHERE age > (SELECT count(DISTINCT age) FROM singer)"
    assert official(counted, "SELECT name FROM singer WHERE age > (SELECT count(age) FROM singer)").match is False
    assert official("SELECT count(DISTINCT age) FROM singer", "SELECT count(age) FROM singer").match is True
    other_end = "SELECT name FROM singer WHERE singer_id IN (SELECT T2.singer_id FROM concert AS T1 JOIN singer AS T2)"
    mapped = "SELECT name FROM singer WHERE singer_id IN (SELECT T1.singer_id FROM concert AS T1 JOIN singer AS T2)"
    assert official(other_end, mapped).match is False  # a subquery's columns are its own there
    assert exact_match(other_end, mapped, "sqlite", SCHEMA).match is True  # extended maps them at every level


def test_official_mode_swallows_an_or_after_a_column_value_as_spiders_parser_does():
    gold = "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id"
    pred = (
        "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id "
        "OR T1.singer_id = T2.concert_id"
    )
    result = official(pred, gold)
    assert result.match is True and result.other is False  # extended: OR is a keyword the gold lacks
    literal = "SELECT name FROM singer WHERE age = 3 OR age = 4"  # after a literal, OR stays
    assert official(literal, "SELECT name FROM singer WHERE age = 3").components["and/or"] is False


@pytest.mark.parametrize("mode", [OFFICIAL, EXTENDED])
@pytest.mark.parametrize(
    "pred",
    [
        "SELECT nme FROM singer",
        "SELECT T1.nme FROM singer AS T1",
        "SELECT name FROM singers",
        "SELECT name FROM singer WHERE singer_id IN (SELECT nme FROM concert)",
    ],
)
def test_sql_naming_what_the_schema_lacks_never_scores_em_1_in_either_mode(pred, mode):
    result = exact_match(pred, "SELECT name FROM singer", "sqlite", SCHEMA, ran=False, mode=mode)
    assert result.match is False and result.other is False


def test_names_the_schema_has_are_known_however_they_are_reached():
    schema_ok = [
        "SELECT name FROM singer AS s WHERE s.age > (SELECT avg(age) FROM singer WHERE country = s.country)",
        "SELECT n FROM (SELECT name AS n FROM singer)",
        "SELECT count(*) AS c FROM singer GROUP BY country ORDER BY c",
        "WITH o AS (SELECT name FROM singer) SELECT name FROM o",
        "SELECT rowid, name FROM singer",
        'SELECT name FROM singer WHERE country = "France"',  # SQLite: a double-quoted non-column is a string
    ]
    for sql in schema_ok:
        assert unknown_names(parse(sql, "sqlite"), SCHEMA, "sqlite") == [], sql
    assert unknown_names(parse("SELECT s.nme, x.name FROM singer AS s", "sqlite"), SCHEMA, "sqlite") == [
        "column s.nme",
        "column x.name",
    ]
    assert unknown_names(parse("SELECT nme FROM singer", "sqlite"), None, "sqlite") == []  # no schema: no telling


def test_the_run_counts_every_question_in_official_mode_and_the_answers_the_modes_part_on():
    gold = "SELECT name FROM singer"
    outcomes = [
        SQLOutcome("q1", "answer", "s", Verdict.PASS, sql=gold, reference_sql=gold, difficulty="easy"),
        SQLOutcome(
            "q2", "answer", "s", Verdict.PASS, sql="SELECT name AS n FROM singer", reference_sql=gold, difficulty="easy"
        ),
        # Its reference returns no rows: unmeasured, and never asked; the recorded SQL is compared.
        SQLOutcome("q3", "answer", "s", Verdict.UNMEASURED, reason=ORACLE, reference_sql=gold, difficulty="hard"),
        # Not asked and nothing recorded (a live candidate): unmeasured in both.
        SQLOutcome("q4", "answer", "s", Verdict.UNMEASURED, reason=ORACLE, reference_sql=gold, difficulty="hard"),
        # No line in the answers file: no SQL, so no match as the script scores it.
        SQLOutcome("q5", "answer", "s", Verdict.UNMEASURED, reason=NO_ANSWER, reference_sql=gold, difficulty="hard"),
    ]
    schemas = dict.fromkeys(["q1", "q2", "q3", "q4", "q5"], SCHEMA)
    done = with_exact_match(outcomes, exact_of(schemas.__contains__, "sqlite", schemas, OFFICIAL, {"q3": gold}))
    assert [o.exact.match if o.exact else "-" for o in done] == [True, False, True, None, False]
    assert [o.exact.other if o.exact else "-" for o in done] == [True, True, None, None, None]
    assert "not asked" in done[3].exact.note if done[3].exact else False
    em = exact_match_figures(done, ["easy", "hard"])
    assert em is not None
    t = em.overall
    assert (em.mode, t.cases, t.measured, t.matched, t.unmeasured) == (OFFICIAL, 5, 4, 2, 1)
    assert em.other == OtherMode(mode=EXTENDED, measured=2, matched=2, rate=1.0)
    assert em.differ == 3  # q2 (no match / match), q3 and q5 (measured / unmeasured)
    extended = with_exact_match(outcomes, exact_of(schemas.__contains__, "sqlite", schemas, EXTENDED, {"q3": gold}))
    em = exact_match_figures(extended, ["easy", "hard"])
    assert em is not None and (em.mode, em.overall.measured, em.overall.matched, em.overall.unmeasured) == (
        EXTENDED,
        2,
        2,
        3,
    )
    assert em.other.matched == 2 and em.other.measured == 4 and em.differ == 3
    exact = [o.exact for o in done if o.exact]
    assert [codec.from_json(ExactMatch, codec.to_json(e)) for e in exact] == exact


@pytest.mark.parametrize("workers", [1, 2])
def test_em_given_where_an_answer_was_graded_is_kept_and_the_rest_computed_as_before(workers):
    gold = "SELECT name FROM singer"
    outcomes = [
        SQLOutcome(f"q{i}", "answer", "s", Verdict.PASS, sql=sql, reference_sql=gold, difficulty="easy")
        for i, sql in enumerate([gold, "SELECT name AS n FROM singer", "SELECT age FROM singer"] * 4)
    ] + [SQLOutcome("r", "refuse", "s", Verdict.PASS, sql=gold, reference_sql=gold)]
    schemas = {o.question_id: SCHEMA for o in outcomes if o.expect == "answer"}
    one = exact_of(schemas.__contains__, "sqlite", schemas, OFFICIAL)
    whole = with_exact_match(outcomes, one)
    given = [one(o) if i % 2 else o for i, o in enumerate(outcomes)]  # what the grading children gave
    marker = ExactMatch(None, {}, None, "given where it was graded", None, mode=OFFICIAL)
    given[0] = dataclasses.replace(given[0], exact=marker)
    left: list[list[str]] = []
    done = with_exact_match(given, one, lambda rest: left.append([o.question_id for o in rest]) or Spread(workers))
    assert left == [[o.question_id for o in given if o.exact is None]]  # the spread is chosen for the outcomes left
    assert done[0].exact is marker  # already given: never computed again
    assert done[1:] == whole[1:]
    assert done[-1].exact is None  # a must-refuse question has none, given or not
    assert sum(o.exact is not None and o.exact.match for o in whole) == 4


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM singer",
        "SELECT name FROM singer;",
        "SELECT name FROM singer ;  \n",
        "SELECT name FROM singer;;",  # a block to parse_one, one statement to the guard
        "SELECT name FROM singer; -- done",
        "SELECT name FROM singer; SELECT age FROM singer",
        "SELECT ';' FROM singer",
        "INSERT INTO singer VALUES (1)",
        "SELEC name FROM",
    ],
)
def test_exact_match_reads_each_text_as_parse_does_whichever_parse_it_takes(sql):
    """EM takes the guard's shared tree where it is ``parse``'s and parses itself elsewhere: either way a text
    reads to the same tree, or fails with the same words, as ``parse`` gives it."""
    from eval.sql.grading import exact_match as em_module
    from eval.sql.grading.spider_sql import NotReadable

    em_module._tree.cache_clear()
    try:
        expected: object = parse(sql, "sqlite")
    except NotReadable as exc:
        expected = str(exc)
    got = em_module._tree(sql, "sqlite")
    if isinstance(expected, str):
        assert isinstance(got, NotReadable) and str(got) == expected
    else:
        assert not isinstance(got, NotReadable) and got[0] == expected and got[0].sql() == expected.sql()


def test_a_text_repeated_across_questions_is_parsed_once():
    from eval.sql.grading import exact_match as em_module

    em_module._tree.cache_clear()
    for _ in range(3):
        em("SELECT name FROM singer WHERE age > 30", "SELECT name FROM singer WHERE age > 30")
    info = em_module._tree.cache_info()
    assert info.misses == 1 and info.hits >= 2


def test_an_unreadable_text_met_again_does_not_grow_its_kept_failure():
    """The parse kept per process keeps a failure too; raised for every question that meets the text, each raise
    starts its own traceback (raising one instance again would chain every earlier raise's frames onto it)."""
    import traceback

    from eval.sql.grading import exact_match as em_module

    em_module._tree.cache_clear()
    for _ in range(50):
        em("SELECT name FROM singer", "SELEC name FROM")
    kept = em_module._tree("SELEC name FROM", "sqlite")
    assert len(list(traceback.walk_tb(kept.__traceback__))) < 10
