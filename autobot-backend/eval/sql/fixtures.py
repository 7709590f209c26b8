"""The fixture databases the SQL suite grades on: ``retail`` and ``retail_24m`` (spec 3).

A fixture is a name plus a seed: the schema (:mod:`eval.sql.fixture_schema`, SQLAlchemy Core,
no DDL strings) and the rows (:mod:`eval.sql.fixture_data`, one local ``random.Random(seed)``)
are the same for the same seed on every machine and every engine. After inserting, the build
checks every data guarantee of spec 3.2 in SQL (:mod:`eval.sql.fixture_checks`) and raises
:class:`FixtureError` naming the fixture, the seed and every broken guarantee (for
``retail_24m``, the colliding periods) rather than hand a grader a database that cannot tell two
answers apart.

API::

    FIXTURE_NAMES                                   ("retail", "retail_24m")
    Fixture(name, build, base_seed, sources)        any seeded fixture: the built-in ones are in FIXTURES;
                                                    fixtures_from_module("pkg.mod") reads a module's own
    build(engine, fixture, seed) -> None            schema + rows + checks, on any SQLAlchemy engine
                                                    (the database must not hold the tables yet)
    write(path, fixture, seed) -> str               a fresh SQLite file; returns its SQLAlchemy URL
    build_rotations(fixture, directory, seed=0, rotations=3, registry=FIXTURES) -> list[str]
                                                    SQLite files for seeds seed..seed+rotations-1 (after
                                                    the fixture's base seed), URLs in seed order
                                                    (rotation 0 first), from the on-disk cache when a
                                                    verified copy is there (eval.sql.fixture_cache)
    create_and_fill(engine, metadata, tables, rows) and write_sqlite(path, build_on) -> str
                                                    the same two steps for any schema (the blind
                                                    sets' own schemas use them)

``retail`` is a point-in-time shop: orders from 2024-10-01 to 2024-12-31, customers signed up
from 2023-01-01. ``retail_24m`` covers 24 whole months, orders from 2023-01-01 to 2024-12-31;
its customers signed up from 2022-01-01, so the first months have customers to order.

Money is generated as integer cents and bound per engine by ``fixture_schema.Money``
(``Decimal`` where the engine has a decimal type, a float rounded to cents on SQLite).

Importing :mod:`services.schema_context` registers the compile hook that keeps column comments
in SQLite's stored DDL, so the comments reach a generator on the default engine too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from rapidfuzz import process

import services.schema_context
from eval.errors import HarnessError
from eval.sql import fixture_cache
from eval.sql.fixture_checks import check_guarantees
from eval.sql.fixture_data import FixtureSpec, generate
from eval.sql.fixture_schema import TABLES, metadata

SPECS: dict[str, FixtureSpec] = {
    "retail": FixtureSpec(
        "retail",
        order_start=date(2024, 10, 1),
        order_end=date(2024, 12, 31),
        signup_start=date(2023, 1, 1),
        signup_end=date(2024, 12, 31),
        customers=(260, 340),
        products=(36, 48),
        orders=(1200, 1800),
    ),
    "retail_24m": FixtureSpec(
        "retail_24m",
        order_start=date(2023, 1, 1),
        order_end=date(2024, 12, 31),
        signup_start=date(2022, 1, 1),
        signup_end=date(2024, 12, 31),
        customers=(420, 560),
        products=(36, 48),
        orders=(4000, 5000),
        distinct_periods=True,
    ),
}
FIXTURE_NAMES: tuple[str, ...] = tuple(SPECS)
DEFAULT_ROTATIONS = 3


class FixtureError(HarnessError):
    """A fixture that cannot be built: unknown name, unusable target, or a broken guarantee."""


def spec_for(fixture: str) -> FixtureSpec:
    try:
        return SPECS[fixture]
    except KeyError:
        close = process.extractOne(fixture, FIXTURE_NAMES, score_cutoff=60)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise FixtureError(f"unknown fixture {fixture!r} (fixtures: {', '.join(FIXTURE_NAMES)}){hint}") from None


def build(engine: sa.Engine, fixture: str, seed: int) -> None:
    """Create the schema, insert the rows of ``seed`` and check spec 3.2 on ``engine``.

    Raises:
        FixtureError: unknown fixture, tables already present, or a guarantee the data breaks.
    """
    spec = spec_for(fixture)
    data = generate(spec, seed)
    existing = sorted(set(sa.inspect(engine).get_table_names()) & {t.name for t in TABLES})
    if existing:
        raise FixtureError(
            f"fixture {fixture!r} seed {seed}: the database already has tables "
            f"{', '.join(existing)}; build into an empty database"
        )
    create_and_fill(engine, metadata, TABLES, data.rows())
    with engine.connect() as conn:
        problems = check_guarantees(conn, spec)
    if problems:
        raise FixtureError(
            f"fixture {fixture!r} seed {seed} breaks its guarantees: "
            + "; ".join(problems)
            + ". Use another seed, or fix the generator in eval/sql/fixture_data.py"
        )


def sqlite_url(path: Path) -> str:
    return sa.URL.create("sqlite", database=str(path)).render_as_string(hide_password=False)


def write(path: Path, fixture: str, seed: int) -> str:
    """Build ``fixture`` for ``seed`` into a new SQLite file at ``path`` (replaced if present)."""
    spec_for(fixture)
    return write_sqlite(path, lambda engine: build(engine, fixture, seed))


def create_and_fill(
    engine: sa.Engine, metadata: sa.MetaData, tables: Sequence[sa.Table], rows: Mapping[str, list[dict[str, Any]]]
) -> None:
    """Create ``metadata``'s tables on ``engine`` and insert ``rows[table.name]`` into each of
    ``tables``, in their order (parents before children), in one transaction."""
    metadata.create_all(engine)
    with engine.begin() as conn:
        for table in tables:
            for batch in parents_first(table, rows[table.name]):
                conn.execute(table.insert(), batch)


def parents_first(table: sa.Table, rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """``rows`` cut into consecutive batches where no row refers to a row of its own batch.

    DuckDB checks a foreign key against the rows in the table when the statement starts, so a
    customer referred by a customer of the same multi-row INSERT fails there; rows are inserted
    parents first (a referrer before those it referred), one batch per INSERT. Other tables, and
    engines that check at the end of the statement, get the same rows in the same order.
    """
    links = [(fk.parent.name, fk.column.name) for fk in table.foreign_keys if fk.column.table is table]
    if not links:
        return [rows]
    batches: list[list[dict[str, Any]]] = [[]]
    keys: set[tuple[str, Any]] = set()
    for row in rows:
        if any((target, row.get(column)) in keys for column, target in links):
            batches.append([])
            keys = set()
        batches[-1].append(row)
        keys.update((target, row.get(target)) for _, target in links)
    return batches


def write_sqlite(path: Path, build_on: Callable[[sa.Engine], None]) -> str:
    """A new SQLite file at ``path`` (replaced if present), built by ``build_on(engine)``; its URL.

    A build that fails leaves no file behind, so a half-built database is never mistaken for one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    url = sqlite_url(path)
    engine = sa.create_engine(url)
    try:
        build_on(engine)
    except BaseException:
        engine.dispose()
        path.unlink(missing_ok=True)
        raise
    engine.dispose()
    return url


Builder = Callable[[sa.Engine, int], None]
"""Create a fixture's tables and rows for a seed on an empty engine; raise on a broken guarantee."""


@dataclass(frozen=True)
class Fixture:
    """A seeded database a corpus question can name."""

    name: str
    build: Builder
    base_seed: int = 0
    """Rotation ``i`` of a run from seed ``S`` is built from ``base_seed + S + i``: a fixture written
    for one particular seed keeps it at rotation 0 of a default run."""
    sources: tuple[Path, ...] = ()
    """The files the builder's output depends on; they key the on-disk cache (none: never cached)."""


_BUILTIN_SOURCES = tuple(
    Path(__file__).resolve().parent / f
    for f in ("fixtures.py", "fixture_schema.py", "fixture_data.py", "fixture_edges.py", "fixture_checks.py")
) + (Path(services.schema_context.__file__).resolve(),)


def _builtin(name: str) -> Fixture:
    return Fixture(name, lambda engine, seed: build(engine, name, seed), sources=_BUILTIN_SOURCES)


FIXTURES: dict[str, Fixture] = {name: _builtin(name) for name in SPECS}
"""The built-in fixtures, by name."""


def fixtures_from_module(module: str) -> dict[str, Fixture]:
    """The fixtures a Python module defines in its ``FIXTURES`` mapping (name -> :class:`Fixture`).

    Raises:
        FixtureError: the module does not import, has no ``FIXTURES``, or one is not a Fixture
            or reuses a built-in fixture's name.
    """
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise FixtureError(
            f"--fixtures {module}: cannot import it ({exc}); name an importable module, e.g. "
            "tests.schemas, run from autobot-backend/"
        ) from None
    found = getattr(mod, "FIXTURES", None)
    if not isinstance(found, Mapping):
        raise FixtureError(f"--fixtures {module}: the module has no FIXTURES mapping of name -> Fixture")
    out: dict[str, Fixture] = {}
    for name, fixture in found.items():
        if not isinstance(fixture, Fixture) or fixture.name != name:
            raise FixtureError(
                f"--fixtures {module}: FIXTURES[{name!r}] must be an eval.sql.fixtures.Fixture named {name!r}"
            )
        if name in FIXTURES:
            raise FixtureError(f"--fixtures {module}: {name!r} is a built-in fixture's name; choose another")
        out[name] = fixture
    return out


def build_rotations(
    fixture: str | Fixture,
    directory: Path,
    seed: int = 0,
    rotations: int = DEFAULT_ROTATIONS,
    registry: Mapping[str, Fixture] = FIXTURES,
) -> list[str]:
    """SQLite files ``<fixture>-seed<S>.sqlite`` in ``directory`` for rotations 0..N-1; their URLs in order."""
    if isinstance(fixture, str):
        if fixture not in registry:
            close = process.extractOne(fixture, list(registry), score_cutoff=60)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise FixtureError(f"unknown fixture {fixture!r} (fixtures: {', '.join(registry)}){hint}")
        fixture = registry[fixture]
    if rotations < 1:
        raise FixtureError(f"rotations must be at least 1, got {rotations}")
    sources = fixture_cache.source_digest(fixture.sources) if fixture.sources else None
    built = fixture
    urls = []
    for s in range(fixture.base_seed + seed, fixture.base_seed + seed + rotations):
        path = Path(directory) / f"{fixture.name}-seed{s}.sqlite"

        def write_one(target: Path, s: int = s) -> str:
            return write_sqlite(target, lambda engine: built.build(engine, s))

        if sources is None:
            write_one(path)
        else:
            fixture_cache.materialise(path, fixture.name, s, sources, write_one)
        urls.append(sqlite_url(path))
    return urls
