"""The read-only guard's vocabulary: outcome codes, keywords, functions and pragmas, token and
tree-node classes it decides by. The decisions themselves are :mod:`services.readonly.guard`'s."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import TokenType  # type: ignore[attr-defined]  # sqlglot 30 re-exports it from tokenizer_core

from services.readonly.guard_functions import EVERY_DIALECT

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
    "side_effect_function": "a call of a function that reaches outside the database or changes it (server files, "
    "network, settings, sessions, locks, sequences, SQL in a string; services.readonly.guard_functions), "
    "or NEXT VALUE FOR",
    "restricted_table": "a read of a catalog that holds credentials or server files (pg_shadow, pg_authid, "
    "pg_hba_file_rules, ...), or on DuckDB a table name DuckDB would read as a file or URL ('data.csv', data.csv)",
    "transaction": "transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ...)",
    "session": "session or server control (SET, RESET, USE, LOCK TABLE, LISTEN, KILL, ...)",
    "call": "CALL / EXEC / EXECUTE / DO / PREPARE of a procedure or prepared statement",
    "explain": "EXPLAIN of something that is not a query",
}
"""Every ``GuardVerdict.code`` the guard produces, with what it means."""

QUERY_ONLY_HINT = "Send one read-only SELECT (or WITH ... SELECT) instead."
"""The end of most rejections: what to send instead."""

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

SIDE_EFFECT_FUNCTIONS: frozenset[str] = frozenset(EVERY_DIALECT)
"""Functions a read must not call on any dialect, matched case-insensitively on the parsed function name.

They read or write server files, reach the network, change settings or sequences, administer
sessions, take locks, sleep, or run SQL given as a string (``dblink_exec``, ``query_to_xml``, DuckDB's
``query``), so they escape a read-only statement. The tables per engine, with each one's reason, and
what is declined on one engine only (prefixes such as DuckDB's ``read_``), are
:mod:`services.readonly.guard_functions`.
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
