"""Paths a user gives, read from where the user stands; reports written only inside an allowed root.

Relative paths on the command line (corpus and answers files, reports, a SQLite file in a URL) are
taken relative to the directory the user ran the command from: the working directory, or
``EVAL_CALLER_DIR`` when a wrapper changed directory first (``make eval`` runs in
``autobot-backend/`` and passes the directory make was called from).

A report path comes from a command line that CI or a script may build from untrusted input;
confining it to that directory (or ``EVAL_OUTPUT_DIR``) keeps ``--json ../../etc/x`` or a symlink
out of the tree from overwriting anything the run does not own. Every other path a run writes obeys
the same rule: a baseline folder, an accuracy record and its trend file a user names; the harness's
own files (the built-in baselines and record) stay in the folder they belong in.
"""

from __future__ import annotations

import errno
import glob
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from eval.core.errors import HarnessError
from eval.core.outbound import known_secrets, redact
from eval.core.untrusted import inert

OUTPUT_DIR_ENV = "EVAL_OUTPUT_DIR"
CALLER_DIR_ENV = "EVAL_CALLER_DIR"


class OutputPathError(HarnessError):
    """The requested output path lies outside the allowed directory."""


def caller_dir() -> Path:
    """Where the user ran the command from."""
    raw = os.environ.get(CALLER_DIR_ENV, "").strip()
    return Path(raw).resolve() if raw else Path.cwd().resolve()


def resolve_input(path: str | os.PathLike[str]) -> Path:
    """``path`` as the user meant it: relative to where they stand."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else caller_dir() / p


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as a person reads it in a message or a report: relative to where they stand when it is under it
    (``q/mine.yaml``), else as it is; a report names no folder of the machine it was made on for nothing.

    Example:
        >>> import os; os.environ[CALLER_DIR_ENV] = "/home/me/team"
        >>> shown_path("/home/me/team/q/mine.yaml"), shown_path("/srv/db/x.sqlite"), shown_path("a.jsonl")
        ('q/mine.yaml', '/srv/db/x.sqlite', 'a.jsonl')
        >>> del os.environ[CALLER_DIR_ENV]
    """
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return p.resolve().relative_to(caller_dir()).as_posix()
    except ValueError:
        return str(p)


def shown_url(url: str) -> str:
    """A database URL as a report shows it: a file's path (``sqlite:///``, ``duckdb:///``) relative to where the
    user stands when it is under it, as they typed it (``sqlite:///clinic.db``); any other URL unchanged.

    Example:
        >>> import os; os.environ[CALLER_DIR_ENV] = "/home/me/team"
        >>> shown_url("sqlite:////home/me/team/clinic.db?mode=ro"), shown_url("postgresql://h/db")
        ('sqlite:///clinic.db?mode=ro', 'postgresql://h/db')
        >>> del os.environ[CALLER_DIR_ENV]
    """
    scheme, sep, rest = url.partition(":///")
    if not sep or scheme.split("+")[0] not in ("sqlite", "duckdb") or not rest.startswith("/"):
        return url
    path, query, tail = rest.partition("?")
    return f"{scheme}:///{shown_path(path)}{query}{tail}"


def allowed_root() -> Path:
    raw = os.environ.get(OUTPUT_DIR_ENV)
    return Path(raw).resolve() if raw else caller_dir()


def confine(
    path: str | os.PathLike[str], *, flag: str | None = None, root: Path | None = None, directory: bool = False
) -> Path:
    """Resolve ``path`` (symlinks and ``..`` included) and insist it stays under the root: the allowed root of
    reports (:func:`allowed_root`), or ``root``, the folder a file of the harness's own belongs in.

    Args:
        flag: the option that named the path, named in the refusal (``--baseline-dir``).
        directory: the path is a folder to write into, not a file.
    """
    base = allowed_root() if root is None else root.resolve()
    resolved = resolve_input(path).resolve()
    named = f"{flag} {str(path)!r}" if flag else repr(str(path))
    if resolved != base and not resolved.is_relative_to(base):
        if root is None:
            where = "the directory reports may go to; write under it, or allow another directory with "
            where += f"{OUTPUT_DIR_ENV}=DIR"
        else:
            where = "the folder it belongs in; remove the symbolic link that leads out of it"
        shown = f" (it resolves to {resolved})" if resolved != resolve_input(path) else ""
        raise OutputPathError(f"refusing to write {named}{shown}: it is outside {base}, {where}")
    if directory and resolved.exists() and not resolved.is_dir():
        raise OutputPathError(f"refusing to write into {named}: it is a file, not a directory")
    if not directory and resolved.is_dir():
        raise OutputPathError(f"refusing to write {named}: it is a directory")
    return resolved


def write_atomically(target: Path, text: str) -> Path:
    """Write ``text`` to ``target`` through a temporary file and a rename: a reader never sees half of it,
    and a write killed halfway leaves the old file (its temporary file is removed by the next write). The
    file keeps its mode when it already exists. The run's secrets are masked in it
    (:func:`eval.core.outbound.redact`): every file the harness writes leaves through here."""
    text = redact(text)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    _sweep(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _sweep(target: Path) -> None:
    """Remove the temporary files of ``target`` a writer killed before its rename left (SIGKILL runs no
    cleanup): each is named ``.NAME.PID.*.tmp``, and one whose process no longer runs is removed."""
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        pid = leftover.name[len(target.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            leftover.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write atomically to a confined path, creating parent directories under the root; untrusted text in
    it cannot speak to a terminal or a CI runner that shows the file (:func:`eval.core.untrusted.inert`)."""
    return write_atomically(confine(path), inert(text))


_WRITE_ADVICE = {
    errno.ENOSPC: "free space on that disk, or write elsewhere",
    errno.EDQUOT: "free space in your quota, or write elsewhere",
    errno.EFBIG: "the file is larger than this process may write (ulimit -f): raise the limit",
    errno.EROFS: "the folder is on a read-only file system: write elsewhere",
    errno.EACCES: "the folder may not be written: write elsewhere, or change its permissions",
    errno.EPERM: "the folder may not be written: write elsewhere, or change its permissions",
    errno.EPIPE: "the reader of stdout went away",
}
ENVIRONMENT_ERRNOS = frozenset(_WRITE_ADVICE) | {errno.EIO, errno.EMFILE, errno.ENFILE}
"""Failures of the machine, not of the harness: a full disk, a read-only folder, a file size limit."""


def failure_message(exc: OSError, what: str) -> str:
    """``could not WHAT: why; what to do`` for a failed write (disk full, read-only, ``ulimit -f``...)."""
    why = exc.strerror or str(exc) or type(exc).__name__
    return f"could not {what}: {why}; {_WRITE_ADVICE.get(exc.errno or 0, 'check the path and the file system')}"


def print_report(text: str) -> None:
    """Print a report on stdout with nothing in it that a terminal or a CI runner would obey."""
    print(inert(text))


CHARS_PER_WRITE = 1 << 18
"""About how many characters of a long report are made inert and written at once (:func:`print_report_lines`)."""


def print_report_lines(lines: Iterable[str]) -> None:
    """``print_report("\\n".join(lines))``, the same characters, made inert and written some
    :data:`CHARS_PER_WRITE` at a time, each block cut after a newline: a report of 10,000 questions (6.5 million
    characters, a table of them one string) is never joined, copied and encoded whole. Every rule of
    :func:`~eval.core.untrusted.inert` holds within a line (a control character, a ``::`` at a line's start, a
    ``##[``, a URL's password), so a block reads as it does in the whole; a known secret that itself spans lines
    is masked only in the whole, which is then printed so."""
    if any("\n" in secret or "\r" in secret for secret in known_secrets()):
        print_report("\n".join(lines))
        return
    block: list[str] = []
    size, written = 0, False
    for line in lines:
        for piece in _pieces(line):
            block.append(piece)
            size += len(piece) + 1
            if size >= CHARS_PER_WRITE:
                sys.stdout.write(inert("\n".join(block)) + "\n")
                block, size, written = [], 0, True
    if block or not written:
        sys.stdout.write(inert("\n".join(block)) + "\n")


def _pieces(text: str) -> Iterator[str]:
    """``text`` cut at newlines into pieces of about :data:`CHARS_PER_WRITE` characters (joined with newlines, the
    text again): one string that holds a whole table is written a part at a time too."""
    start = 0
    while len(text) - start > CHARS_PER_WRITE:
        cut = text.find("\n", start + CHARS_PER_WRITE)
        if cut < 0:
            break
        yield text[start:cut]
        start = cut + 1
    yield text[start:] if start else text


def print_error(message: str) -> None:
    """Print ``error: message`` on stderr, the way every command reports what stopped it; a question id or a
    check's detail in it cannot speak to a terminal or a CI runner either."""
    print(inert(f"error: {message}"), file=sys.stderr)


def print_warning(message: str) -> None:
    """Print ``warning: message`` on stderr, made inert like :func:`print_error`: the run goes on, but the reader
    should act."""
    print(inert(f"warning: {message}"), file=sys.stderr)
