"""Built fixture databases, kept on disk so a run does not rebuild what it built before.

A fixture database is a function of its builder's source code, its name and its seed (and of the
SQLite and SQLAlchemy versions that write it). The cache keys each SQLite file by the SHA-256 of
exactly those, and records beside it the SHA-256 of the file's own bytes. A DuckDB file (``--engine
duckdb``) is cached the same way, its key naming the engine and the DuckDB and duckdb-engine
versions instead of SQLite's (its bytes differ from build to build, which the recorded hash of the
copy it keeps does not mind); PostgreSQL fixtures live on a server and are built per run. A cached file is used
only when both match: a changed builder gives a new key, and a file that changed after it was
written (a crash mid-write, a hand edit) fails its recorded hash and is rebuilt. Files are
written to a temporary name and renamed into place, so two runs never see half a file.

The cache lives in ``autobot-backend/.eval-cache/fixtures`` (ignored by git); ``EVAL_FIXTURE_CACHE``
names another folder, or ``off`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import sqlalchemy as sa

CACHE_ENV = "EVAL_FIXTURE_CACHE"
DEFAULT_CACHE = Path(__file__).resolve().parents[2] / ".eval-cache" / "fixtures"
FORMAT = 1


def cache_dir() -> Path | None:
    raw = os.environ.get(CACHE_ENV, "").strip()
    if raw.lower() in ("off", "0", "no", "false"):
        return None
    return Path(raw) if raw else DEFAULT_CACHE


def source_digest(paths: Iterable[Path]) -> str:
    """SHA-256 over the bytes of ``paths`` (sorted), each prefixed by its name."""
    h = hashlib.sha256()
    for path in sorted({Path(p).resolve() for p in paths}):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _engine_versions(engine: str) -> list[str]:
    if engine == "sqlite":
        return [f"sqlite={sqlite3.sqlite_version}"]
    if engine == "duckdb":
        import duckdb
        import duckdb_engine

        return [f"engine={engine}", f"duckdb={duckdb.__version__}", f"duckdb_engine={duckdb_engine.__version__}"]
    raise ValueError(f"no file cache for engine {engine!r}")


def cache_key(name: str, seed: int, sources: str, engine: str = "sqlite") -> str:
    parts = [
        f"format={FORMAT}",
        f"fixture={name}",
        f"seed={seed}",
        f"sources={sources}",
        *_engine_versions(engine),
        f"sqlalchemy={sa.__version__}",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def materialise(
    target: Path, name: str, seed: int, sources: str, write: Callable[[Path], object], engine: str = "sqlite"
) -> Path:
    """Put the database file (SQLite, or DuckDB) of ``name`` at ``seed`` at ``target``: copied from the cache
    when a verified copy is there, else written by ``write(path)`` (and then cached)."""
    root = cache_dir()
    if root is None:
        write(target)
        return target
    key = cache_key(name, seed, sources, engine)
    stem = f"{name}-seed{seed}-{key[:16]}"
    cached, meta = root / f"{stem}.{engine}", root / f"{stem}.json"
    if _verified(cached, meta, key):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, target)
        return target
    write(target)
    try:
        root.mkdir(parents=True, exist_ok=True)
        _publish(target, cached, meta, key)
    except OSError:
        pass  # a cache that cannot be written costs speed, never correctness
    return target


def _verified(cached: Path, meta: Path, key: str) -> bool:
    try:
        recorded = json.loads(meta.read_text(encoding="utf-8"))
        return bool(recorded.get("key") == key and recorded.get("sha256") == _file_sha256(cached))
    except (OSError, ValueError, AttributeError):
        return False


def _publish(built: Path, cached: Path, meta: Path, key: str) -> None:
    for final, make in (
        (cached, lambda tmp: shutil.copyfile(built, tmp)),
        (
            meta,
            lambda tmp: Path(tmp).write_text(json.dumps({"key": key, "sha256": _file_sha256(built)}), encoding="utf-8"),
        ),
    ):
        fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f".{final.name}.", suffix=".tmp")
        os.close(fd)
        try:
            make(tmp)
            os.replace(tmp, final)
        finally:
            Path(tmp).unlink(missing_ok=True)
