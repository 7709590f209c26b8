"""The read-only guard's decision table: each read allowed, each non-read rejected with its code.

``ALLOWED`` and ``REJECTED`` are the policy of spec section 12 written as cases. ``REJECTED`` is
reused by ``test_executor_without_guard.py``, which runs every SQLite case straight through the
executor with the guard bypassed, and by ``test_postgres_writes.py``. The guard's word lists and statement
splitter are ``test_guard_words.py``; its properties over the vendored corpus ``test_guard_corpus.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from services.readonly import guard as sql_guard
from services.readonly.guard import (
    GUARD_CODES,
    GuardVerdict,
    _validate_readonly_sql,
    validate_readonly_sql,
)


@dataclass(frozen=True)
class Case:
    id: str
    sql: str
    code: str = "ok"
    dialect: str = "sqlite"


ALLOWED: tuple[Case, ...] = (
    Case("plain-select", "SELECT id, name FROM customers"),
    Case("select-where", "SELECT * FROM orders WHERE amount > 10 AND status = 'paid'"),
    Case("trailing-semicolon", "SELECT 1;"),  # a lone trailing ';' is not a second statement
    Case("trailing-semicolons-and-space", "SELECT 1 ;  \n ;  "),
    Case("replace-function", "SELECT REPLACE(name, 'a', 'b') FROM customers"),
    Case("string-please-delete-me", "SELECT 'please delete me'"),
    Case("string-holds-a-statement", "SELECT 'x; DROP TABLE orders' AS note"),
    Case("string-doubled-quote", "SELECT 'it''s; DROP TABLE orders' AS note"),
    Case("string-with-dashes", "SELECT '--not-a-comment' AS marker"),
    # SQLite has no backslash escapes: '\' is a whole string.
    Case("sqlite-backslash-string", "SELECT '\\' AS backslash"),
    Case("comment-line-keyword", "-- DELETE FROM customers\nSELECT 1"),
    Case("comment-block-keyword", "/* DROP TABLE orders */ SELECT count(*) FROM orders"),
    # A ';' truly inside a comment does not end the statement, for the engine either.
    Case("semicolon-inside-comment", "SELECT 1 /* ; DROP TABLE orders */"),
    Case("trailing-line-comment", "SELECT 1 -- UPDATE customers SET deleted = 1"),
    Case("quoted-identifier-drop", 'SELECT "drop" FROM t'),
    Case("bracket-identifier-delete", "SELECT [delete] FROM t"),
    Case("backtick-identifier-update", "SELECT `update` FROM t"),
    Case("keyword-like-columns", "SELECT updated_at, deleted, created_by FROM customers"),
    Case("keyword-like-column-names", "SELECT insert_count, drop_rate, grant_total FROM stats"),
    Case("column-named-like-function", "SELECT sleep, load_file FROM t"),
    Case("string-names-function", "SELECT 'load_extension(x)', 'pg_sleep(10)'"),
    Case("cte-named-replace", "WITH replace AS (SELECT 1) SELECT * FROM replace"),
    Case("cte", "WITH big AS (SELECT * FROM orders WHERE amount > 100) SELECT count(*) FROM big"),
    Case(
        "recursive-cte", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n"
    ),
    Case(
        "window-function", "SELECT id, SUM(amount) OVER (PARTITION BY customer_id ORDER BY id) AS running FROM orders"
    ),
    Case("union", "SELECT name FROM customers UNION SELECT status FROM orders"),
    Case("except", "SELECT id FROM customers EXCEPT SELECT customer_id FROM orders"),
    Case("intersect", "SELECT id FROM customers INTERSECT SELECT customer_id FROM orders"),
    Case("subquery-in-where", "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders)"),
    Case(
        "correlated-exists",
        "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)",
    ),
    Case("scalar-subquery", "SELECT name, (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) FROM customers c"),
    Case(
        "join-group-having",
        "SELECT c.country, count(*) AS n FROM customers c JOIN orders o "
        "ON o.customer_id = c.id GROUP BY c.country HAVING count(*) > 1 ORDER BY n DESC "
        "LIMIT 5 OFFSET 1",
    ),
    Case("case-expression", "SELECT CASE WHEN deleted THEN 'gone' ELSE 'here' END FROM customers"),
    Case(
        "harmless-functions",
        "SELECT coalesce(updated_at, ''), lower(name), date('now'), substr(name, 1, 3) FROM customers",
    ),
    Case("values", "VALUES (1, 'a'), (2, 'b')"),
    Case("parenthesised-select", "(SELECT 1)"),
    Case("schema-table-read", "SELECT name FROM sqlite_master WHERE type = 'table'"),
    Case("pragma-table-valued-function", "SELECT name FROM pragma_table_info('orders')"),
    Case("mixed-case", "sElEcT Id FrOm CuStOmErS wHeRe DeLeTeD = 0"),
    Case("extra-whitespace", "\n\n   SELECT\n\tid\n   FROM\n customers \n\n"),
    Case("explain-select", "EXPLAIN SELECT * FROM orders"),
    Case("explain-query-plan", "EXPLAIN QUERY PLAN SELECT * FROM orders WHERE customer_id = 3"),
    Case("explain-lowercase-newlines", "explain  query  plan\nwith t AS (select 1) select * from t"),
    Case("pragma-table-info", "PRAGMA table_info(orders)"),
    Case("pragma-schema-qualified", 'PRAGMA main.table_info("orders")'),
    Case("pragma-index-list", "PRAGMA index_list(orders)"),
    Case("pragma-foreign-key-list", "PRAGMA foreign_key_list(orders)"),
    Case("pragma-user-version-read", "PRAGMA user_version"),
    Case("pragma-journal-mode-read", "PRAGMA journal_mode"),
    Case("pragma-integrity-check", "PRAGMA integrity_check"),
    Case("pg-show", "SHOW search_path", dialect="postgres"),
    Case("mysql-show-tables", "SHOW TABLES", dialect="mysql"),
    Case("mysql-show-columns", "SHOW COLUMNS FROM customers LIKE 'na%'", dialect="mysql"),
    Case("mysql-describe", "DESCRIBE customers", dialect="mysql"),
    Case("pg-explain-options", "EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM orders", dialect="postgres"),
    Case("mysql-explain-format", "EXPLAIN FORMAT=JSON SELECT * FROM orders", dialect="mysql"),
    # Dialect-aware tokenizing: each of these is a single statement for *this* engine.
    Case("pg-nested-comment", "SELECT 1 /* outer /* inner; */ DROP TABLE orders; */", dialect="postgres"),
    Case("pg-double-dash-comment", "SELECT 1--1;DROP TABLE victim", dialect="postgres"),
    Case("sqlite-double-dash-comment", "SELECT 1--1;DROP TABLE victim"),
    Case("mysql-backslash-escape", "SELECT 'a\\'; DROP TABLE orders; -- '", dialect="mysql"),
    Case("pg-dollar-quoted", "SELECT $$; DROP TABLE orders$$", dialect="postgres"),
    Case("tsql-select-top", "SELECT TOP 5 name FROM customers", dialect="tsql"),
)

REJECTED: tuple[Case, ...] = (
    # writes
    Case("insert", "INSERT INTO customers (name, country, deleted) VALUES ('x', 'Peru', 0)", "write"),
    Case("insert-select", "INSERT INTO orders SELECT * FROM orders", "write"),
    Case("update", "UPDATE orders SET amount = 0", "write"),
    Case("delete", "DELETE FROM orders", "write"),
    Case("delete-mixed-case", "DeLeTe FrOm orders", "write"),
    Case("delete-leading-comment", "/* harmless */ DELETE FROM orders WHERE 1 = 1", "write"),
    Case("replace-into", "REPLACE INTO customers (id, name, country, deleted) VALUES (1, 'x', 'Peru', 0)", "write"),
    Case(
        "insert-or-replace",
        "INSERT OR REPLACE INTO customers (id, name, country, deleted) VALUES (1, 'x', 'Peru', 0)",
        "write",
    ),
    Case(
        "upsert",
        "INSERT INTO customers (id, name, country, deleted) VALUES (1, 'x', 'Peru', 0) "
        "ON CONFLICT (id) DO UPDATE SET name = excluded.name",
        "write",
    ),
    Case("schema-table-update", "UPDATE sqlite_master SET sql = 'x' WHERE name = 'orders'", "write"),
    Case(
        "pg-merge",
        "MERGE INTO orders o USING customers c ON o.customer_id = c.id WHEN MATCHED THEN DELETE",
        "write",
        "postgres",
    ),
    # DDL and privileges
    Case("create-table", "CREATE TABLE evil (a INT)", "ddl"),
    Case("create-table-as", "CREATE TABLE copy AS SELECT * FROM orders", "ddl"),
    Case("create-temp-table", "CREATE TEMP TABLE scratch (a INT)", "ddl"),
    Case("create-index", "CREATE INDEX ix_amount ON orders (amount)", "ddl"),
    Case("create-view", "CREATE VIEW v AS SELECT * FROM orders", "ddl"),
    # sqlglot's tokenizer splits a trigger body at its ';' (SQLite does not): rejected either way.
    Case(
        "create-trigger",
        "CREATE TRIGGER t AFTER INSERT ON orders BEGIN DELETE FROM customers; END",
        "multiple_statements",
    ),
    Case("drop-table", "DROP TABLE orders", "ddl"),
    Case("drop-after-empty-comment", "/**/DROP TABLE orders", "ddl"),
    Case("drop-index", "DROP INDEX ix_orders_customer_id", "ddl"),
    Case("alter-add-column", "ALTER TABLE orders ADD COLUMN note TEXT", "ddl"),
    Case("alter-rename", "ALTER TABLE orders RENAME TO orders_old", "ddl"),
    Case("pg-truncate", "TRUNCATE orders", "ddl", "postgres"),
    Case("pg-grant", "GRANT ALL ON orders TO public", "ddl", "postgres"),
    Case("pg-revoke", "REVOKE SELECT ON orders FROM public", "ddl", "postgres"),
    Case("pg-comment-on", "COMMENT ON TABLE orders IS 'x'", "ddl", "postgres"),
    # other databases, files and maintenance
    Case("attach", "ATTACH DATABASE 'evil.db' AS evil", "attach"),
    Case("attach-uri", "ATTACH 'file:evil.db?mode=rwc' AS evil", "attach"),
    Case("detach", "DETACH DATABASE main", "attach"),
    Case("vacuum", "VACUUM", "maintenance"),
    Case("vacuum-into", "VACUUM INTO 'backup.db'", "maintenance"),
    Case("analyze", "ANALYZE", "maintenance"),
    Case("reindex", "REINDEX", "maintenance"),
    Case("pg-copy-to-file", "COPY orders TO '/tmp/orders.csv'", "copy", "postgres"),
    Case("pg-copy-program", "COPY (SELECT 1) TO PROGRAM 'touch /tmp/pwned'", "copy", "postgres"),
    # PRAGMAs that write or have side effects
    Case("pragma-set-journal-mode", "PRAGMA journal_mode = WAL", "pragma"),
    Case("pragma-query-only-off", "PRAGMA query_only = OFF", "pragma"),
    Case("pragma-set-user-version", "PRAGMA user_version = 7", "pragma"),
    Case("pragma-schema-qualified-set", "PRAGMA main.user_version=1", "pragma"),
    Case("pragma-set-call-form", "PRAGMA journal_mode(DELETE)", "pragma"),
    Case("pragma-writable-schema", "PRAGMA writable_schema = ON", "pragma"),
    Case("pragma-optimize", "PRAGMA optimize", "pragma"),
    Case("pragma-wal-checkpoint", "PRAGMA wal_checkpoint(TRUNCATE)", "pragma"),
    Case("pragma-incremental-vacuum", "PRAGMA incremental_vacuum", "pragma"),
    Case("pragma-on-postgres", "PRAGMA table_info(orders)", "pragma", "postgres"),
    # SELECT ... INTO, data-modifying CTEs, locking reads
    Case("pg-select-into", "SELECT * INTO backup FROM orders", "select_into", "postgres"),
    Case("sqlite-select-into", "SELECT * INTO backup FROM orders", "select_into"),
    Case("mysql-select-into-variable", "SELECT amount INTO @a FROM orders LIMIT 1", "select_into", "mysql"),
    Case("mysql-select-into-outfile", "SELECT * FROM orders INTO OUTFILE '/tmp/o.csv'", "unparseable", "mysql"),
    Case(
        "pg-cte-delete", "WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone", "write", "postgres"
    ),
    Case(
        "pg-cte-update", "WITH up AS (UPDATE orders SET amount = 0 RETURNING id) SELECT * FROM up", "write", "postgres"
    ),
    Case(
        "pg-cte-insert",
        "WITH ins AS (INSERT INTO orders (id) VALUES (999) RETURNING id) SELECT * FROM ins",
        "write",
        "postgres",
    ),
    Case("pg-for-update", "SELECT * FROM orders WHERE id = 1 FOR UPDATE", "locking_read", "postgres"),
    Case("pg-for-share", "SELECT * FROM orders FOR SHARE", "locking_read", "postgres"),
    Case("pg-for-no-key-update", "SELECT * FROM orders FOR NO KEY UPDATE", "locking_read", "postgres"),
    Case("mysql-lock-in-share-mode", "SELECT * FROM orders LOCK IN SHARE MODE", "locking_read", "mysql"),
    Case("sqlite-for-update", "SELECT * FROM orders FOR UPDATE", "locking_read"),
    # side-effecting functions, anywhere in the tree
    Case("fn-load-extension", "SELECT load_extension('/tmp/evil.so')", "side_effect_function"),
    Case("fn-load-extension-upper", "SELECT LOAD_EXTENSION('/tmp/evil.so')", "side_effect_function"),
    Case("fn-writefile", "SELECT writefile('out.txt', name) FROM customers", "side_effect_function"),
    Case("fn-readfile", "SELECT readfile('/etc/passwd')", "side_effect_function"),
    Case("fn-fts3-tokenizer", "SELECT fts3_tokenizer('simple')", "side_effect_function"),
    Case(
        "fn-in-where-subquery", "SELECT id FROM orders WHERE id IN (SELECT load_extension('x'))", "side_effect_function"
    ),
    Case("fn-in-cte", "WITH x AS (SELECT writefile('f', 'y') AS w) SELECT * FROM x", "side_effect_function"),
    Case("fn-pg-sleep", "SELECT pg_sleep(10)", "side_effect_function", "postgres"),
    Case("fn-pg-sleep-qualified", "SELECT pg_catalog.pg_sleep(10)", "side_effect_function", "postgres"),
    Case("fn-pg-read-file", "SELECT pg_read_file('/etc/passwd')", "side_effect_function", "postgres"),
    Case("fn-pg-read-binary-file", "SELECT pg_read_binary_file('/etc/passwd')", "side_effect_function", "postgres"),
    Case("fn-pg-ls-dir", "SELECT * FROM pg_ls_dir('.')", "side_effect_function", "postgres"),
    Case("fn-lo-import", "SELECT lo_import('/etc/passwd')", "side_effect_function", "postgres"),
    Case("fn-lo-export", "SELECT lo_export(1234, '/tmp/x')", "side_effect_function", "postgres"),
    Case("fn-setval", "SELECT setval('orders_id_seq', 1)", "side_effect_function", "postgres"),
    Case("fn-nextval", "SELECT nextval('orders_id_seq')", "side_effect_function", "postgres"),
    Case("fn-dblink", "SELECT * FROM dblink('host=evil', 'SELECT 1') AS t(a INT)", "side_effect_function", "postgres"),
    Case("fn-dblink-exec", "SELECT dblink_exec('host=evil', 'DROP TABLE orders')", "side_effect_function", "postgres"),
    Case(
        "fn-pg-terminate-backend",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
        "side_effect_function",
        "postgres",
    ),
    Case("fn-pg-cancel-backend", "SELECT pg_cancel_backend(42)", "side_effect_function", "postgres"),
    Case("fn-set-config", "SELECT set_config('statement_timeout', '0', false)", "side_effect_function", "postgres"),
    Case(
        "fn-query-to-xml",
        "SELECT query_to_xml('DELETE FROM orders RETURNING 1', true, true, '')",
        "side_effect_function",
        "postgres",
    ),
    Case("fn-mysql-load-file", "SELECT LOAD_FILE('/etc/passwd')", "side_effect_function", "mysql"),
    Case("fn-mysql-sleep", "SELECT * FROM orders WHERE sleep(5) = 0", "side_effect_function", "mysql"),
    Case("fn-mysql-benchmark", "SELECT BENCHMARK(100000000, MD5('x'))", "side_effect_function", "mysql"),
    Case("fn-mysql-get-lock", "SELECT GET_LOCK('x', 10)", "side_effect_function", "mysql"),
    Case("fn-tsql-xp-cmdshell", "SELECT xp_cmdshell('dir')", "side_effect_function", "tsql"),
    Case("tsql-next-value-for", "SELECT NEXT VALUE FOR orders_seq", "side_effect_function", "tsql"),
    # transaction and session control, procedures
    Case("begin", "BEGIN", "transaction"),
    Case("begin-immediate", "BEGIN IMMEDIATE TRANSACTION", "transaction"),
    Case("commit", "COMMIT", "transaction"),
    Case("rollback", "ROLLBACK", "transaction"),
    Case("savepoint", "SAVEPOINT sp1", "transaction"),
    Case("release", "RELEASE sp1", "transaction"),
    Case("mysql-start-transaction", "START TRANSACTION", "transaction", "mysql"),
    Case("pg-set", "SET search_path = evil", "session", "postgres"),
    Case("pg-reset", "RESET ALL", "session", "postgres"),
    Case("pg-lock-table", "LOCK TABLE orders IN ACCESS EXCLUSIVE MODE", "session", "postgres"),
    Case("mysql-use", "USE other_db", "session", "mysql"),
    Case("mysql-call", "CALL purge_orders()", "call", "mysql"),
    Case("mysql-do-sleep", "DO SLEEP(5)", "call", "mysql"),
    Case("tsql-exec", "EXEC xp_cmdshell 'dir'", "call", "tsql"),
    Case("pg-execute-prepared", "EXECUTE wipe_orders", "call", "postgres"),
    # more than one statement, including semicolons that comments or strings hide from naive splitting
    Case("select-then-drop", "SELECT 1; DROP TABLE orders", "multiple_statements"),
    Case("select-comment-newline-drop", "SELECT 1;--\nDROP TABLE x", "multiple_statements"),
    Case("two-selects", "SELECT 1; SELECT 2", "multiple_statements"),
    Case("select-newlines-delete", "SELECT 1;\n\nDELETE FROM orders", "multiple_statements"),
    Case("string-looks-like-comment", "SELECT '--'; DROP TABLE orders", "multiple_statements"),
    Case("comment-before-semicolon", "SELECT 1 /* */; DROP TABLE orders", "multiple_statements"),
    Case("string-semicolon-then-drop", "SELECT ';'; DROP TABLE orders", "multiple_statements"),
    Case("comment-hides-newline", "SELECT 1 -- note\n; DELETE FROM orders", "multiple_statements"),
    # In SQLite '\' is a whole string, so the ';' after it ends the statement.
    Case("sqlite-backslash-trick", "SELECT '\\'; DROP TABLE orders; --'", "multiple_statements"),
    # SQLite block comments do not nest: the first */ closes it.
    Case("sqlite-nested-comment-trick", "SELECT 1 /* /* */ ; DROP TABLE orders; -- */", "multiple_statements"),
    # MySQL needs a space after --: '--1' is minus minus one.
    Case("mysql-double-dash-no-space", "SELECT 1--1;DROP TABLE victim", "multiple_statements", "mysql"),
    Case("explain-then-drop", "EXPLAIN SELECT 1; DROP TABLE orders", "multiple_statements"),
    Case("pragma-then-drop", "PRAGMA table_info(orders); DROP TABLE orders", "multiple_statements"),
    Case("show-then-drop", "SHOW TABLES; DROP TABLE orders", "multiple_statements", "mysql"),
    Case("mysql-executable-comment", "SELECT 1 /*!50000 , SLEEP(10) */", "executable_comment", "mysql"),
    # EXPLAIN only of reads
    Case("explain-delete", "EXPLAIN DELETE FROM orders", "write"),
    Case("explain-query-plan-insert", "EXPLAIN QUERY PLAN INSERT INTO orders SELECT * FROM orders", "write"),
    Case("pg-explain-analyze-delete", "EXPLAIN ANALYZE DELETE FROM orders", "write", "postgres"),
    Case("pg-explain-options-delete", "EXPLAIN (ANALYZE off) DELETE FROM orders", "write", "postgres"),
    Case("explain-pragma", "EXPLAIN PRAGMA table_info(orders)", "explain"),
    # empty input and text that is not SQL
    Case("empty", "", "empty"),
    Case("whitespace-only", "   \n\t  ", "empty"),
    Case("comment-only", "-- just a comment", "empty"),
    Case("semicolons-only", ";;", "empty"),
    Case("prose-question", "How many customers are there?", "unparseable"),
    Case("prose-two-words", "hello world", "unrecognised"),
    Case("prose-instruction", "please drop the orders table", "unparseable"),
    Case("bare-identifier", "orders", "unrecognised"),
    Case("unterminated-string", "SELECT 'oops", "unparseable"),
    Case("unknown-dialect", "SELECT 1", "dialect", "no-such-dialect"),
)


def _ids(cases):
    return [c.id for c in cases]


def test_case_ids_are_unique():
    ids = _ids(ALLOWED + REJECTED)
    assert len(ids) == len(set(ids)) and len(ids) >= 80


@pytest.mark.parametrize("case", ALLOWED, ids=_ids(ALLOWED))
def test_reads_are_allowed(case: Case):
    verdict = validate_readonly_sql(case.sql, case.dialect)
    assert (verdict.allowed, verdict.code) == (True, "ok"), verdict.reason
    assert verdict.reason.startswith("read-only ")


@pytest.mark.parametrize("case", REJECTED, ids=_ids(REJECTED))
def test_non_reads_are_rejected_with_their_code(case: Case):
    verdict = validate_readonly_sql(case.sql, case.dialect)
    assert (verdict.allowed, verdict.code) == (False, case.code), verdict.reason
    assert len(verdict.reason) > 30 and verdict.reason.endswith("."), "a rejection reads as a sentence"


@pytest.mark.parametrize(
    "case",
    [c for c in ALLOWED + REJECTED if c.dialect == "sqlite"],
    ids=_ids([c for c in ALLOWED + REJECTED if c.dialect == "sqlite"]),
)
def test_compat_bool_agrees_with_verdict(case: Case):
    assert _validate_readonly_sql(case.sql) is validate_readonly_sql(case.sql).allowed


def test_issue_examples():
    assert validate_readonly_sql("SELECT REPLACE(name, 'a', 'b') FROM customers").allowed
    assert validate_readonly_sql("SELECT 'please delete me'").allowed
    assert validate_readonly_sql("SELECT 1; DROP TABLE orders") == GuardVerdict(
        False, validate_readonly_sql("SELECT 1; DROP TABLE orders").reason, "multiple_statements"
    )
    assert not _validate_readonly_sql("SELECT 1; DROP TABLE orders")


@pytest.mark.parametrize("value", [None, 42, b"SELECT 1"], ids=["none", "int", "bytes"])
def test_non_string_input_is_rejected_not_raised(value):
    verdict = validate_readonly_sql(value)  # type: ignore[arg-type]
    assert (verdict.allowed, verdict.code) == (False, "empty")


def test_an_internal_crash_fails_closed(monkeypatch):
    def explode(*_args, **_kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(sql_guard, "_statement", explode)
    verdict = validate_readonly_sql("SELECT 1")
    assert (verdict.allowed, verdict.code) == (False, "unparseable")
    assert "RecursionError" in verdict.reason


def test_every_code_used_is_documented():
    used = {c.code for c in ALLOWED + REJECTED}
    assert used <= set(GUARD_CODES)
    assert all(GUARD_CODES.values())
