"""The read-only guard's vocabulary: outcome codes, keywords, functions and pragmas, token and
tree-node classes it decides by. The decisions themselves are :mod:`services.readonly.guard`'s."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports it from tokenizer_core

GUARD_CODES: dict[str, str] = {
    "ok": "allowed: one read-only statement",
    "empty": "no SQL at all (empty, whitespace, only comments or semicolons)",
    "too_long": "longer than the guard's length limit (default 100,000 bytes, NL_SQL_MAX_SQL_BYTES): not parsed",
    "dialect": "the dialect name is not one sqlglot knows",
    "unparseable": "the dialect's tokenizer or parser cannot read the text (including non-SQL prose)",
    "unrecognised": "parsed, but not into a statement the guard recognises as a read (fail closed)",
    "multiple_statements": "more than one statement",
    "executable_comment": "a MySQL/MariaDB executable comment (/*! ... */), which the engine runs as code",
    "write": "a statement or sub-statement that changes data (INSERT, UPDATE, DELETE, MERGE, REPLACE, UPSERT, "
    "LOAD DATA, a data-modifying CTE)",
    "ddl": "a statement that changes the schema or privileges (CREATE, DROP, ALTER, TRUNCATE, COMMENT, GRANT, ...)",
    "maintenance": "VACUUM (including VACUUM INTO), ANALYZE, REINDEX, OPTIMIZE, CLUSTER, REFRESH",
    "attach": "ATTACH or DETACH of a database",
    "pragma": "a PRAGMA that is not on the read-only allow-list, or one that sets a value",
    "copy": "COPY (server-side file or program I/O)",
    "select_into": "SELECT ... INTO (creates a table, a file or variables)",
    "locking_read": "FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE (takes row locks)",
    "side_effect_function": "a call of a function on the side-effect deny-list, or NEXT VALUE FOR",
    "transaction": "transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ...)",
    "session": "session or server control (SET, RESET, USE, LOCK TABLE, LISTEN, KILL, ...)",
    "call": "CALL / EXEC / EXECUTE / DO / PREPARE of a procedure or prepared statement",
    "explain": "EXPLAIN of something that is not a query",
}
"""Every ``GuardVerdict.code`` the guard produces, with what it means."""

_SAFE_SQL_PREFIXES: tuple[str, ...] = ("SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA", "SHOW", "DESCRIBE", "DESC")
"""Leading keywords of the statement kinds the guard can allow (kept for compatibility).

A statement starting with one of these is not thereby allowed: it is allowed only when the
full classification in :func:`validate_readonly_sql` says so.
"""

# Statement kinds the guard rejects, keyed by their leading keyword, with the rejection code.
# Used to name the statement in a rejection, never as a regex over the text.
_KEYWORD_CODES: dict[str, str] = {
    **dict.fromkeys(("INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "UPSERT", "LOAD", "HANDLER"), "write"),
    **dict.fromkeys(("CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME", "COMMENT", "GRANT", "REVOKE", "SECURITY"), "ddl"),
    **dict.fromkeys(
        ("VACUUM", "ANALYZE", "ANALYSE", "REINDEX", "OPTIMIZE", "CLUSTER", "REFRESH", "CHECKPOINT"), "maintenance"
    ),
    **dict.fromkeys(("ATTACH", "DETACH"), "attach"),
    "COPY": "copy",
    **dict.fromkeys(
        ("BEGIN", "START", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "ABORT", "XA"), "transaction"
    ),
    **dict.fromkeys(
        (
            "SET",
            "RESET",
            "USE",
            "LOCK",
            "UNLOCK",
            "LISTEN",
            "UNLISTEN",
            "NOTIFY",
            "DISCARD",
            "KILL",
            "FLUSH",
            "SHUTDOWN",
            "INSTALL",
            "UNINSTALL",
        ),
        "session",
    ),
    **dict.fromkeys(("CALL", "EXEC", "EXECUTE", "DO", "PREPARE", "DEALLOCATE", "DECLARE", "WAITFOR"), "call"),
}

_DANGEROUS_KEYWORDS: frozenset[str] = frozenset(_KEYWORD_CODES)
"""Statement kinds (by leading keyword) the guard rejects (kept for compatibility).

Documentation of the policy and the source of the rejection code for a statement sqlglot
cannot model; it is never matched against raw text, so ``updated_at`` or a string holding
``'delete'`` is not affected.
"""

SIDE_EFFECT_FUNCTIONS: frozenset[str] = frozenset(
    {
        # SQLite: extension loading, file I/O (fileio and zipfile extensions, CLI), tokenizer pointer abuse
        "load_extension",
        "writefile",
        "readfile",
        "edit",
        "fsdir",
        "zipfile",
        "fts3_tokenizer",
        # PostgreSQL: sleeping, server files and directories, large objects, sequences, remote SQL,
        # backends, settings, locks, WAL/replication and statistics control, SQL-in-a-string
        "pg_sleep",
        "pg_sleep_for",
        "pg_sleep_until",
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
        "setval",
        "nextval",
        "dblink",
        "dblink_exec",
        "dblink_connect",
        "dblink_connect_u",
        "dblink_send_query",
        "dblink_open",
        "dblink_fetch",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_promote",
        "set_config",
        "pg_advisory_lock",
        "pg_advisory_lock_shared",
        "pg_advisory_xact_lock",
        "pg_advisory_xact_lock_shared",
        "pg_try_advisory_lock",
        "pg_try_advisory_lock_shared",
        "pg_try_advisory_xact_lock",
        "pg_try_advisory_xact_lock_shared",
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
        "query_to_xml",
        "query_to_xml_and_xmlschema",
        "query_to_xmlschema",
        "cursor_to_xml",
        "table_to_xml",
        "database_to_xml",
        # MySQL / MariaDB: sleeping, CPU burn, named locks, server files, replication waits, UDF shells
        "sleep",
        "benchmark",
        "get_lock",
        "release_lock",
        "release_all_locks",
        "load_file",
        "master_pos_wait",
        "source_pos_wait",
        "wait_for_executed_gtid_set",
        "sys_exec",
        "sys_eval",
        # SQL Server: shell, registry, OLE automation, remote data
        "xp_cmdshell",
        "xp_dirtree",
        "xp_fileexist",
        "xp_regread",
        "xp_regwrite",
        "sp_oacreate",
        "sp_oamethod",
        "sp_executesql",
        "openrowset",
        "opendatasource",
        "openquery",
        # Oracle: packages reachable from a SELECT
        "dbms_pipe.receive_message",
        "dbms_lock.sleep",
        "utl_http.request",
        "utl_inaddr.get_host_address",
    }
)
"""Functions a read must not call, matched case-insensitively on the parsed function name.

These sleep, read or write server files, change settings or sequences, take locks, or run SQL
given as a string (``dblink_exec``, ``query_to_xml``), so they escape a read-only statement.
"""

SQLITE_READ_PRAGMAS_WITH_ARGUMENT: frozenset[str] = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "foreign_key_check",
        "integrity_check",
        "quick_check",
    }
)
"""SQLite PRAGMAs whose argument names an object to describe, so ``PRAGMA x(arg)`` is a read."""

SQLITE_READ_PRAGMAS: frozenset[str] = SQLITE_READ_PRAGMAS_WITH_ARGUMENT | frozenset(
    {
        "database_list",
        "collation_list",
        "function_list",
        "module_list",
        "pragma_list",
        "compile_options",
        "user_version",
        "schema_version",
        "application_id",
        "data_version",
        "page_count",
        "page_size",
        "max_page_count",
        "freelist_count",
        "encoding",
        "journal_mode",
        "auto_vacuum",
        "foreign_keys",
        "query_only",
        "read_uncommitted",
        "recursive_triggers",
        "case_sensitive_like",
        "cache_size",
        "busy_timeout",
        "synchronous",
        "temp_store",
        "locking_mode",
        "secure_delete",
        "cell_size_check",
        "trusted_schema",
        "legacy_alter_table",
        "automatic_index",
        "defer_foreign_keys",
    }
)
"""SQLite PRAGMAs that only report when given no argument.

For settings (``journal_mode``, ``user_version``...) the argument form ``PRAGMA x(v)`` *sets*
the value, exactly like ``PRAGMA x = v``; only the bare form is a read. Pragmas with side
effects (``optimize``, ``wal_checkpoint``, ``incremental_vacuum``, ``shrink_memory``) are absent.
"""


_QUOTED = frozenset(
    {
        TokenType.STRING,
        TokenType.IDENTIFIER,
        TokenType.BIT_STRING,
        TokenType.HEX_STRING,
        TokenType.BYTE_STRING,
        TokenType.NATIONAL_STRING,
        TokenType.RAW_STRING,
        TokenType.HEREDOC_STRING,
        TokenType.UNICODE_STRING,
        TokenType.NATIONAL_RAW_STRING,
    }
)
_EXPLAIN_OPTION_WORDS = frozenset(
    {
        "QUERY",
        "PLAN",
        "ANALYZE",
        "ANALYSE",
        "VERBOSE",
        "EXTENDED",
        "PARTITIONS",
        "FORMAT",
        "JSON",
        "TREE",
        "TRADITIONAL",
        "TEXT",
        "XML",
        "YAML",
    }
)
_SHOW_TOKENS = frozenset(
    {
        TokenType.VAR,
        TokenType.IDENTIFIER,
        TokenType.STRING,
        TokenType.NUMBER,
        TokenType.DOT,
        TokenType.COMMA,
        TokenType.EQ,
        TokenType.STAR,
    }
)

# Tree nodes that are never part of a read, with their rejection code.
_NODE_CODES: tuple[tuple[type[exp.Expr], str], ...] = (
    (exp.Copy, "copy"),  # before DML: Copy subclasses it
    (exp.Insert, "write"),
    (exp.Update, "write"),
    (exp.Delete, "write"),
    (exp.Merge, "write"),
    (exp.LoadData, "write"),
    (exp.Create, "ddl"),
    (exp.Drop, "ddl"),
    (exp.Alter, "ddl"),
    (exp.TruncateTable, "ddl"),
    (exp.Comment, "ddl"),
    (exp.Grant, "ddl"),
    (exp.Revoke, "ddl"),
    (exp.Analyze, "maintenance"),
    (exp.Refresh, "maintenance"),
    (exp.Cache, "maintenance"),
    (exp.Uncache, "maintenance"),
    (exp.Attach, "attach"),
    (exp.Detach, "attach"),
    (exp.Pragma, "pragma"),
    (exp.Into, "select_into"),
    (exp.Lock, "locking_read"),
    (exp.NextValueFor, "side_effect_function"),
    (exp.Transaction, "transaction"),
    (exp.Commit, "transaction"),
    (exp.Rollback, "transaction"),
    (exp.Set, "session"),
    (exp.Use, "session"),
    (exp.Kill, "session"),
    (exp.Execute, "call"),
    (exp.Declare, "call"),
    (exp.Command, "unrecognised"),
)
