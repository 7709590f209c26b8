"""The guard's first layer against reads that reach outside the database: files, network, settings, sessions.

Every name in every engine's table (``services/readonly/guard_functions.py``) is declined on its own
dialect, wherever it sits in the tree and however it is spelt, with a reason naming it and why; the
names are declined on the other dialects too. Prefixes and engine-only names are declined on their
engine, and the functions they resemble elsewhere (SQLite's ``glob``) stay allowed. Tables DuckDB
would read as files and PostgreSQL's catalogs of credentials are declined; ordinary tables are not.
What each engine's second layer does with the same SQL is ``test_guard_layers.py``.
"""

from __future__ import annotations

import pytest

from services.readonly import guard_functions as gf
from services.readonly.guard import validate_readonly_sql
from services.readonly.guard_tree import MAX_SHOWN_NAME

DIALECT_OF = {
    "sqlite": gf.SQLITE,
    "postgres": gf.POSTGRES,
    "duckdb": gf.DUCKDB,
    "mysql": gf.MYSQL,
    "tsql": gf.SQLSERVER,
    "oracle": gf.ORACLE,
}
QUALIFIER = {"sqlite": "main", "postgres": "pg_catalog", "duckdb": "main", "mysql": "mysql", "tsql": "dbo"}
OWN = [(dialect, name) for dialect, table in DIALECT_OF.items() for name in table]

# Where a call can hide: each template holds {f}, the call.
PLACES = {
    "select-list": "SELECT {f}",
    "from": "SELECT * FROM {f} AS t",
    "where-subquery": "SELECT 1 AS x WHERE 1 IN (SELECT 1 FROM (SELECT {f} AS y) AS s)",
    "cte": "WITH c AS (SELECT {f} AS y) SELECT * FROM c",
    "union": "SELECT 1 AS y UNION ALL SELECT {f}",
    "case": "SELECT CASE WHEN 1 = 1 THEN {f} END AS y",
}


def _declined(sql: str, dialect: str, code: str = "side_effect_function") -> str:
    verdict = validate_readonly_sql(sql, dialect)
    assert (verdict.allowed, verdict.code) == (False, code), f"{dialect}: {sql}: {verdict.reason}"
    return verdict.reason


@pytest.mark.parametrize(("dialect", "name"), OWN, ids=[f"{d}-{n}" for d, n in OWN])
def test_every_declined_function_is_declined_on_its_engine_with_its_reason(dialect, name):
    if "." in name:  # Oracle's packages: the call is qualified by its package
        reason = _declined(f"SELECT {name}('x') FROM dual", dialect)
    else:
        reason = _declined(f"SELECT {name}('x')", dialect)
        _declined(f"SELECT {name.upper()}('x')", dialect)
        if dialect in QUALIFIER:
            _declined(f"SELECT {QUALIFIER[dialect]}.{name}('x')", dialect)
    assert f"{name}()" in reason and DIALECT_OF[dialect][name] in reason


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(
    ("dialect", "call"),
    [
        ("duckdb", "read_text('/etc/passwd')"),
        ("duckdb", "getenv('HOME')"),
        ("postgres", "pg_read_file('/etc/passwd')"),
        ("postgres", "pg_terminate_backend(42)"),
        ("sqlite", "load_extension('/tmp/x.so')"),
    ],
)
def test_a_declined_call_is_found_anywhere_in_the_tree(place, dialect, call):
    _declined(PLACES[place].format(f=call), dialect)


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("duckdb", "SELECT * FROM orders o, LATERAL (SELECT * FROM read_csv(o.path)) r"),
        ("duckdb", "SELECT '/etc/passwd'.read_text()"),  # DuckDB's method-call syntax
        ("duckdb", "SELECT * FROM \"read_text\"('/etc/passwd')"),
        ("duckdb", "SELECT * FROM system.main.read_csv('/etc/passwd')"),
        ("postgres", "SELECT \"pg_read_file\"('/etc/passwd')"),
        ("postgres", "SELECT o.id FROM orders o, LATERAL (SELECT pg_ls_dir('.')) d"),
        ("postgres", "EXPLAIN SELECT pg_read_file('/etc/passwd')"),
        ("oracle", "SELECT sys.dbms_lock.sleep(5) FROM dual"),
    ],
)
def test_quoting_qualifying_lateral_and_explain_hide_nothing(dialect, sql):
    _declined(sql, dialect)


@pytest.mark.parametrize("name", sorted(n for n in gf.EVERY_DIALECT if "." not in n))  # Oracle's are qualified
@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "duckdb"])
def test_every_engines_names_are_declined_on_every_dialect(dialect, name):
    _declined(f"SELECT {name}('x')", dialect)


DUCKDB_READERS = (
    "read_text read_blob read_csv read_csv_auto read_json read_json_auto read_json_objects read_ndjson "
    "read_ndjson_auto read_ndjson_objects read_parquet read_duckdb read_xlsx parquet_scan parquet_metadata "
    "parquet_schema parquet_file_metadata parquet_kv_metadata iceberg_scan iceberg_metadata delta_scan "
    "sqlite_scan sqlite_attach st_read st_read_meta glob sniff_csv"
).split()
DUCKDB_REACH = "postgres_scan postgres_query mysql_query http_get arrow_scan pandas_scan python_map_function".split()
POSTGRES_PREFIXED = (
    "pg_ls_logicalmapdir pg_ls_replslotdir pg_read_file pg_file_sync lo_get dblink_get_result "
    "pg_advisory_unlock pg_try_advisory_lock pg_stat_reset_slru pg_replication_origin_drop "
    "pg_create_logical_replication_slot"
).split()


@pytest.mark.parametrize("name", DUCKDB_READERS)
def test_duckdb_file_readers_are_declined_as_reading_files(name):
    assert gf.FILES in _declined(f"SELECT * FROM {name}('/etc/passwd')", "duckdb")


@pytest.mark.parametrize("name", DUCKDB_REACH)
def test_duckdb_network_and_process_readers_are_declined(name):
    reason = _declined(f"SELECT * FROM {name}('x')", "duckdb")
    assert gf.NETWORK in reason or gf.PROCESS in reason


@pytest.mark.parametrize("name", POSTGRES_PREFIXED)
def test_postgres_families_are_declined_by_prefix(name):
    _declined(f"SELECT {name}('x')", "postgres")


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("sqlite", "SELECT glob('a*', name) FROM customers"),  # SQLite's pattern match, not DuckDB's file lister
        ("sqlite", "SELECT name FROM customers WHERE name GLOB 'A*'"),
        ("duckdb", "SELECT name FROM customers WHERE name GLOB 'A*'"),
        ("postgres", "SELECT read_text FROM notes"),  # a column, not a call
        ("sqlite", "SELECT read_text(body) FROM notes"),  # DuckDB's prefixes are DuckDB's only
        ("duckdb", "SELECT current_setting('threads')"),  # reading a setting of the executor's own connection
        ("postgres", "SELECT current_setting('search_path')"),
        ("duckdb", "SELECT * FROM duckdb_settings()"),
        ("duckdb", "SELECT * FROM pragma_table_info('orders')"),
        ("duckdb", "SELECT * FROM duckdb_tables()"),
        ("duckdb", "SELECT * FROM range(10) r, generate_series(1, 3) g"),
        ("duckdb", "SELECT url_encode('a b'), getvariable('x')"),
        ("postgres", "SELECT pg_size_pretty(1024::bigint), pg_typeof(1), lower('A')"),
        ("postgres", "SELECT rolname FROM pg_roles"),
        ("postgres", "SELECT name, setting FROM pg_settings"),
    ],
)
def test_ordinary_functions_and_catalogs_stay_allowed(dialect, sql):
    verdict = validate_readonly_sql(sql, dialect)
    assert verdict.allowed, verdict.reason


DUCKDB_FILES_AS_TABLES = {
    "string-path": "SELECT * FROM '/etc/passwd'",
    "quoted-file": 'SELECT * FROM "data.csv"',
    "unquoted-file": "SELECT * FROM data.csv",
    "quoted-parts": 'SELECT * FROM "data"."csv"',
    "relative": "SELECT * FROM './data.csv'",
    "home": "SELECT * FROM '~/notes.json'",
    "glob-pattern": "SELECT * FROM 'logs/*.parquet'",
    "compressed": "SELECT * FROM data.csv.gz",
    "three-parts": "SELECT * FROM memory.data.csv",
    "from-first": "FROM 'data.csv'",
    "join": "SELECT * FROM orders JOIN 'data.csv' AS d ON true",
    "subquery": "SELECT * FROM (FROM data.parquet)",
    "cte": "WITH d AS (SELECT * FROM 'data.json') SELECT * FROM d",
    "union": "SELECT 1 AS x UNION ALL SELECT * FROM 'one.csv'",
    "describe": "DESCRIBE 'data.csv'",
    "describe-unquoted": "DESCRIBE data.csv",
    "show": "SHOW data.csv",
    "show-string": "SHOW 'data.csv'",
}


@pytest.mark.parametrize("sql", DUCKDB_FILES_AS_TABLES.values(), ids=DUCKDB_FILES_AS_TABLES)
def test_duckdb_files_named_as_tables_are_declined(sql):
    assert gf.FILES in _declined(sql, "duckdb", code="restricted_table")


@pytest.mark.parametrize("url", ["http://example.com/x.csv", "https://example.com/x", "s3://bucket/key.parquet"])
def test_duckdb_urls_named_as_tables_are_declined_as_network(url):
    assert gf.NETWORK in _declined(f"SELECT * FROM '{url}'", "duckdb", code="restricted_table")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM orders",
        'SELECT * FROM "orders"',
        "SELECT * FROM main.orders",
        "SELECT * FROM memory.main.orders",
        "SELECT csv, json FROM orders",
        "SELECT * FROM csv",  # a table named like an extension, unqualified: DuckDB reads the table
        "SHOW TABLES",
        "SHOW ALL TABLES",
        "SHOW main.orders",
        "DESCRIBE orders",
    ],
)
def test_duckdb_ordinary_tables_stay_allowed(sql):
    verdict = validate_readonly_sql(sql, "duckdb")
    assert verdict.allowed, verdict.reason


@pytest.mark.parametrize("table", sorted(gf.RESTRICTED_TABLES))
@pytest.mark.parametrize(
    "template",
    [
        "SELECT * FROM {t}",
        "SELECT * FROM pg_catalog.{t}",
        'SELECT * FROM "{t}"',
        "TABLE {t}",
        "SELECT * FROM ONLY {t}",
        "SELECT o.id FROM orders o JOIN {t} s ON true",
        "SELECT (SELECT count(*) FROM {t}) AS n",
        "WITH s AS (SELECT * FROM {t}) SELECT * FROM s",
    ],
)
def test_postgres_catalogs_of_credentials_and_server_files_are_declined(table, template):
    reason = _declined(template.format(t=table), "postgres", code="restricted_table")
    assert table in reason and gf.RESTRICTED_TABLES[table] in reason


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "mysql"])
def test_the_catalog_names_are_declined_on_every_dialect(dialect):
    _declined("SELECT * FROM pg_shadow", dialect, code="restricted_table")


def test_a_long_declined_name_is_cut_in_the_reason():
    name = "read_" + "x" * 5000
    reason = _declined(f"SELECT * FROM {name}('y')", "duckdb")
    assert len(reason) < MAX_SHOWN_NAME + 200 and "..." in reason
    reason = _declined("SELECT * FROM '/" + "y" * 5000 + "'", "duckdb", code="restricted_table")
    assert len(reason) < MAX_SHOWN_NAME + 200


def test_the_tables_hold_no_name_twice_with_different_reasons():
    seen: dict[str, str] = {}
    for table in DIALECT_OF.values():
        for name, why in table.items():
            assert seen.setdefault(name, why) == why, name
            assert name == name.lower() and why in {
                gf.FILES,
                gf.NETWORK,
                gf.CONFIG,
                gf.ADMIN,
                gf.SQL_TEXT,
                gf.STALL,
                gf.LOCKS,
                gf.SEQUENCES,
                gf.CREDENTIALS,
                gf.PROCESS,
                gf.PROGRAMS,
                gf.CODE,
            }
