"""What a PostgreSQL role can do beyond reading, for warning whoever runs SQL through it.

The executor's second layer on PostgreSQL is the role: a read-only transaction stops writes, not a
superuser reading server files, the password hashes or the login rules, nor a member of
``pg_execute_server_program`` running a program. :func:`privilege_warning` asks the server what the
executor's role is and says, in one sentence per role, what SQL that got past the guard could do
through it, and what to connect as instead.
"""

from __future__ import annotations

from services.readonly.executor import ExecutionError, ReadOnlyExecutor

__all__ = ["RISKY_ROLES", "SUPERUSER_EXPOSES", "privilege_warning", "risky_privileges"]

SUPERUSER_EXPOSES = (
    "read any file the server can (pg_read_file, pg_ls_dir), the password hashes (pg_shadow, pg_authid) and the "
    "login rules (pg_hba_file_rules); write files and run programs (COPY ... TO PROGRAM, lo_export); and end any "
    "session (pg_terminate_backend)"
)
"""What a superuser's session exposes to SQL that got past the guard: a read-only transaction stops none of it."""

RISKY_ROLES: dict[str, str] = {
    "pg_read_server_files": "read any file the server can (pg_read_file, COPY ... FROM a file)",
    "pg_write_server_files": "write any file the server can (COPY ... TO a file, lo_export)",
    "pg_execute_server_program": "run programs on the server (COPY ... PROGRAM)",
    "pg_signal_backend": "end other sessions, not only its own role's (pg_terminate_backend)",
    "pg_read_all_data": "read every table of every schema, not only the ones it is given",
    "pg_write_all_data": "write every table (a read-only transaction still stops it)",
}
"""PostgreSQL's predefined roles that reach past the fixture schema, with what a member can do."""

_PROBE = (
    "SELECT current_user, r.rolsuper, ARRAY(SELECT b.rolname::text FROM pg_roles b WHERE b.rolname IN ("
    + ", ".join(f"'{name}'" for name in RISKY_ROLES)
    + ") AND pg_has_role(current_user, b.oid, 'MEMBER') ORDER BY b.rolname) "
    "FROM pg_roles r WHERE r.rolname = current_user"
)


def risky_privileges(executor: ReadOnlyExecutor) -> tuple[str, list[str]] | None:
    """``(role, what it holds)`` for a PostgreSQL executor: ``["superuser"]``, the :data:`RISKY_ROLES` it is a
    member of, or ``[]``. None on other engines, or when the server cannot say (an engine that speaks
    PostgreSQL's protocol without its catalog)."""
    if executor.engine.dialect.name != "postgresql":
        return None
    try:
        rows = executor.execute(_PROBE).rows
    except ExecutionError:
        return None
    if len(rows) != 1:
        return None
    role, superuser, roles = rows[0]
    return str(role), ["superuser"] if superuser else [str(r) for r in roles]


def privilege_warning(executor: ReadOnlyExecutor) -> str | None:
    """One sentence for whoever runs the harness when the executor's role can do more than read its tables, or None."""
    found = risky_privileges(executor)
    if found is None or not found[1]:
        return None
    role, held = found
    instead = "Connect as a role with only SELECT on the fixture schema (or on your tables)"
    if held == ["superuser"]:
        return (
            f"PostgreSQL: answers run as the role {role!r}, a superuser. A read-only transaction does not hold a "
            f"superuser back: SQL that got past the guard could {SUPERUSER_EXPOSES}. {instead}, not a superuser."
        )
    can = "; ".join(RISKY_ROLES[name] for name in held)
    return (
        f"PostgreSQL: answers run as the role {role!r}, a member of {', '.join(held)}: SQL that got past the guard "
        f"could {can}. {instead}, a member of none of them."
    )
