"""What the guard declines beyond writes: the functions and tables that reach outside the database.

To the engine these are reads: a read-only transaction (PostgreSQL) or a read-only file (DuckDB) lets
a query read a file on the server, reach the network, change a setting or end another session. Each
engine has a second layer of its own for them (DuckDB: external access off, configuration locked;
PostgreSQL: a role that is no superuser and holds no ``pg_read_server_files``/``pg_signal_backend``;
SQLite: no extensions, an authorizer); these tables are the first, so each engine has two.

Each name maps to the reason the guard gives, one of the families below. How they apply:

* a name in any engine's table is declined on every dialect: a read needs none of them, and one
  engine often implements another's (DuckDB has ``pg_sleep``);
* a name that is an ordinary function on other engines (DuckDB's file lister ``glob``; SQLite's
  ``glob`` matches a pattern) and a prefix (``read_`` on DuckDB, ``pg_ls_`` on PostgreSQL) are
  declined on their engine only;
* the guard matches the lower-cased name, however it is quoted or qualified
  (``pg_catalog.pg_read_file``, ``"PG_READ_FILE"``), anywhere in the tree.
"""

from __future__ import annotations

from collections.abc import Sequence

FILES = "reads or writes files on the database server"
NETWORK = "reaches other hosts over the network"
CONFIG = "changes configuration or session state"
ADMIN = "administers sessions or the server"
SQL_TEXT = "runs SQL given as a string, out of the guard's sight"
STALL = "stalls the server (it sleeps or burns CPU)"
LOCKS = "takes locks that outlive the statement"
SEQUENCES = "changes a sequence"
CREDENTIALS = "exposes credentials or the server's access rules"
PROCESS = "reads or writes the memory or environment of the database process"
PROGRAMS = "runs programs on the database server"
CODE = "loads code into the database engine"

SQLITE: dict[str, str] = {
    "load_extension": CODE,
    "readfile": FILES,  # fileio extension and the sqlite3 shell
    "writefile": FILES,
    "fsdir": FILES,
    "zipfile": FILES,
    "edit": PROGRAMS,  # the shell's edit() starts an editor
    "fts3_tokenizer": PROCESS,  # takes a pointer
}

POSTGRES: dict[str, str] = {
    **dict.fromkeys(("pg_sleep", "pg_sleep_for", "pg_sleep_until"), STALL),
    **dict.fromkeys(
        (
            "pg_read_file",
            "pg_read_binary_file",
            "pg_ls_dir",
            "pg_stat_file",
            "pg_ls_logdir",
            "pg_ls_waldir",
            "pg_ls_tmpdir",
            "pg_ls_archive_statusdir",
            "pg_file_write",
            "pg_file_rename",
            "pg_file_unlink",
            "pg_logdir_ls",
            "lo_import",
            "lo_export",
            "lo_create",
            "lo_creat",
            "lo_unlink",
            "lo_put",
            "lo_from_bytea",
            "lo_truncate",
            "lo_truncate64",
            "lo_open",
            "lowrite",
            "loread",
            "lo_lseek",
            "lo_lseek64",
            "lo_close",
            "lo_tell",
            "lo_tell64",
            "lo_get",
        ),
        FILES,
    ),
    **dict.fromkeys(("pg_hba_file_rules", "pg_ident_file_mappings", "pg_show_all_file_settings"), CREDENTIALS),
    **dict.fromkeys(("setval", "nextval"), SEQUENCES),
    **dict.fromkeys(
        (
            "dblink",
            "dblink_exec",
            "dblink_connect",
            "dblink_connect_u",
            "dblink_send_query",
            "dblink_open",
            "dblink_fetch",
        ),
        NETWORK,
    ),
    **dict.fromkeys(
        (
            "pg_terminate_backend",
            "pg_cancel_backend",
            "pg_reload_conf",
            "pg_rotate_logfile",
            "pg_promote",
            "pg_log_backend_memory_contexts",
            "pg_switch_wal",
            "pg_create_restore_point",
            "pg_start_backup",
            "pg_stop_backup",
            "pg_backup_start",
            "pg_backup_stop",
            "pg_create_physical_replication_slot",
            "pg_create_logical_replication_slot",
            "pg_drop_replication_slot",
            "pg_logical_emit_message",
            "pg_replication_origin_create",
            "pg_stat_reset",
            "pg_stat_reset_shared",
            "pg_stat_reset_single_table_counters",
            "pg_notify",
        ),
        ADMIN,
    ),
    "set_config": CONFIG,
    **dict.fromkeys(
        (
            "pg_advisory_lock",
            "pg_advisory_lock_shared",
            "pg_advisory_xact_lock",
            "pg_advisory_xact_lock_shared",
            "pg_try_advisory_lock",
            "pg_try_advisory_lock_shared",
            "pg_try_advisory_xact_lock",
            "pg_try_advisory_xact_lock_shared",
        ),
        LOCKS,
    ),
    **dict.fromkeys(
        (
            "query_to_xml",
            "query_to_xml_and_xmlschema",
            "query_to_xmlschema",
            "cursor_to_xml",
            "table_to_xml",
            "database_to_xml",
        ),
        SQL_TEXT,
    ),
}

DUCKDB: dict[str, str] = {
    "sniff_csv": FILES,
    "checkpoint": ADMIN,
    "force_checkpoint": ADMIN,
    "write_log": ADMIN,
    "truncate_duckdb_logs": ADMIN,
    **dict.fromkeys(
        (
            "register_external_resource",
            "register_external_resource_type",
            "create_external_resource",
            "destroy_external_resource",
            "deregister_external_resource",
        ),
        ADMIN,
    ),
    **dict.fromkeys(
        (
            "enable_logging",
            "disable_logging",
            "enable_profiling",
            "disable_profiling",
            "add_grammar_extension",
            "remove_grammar_extension",
            "setseed",
        ),
        CONFIG,
    ),
    **dict.fromkeys(("query", "query_table", "json_execute_serialized_sql"), SQL_TEXT),
    **dict.fromkeys(("duckdb_secrets", "which_secret", "load_aws_credentials"), CREDENTIALS),
    "getenv": PROCESS,
    "sleep_ms": STALL,
}

MYSQL: dict[str, str] = {
    **dict.fromkeys(("sleep", "benchmark"), STALL),
    **dict.fromkeys(("get_lock", "release_lock", "release_all_locks"), LOCKS),
    "load_file": FILES,
    **dict.fromkeys(("master_pos_wait", "source_pos_wait", "wait_for_executed_gtid_set"), STALL),
    **dict.fromkeys(("sys_exec", "sys_eval"), PROGRAMS),  # lib_mysqludf_sys
}

SQLSERVER: dict[str, str] = {
    "xp_cmdshell": PROGRAMS,
    **dict.fromkeys(("xp_dirtree", "xp_fileexist"), FILES),
    **dict.fromkeys(("xp_regread", "xp_regwrite"), ADMIN),
    **dict.fromkeys(("sp_oacreate", "sp_oamethod"), PROGRAMS),
    "sp_executesql": SQL_TEXT,
    **dict.fromkeys(("openrowset", "opendatasource", "openquery"), NETWORK),
}

ORACLE: dict[str, str] = {
    "dbms_pipe.receive_message": STALL,
    "dbms_lock.sleep": STALL,
    **dict.fromkeys(("utl_http.request", "utl_inaddr.get_host_address"), NETWORK),
}

SPARK: dict[str, str] = {
    **dict.fromkeys(("reflect", "java_method", "try_reflect"), PROGRAMS),  # any static Java method, by name
    **dict.fromkeys(("input_file_name", "input_file_block_start", "input_file_block_length"), FILES),
    "read_files": FILES,  # Databricks' file reader
}

EVERY_DIALECT: dict[str, str] = {**SQLITE, **POSTGRES, **DUCKDB, **MYSQL, **SQLSERVER, **ORACLE, **SPARK}
"""Function name -> reason: declined on every dialect."""

ENGINE_ONLY: dict[str, dict[str, str]] = {
    "duckdb": {"glob": FILES},
}
"""Engine -> function names declined there only, being ordinary functions on other engines."""

PREFIXES: dict[str, tuple[tuple[str, str], ...]] = {
    "duckdb": (
        ("read_", FILES),  # read_text, read_blob, read_csv(_auto), read_json*, read_ndjson*, read_parquet, ...
        ("parquet_", FILES),
        ("iceberg_", FILES),
        ("delta_", FILES),
        ("ducklake_", FILES),
        ("sqlite_", FILES),  # sqlite_scan, sqlite_attach
        ("st_read", FILES),  # spatial: st_read, st_read_meta, st_readosm, st_readshp
        ("postgres_", NETWORK),  # postgres_scan, postgres_query, postgres_execute
        ("mysql_", NETWORK),
        ("http_", NETWORK),
        ("arrow_", PROCESS),  # arrow_scan takes pointers into the process
        ("pandas_", PROCESS),
        ("python_", PROCESS),
    ),
    "postgres": (
        ("pg_read_", FILES),
        ("pg_ls_", FILES),
        ("pg_file_", FILES),
        ("lo_", FILES),
        ("dblink", NETWORK),
        ("pg_advisory_", LOCKS),
        ("pg_try_advisory_", LOCKS),
        ("pg_stat_reset", ADMIN),
        ("pg_replication_", ADMIN),
        ("pg_logical_", ADMIN),
        ("pg_create_", ADMIN),
        ("pg_drop_replication", ADMIN),
    ),
}
"""Engine -> (prefix, reason): a function whose name starts with the prefix is declined on that engine."""

RESTRICTED_TABLES: dict[str, str] = {
    "pg_shadow": CREDENTIALS,  # password hashes
    "pg_authid": CREDENTIALS,
    "pg_user_mapping": CREDENTIALS,  # foreign-server passwords
    "pg_user_mappings": CREDENTIALS,
    "pg_hba_file_rules": CREDENTIALS,  # pg_hba.conf: who may log in from where
    "pg_ident_file_mappings": CREDENTIALS,
    "pg_file_settings": FILES,  # postgresql.conf and its includes, as read from disk
}
"""Table or view name -> reason: declined on every dialect, whatever the schema it is qualified with."""

FILE_SUFFIXES = frozenset(
    {
        "csv",
        "tsv",
        "tbl",
        "txt",
        "dat",
        "parquet",
        "json",
        "jsonl",
        "ndjson",
        "geojson",
        "gz",
        "gzip",
        "zst",
        "zstd",
        "bz2",
        "xz",
        "lz4",
        "xlsx",
        "xls",
        "arrow",
        "ipc",
        "feather",
        "avro",
        "orc",
        "db",
        "sqlite",
        "sqlite3",
        "duckdb",
        "ddb",
        "shp",
        "gpkg",
    }
)
"""Name parts DuckDB reads as a file's extension: ``FROM data.csv`` is the file ``data.csv`` when no
table of that name exists (a replacement scan), quoted or not."""

_PATH_CHARACTERS = frozenset("/\\:*?~{}[]")


SPARK_SOURCES = frozenset(
    {"parquet", "json", "csv", "text", "orc", "avro", "binaryfile", "delta", "iceberg", "hudi", "jdbc", "libsvm", "xml"}
)
"""Spark's file and connector data sources: ``parquet.`/path``` reads the file at the path as a table."""


def engine_of(dialect_classes: Sequence[str]) -> str:
    """``duckdb``, ``postgres``, ``sqlite``, ``spark`` (Spark and Hive, whose dialect Spark's derives from) or
    ``other``, from the lower-cased names of a sqlglot dialect's classes (so a dialect derived from PostgreSQL's
    gets PostgreSQL's prefixes)."""
    for engine in ("duckdb", "postgres", "sqlite"):
        if engine in dialect_classes:
            return engine
    return "spark" if "hive" in dialect_classes else "other"


def declined_function(name: str, engine: str) -> str | None:
    """Why a call of ``name`` (lower-case) is declined on ``engine`` (:func:`engine_of`), or None."""
    reason = EVERY_DIALECT.get(name) or ENGINE_ONLY.get(engine, {}).get(name)
    if reason is not None:
        return reason
    return next((why for prefix, why in PREFIXES.get(engine, ()) if name.startswith(prefix)), None)


def declined_table(parts: Sequence[str], engine: str) -> str | None:
    """Why reading the table named by ``parts`` (catalog, schema, name: as written) is declined, or None.

    Everywhere: a catalog of credentials or server files (:data:`RESTRICTED_TABLES`). On DuckDB also a
    name DuckDB would read as a file or URL instead: one holding a path character, a dot inside a
    quoted part, or a file extension as a later part.
    """
    name = parts[-1].lower() if parts else ""
    if name in RESTRICTED_TABLES:
        return RESTRICTED_TABLES[name]
    if engine == "spark":
        return _spark_table(parts)
    if engine != "duckdb":
        return None
    joined = ".".join(parts)
    if "://" in joined:
        return NETWORK
    if any(ch in _PATH_CHARACTERS for ch in joined) or any("." in p for p in parts):
        return FILES
    if any(p.lower() in FILE_SUFFIXES for p in parts[1:]):
        return FILES
    return None


def _spark_table(parts: Sequence[str]) -> str | None:
    """On Spark, ``format.`path``` (``parquet.`/data```, ``csv.`s3://...```) reads a file or URL as a table: a
    qualifier naming a data source, or a name holding a path character or a scheme."""
    joined = ".".join(parts)
    if "://" in joined:
        return NETWORK
    if len(parts) > 1 and parts[-2].lower() in SPARK_SOURCES:
        return FILES
    if any(ch in _PATH_CHARACTERS for ch in joined):
        return FILES
    return None
