"""The databases of a run: the fixtures built (or a user's database named), each reached and found to hold
tables before anything is asked, the roles answers run as checked for more than read, and the counterexample search
set up to write its neighbours where the run may write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from eval.core.errors import UsageError
from eval.core.output import print_warning
from eval.sql.corpus.db_dir import database_targets
from eval.sql.corpus.questions import Question
from eval.sql.engines.setup import FixtureHost
from eval.sql.oracle.tie_check import ties_elsewhere
from eval.sql.pipeline.spec import RunSpec
from services.nl_database_service import NLDatabaseService
from services.readonly.privileges import privilege_warning
from services.redaction import redact_url

if TYPE_CHECKING:
    from eval.sql.counterexample.search import Searcher


def build_targets(spec: RunSpec, questions: list[Question], host: FixtureHost) -> dict[str | None, list[str]]:
    if spec.db_url:
        return {None: [spec.db_url]}
    names = sorted({q.fixture for q in questions if q.fixture})
    unknown = [f for f in names if f not in spec.fixtures]
    if unknown:
        raise UsageError(f"unknown fixture(s) {', '.join(unknown)}; fixtures: {', '.join(spec.fixtures)}")
    databases = database_targets(questions, spec.db_dir)  # checked before anything is built
    built: dict[str | None, list[str]] = {
        f: host.build_rotations(spec.fixtures[f], spec.seed, spec.rotations) for f in names
    }
    return built | databases


def fixture_keys(targets: Mapping[str | None, Sequence[str]]) -> list[str]:
    return sorted(k for k in targets if k and not k.startswith("db:"))


def check_reachable(service: NLDatabaseService, targets: Mapping[str | None, Sequence[str]]) -> None:
    """Every database opens and has tables: on an empty one every answer is an error and every
    must-refuse question a 'correct' refusal, a headline about nothing."""
    for urls in targets.values():
        for url in urls:
            probe = service.run_readonly("SELECT 1", url)
            if not probe.ok:
                raise UsageError(f"cannot reach database {redact_url(url)}: {probe.reason}")
            if not service.structure(url):
                raise UsageError(
                    f"the database {redact_url(url)} has no tables: nothing can be asked of it; check the URL "
                    "or the file (a 0-byte .sqlite file is an empty database)"
                )


def privilege_warnings(service: NLDatabaseService, targets: Mapping[str | None, Sequence[str]]) -> list[str]:
    """A warning, printed now and kept in the run, for each PostgreSQL role answers run as that can do more
    than read (a superuser, a member of pg_read_server_files, ...): the guard is then its only layer."""
    found: list[str] = []
    for url in dict.fromkeys(url for urls in targets.values() for url in urls):
        warning = privilege_warning(service.executor(url))
        if warning is not None and warning not in found:
            print_warning(warning)
            found.append(warning)
    return found


def make_searcher(spec: RunSpec, host: FixtureHost, url: str, workdir: Path, row_cap: int) -> Searcher:
    """The counterexample search of this run: neighbours written where the run may write (a file's copy, a schema
    of the fixtures' PostgreSQL database), read through the executor's limits, judged by the self-check's rules.
    The search is imported here, only by a run that asks for it: every other run starts without its modules."""
    from eval.sql.counterexample.search import Searcher
    from eval.sql.counterexample.writers import writer_for
    from eval.sql.fixtures.rules import RULES

    assert spec.counterexamples is not None
    owner = getattr(host, "owner_url", None)
    owner_url = None if owner is None else sa.engine.make_url(owner).render_as_string(hide_password=False)
    writer = writer_for(url, owner_url, getattr(host, "reader", None))
    return Searcher(
        spec.counterexamples,
        ties_elsewhere,
        None if isinstance(writer, str) else writer,
        workdir / "neighbours",
        rules=RULES,
        timeout_s=spec.statement_timeout_s,
        row_cap=row_cap,
        cannot_write=writer if isinstance(writer, str) else "",
    )
