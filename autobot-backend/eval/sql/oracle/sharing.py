"""What a run's forked processes share with it (:mod:`eval.core.forked`): parsed references, read results.

A child forked for the self-check starts with what its parent holds, and hands back only what it was
asked for. Two things are worth more in the parent than the child: each reference parsed once before
the fork (every child, and the composition tags after the run, read the same tree:
:mod:`services.readonly.parsed`), and the references' results once the self-check is back (the asking's
children inherit them in the result cache, so a candidate answering with its reference's SQL is not run
again: :mod:`services.readonly.result_cache`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from eval.sql.corpus.questions import Question
from eval.sql.oracle.selfcheck import SelfCheckResult
from services.nl_database_service import NLDatabaseService
from services.readonly.parsed import statement_tree


def parse_references(questions: Sequence[Question], dialect: str) -> None:
    """Parse each reference once, before the self-check forks: the children and the composition share it."""
    for q in questions:
        try:
            statement_tree(q.reference_sql(dialect) or "", dialect)
        except Exception:  # the self-check names what does not parse or transpile
            continue


def keep_references(
    service: NLDatabaseService,
    questions: Sequence[Question],
    targets: Mapping[str | None, Sequence[str]],
    check: SelfCheckResult,
) -> None:
    """The references' results, read by the self-check (in this process or its children), in this process's
    result cache (which the asking's children inherit), held there whatever their size (the grader holds them for
    the run anyway): a candidate answering with its reference's SQL is not run again."""
    if service.sql.results is None:
        return
    single = None in targets
    for q in questions:
        results = check.reference.get(q.id)
        urls = targets.get(None if single else q.target) or []
        for url, execution in zip(urls, results or []):
            service.sql.results.put(url, execution.sql, execution, held=True)
