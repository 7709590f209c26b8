"""The model path at concurrency (issue 27 point 5): a place among ``--concurrency`` is the model's, not the
grading's, and grading in forked processes gives the report grading in threads gives.

The second test is a real run of the built-in corpus against a real loopback endpoint that answers each
question with its reference (its unanswerable ones with a refusal), graded once in threads and once in two
forked processes."""

from __future__ import annotations

import asyncio
import re

import pytest

from eval.core import forked
from eval.core.runner import release_slot, replay_all
from eval.sql.corpus.questions import load_corpus
from eval.sql.fixtures.seeded import FIXTURES
from eval.sql.grading import off_loop
from eval.sql.pipeline import RunSpec, run_suite
from services.generation.llm import OpenAIChatGenerator
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply


@pytest.mark.parametrize("releases", [True, False], ids=["released", "held (the control)"])
def test_the_next_task_is_asked_while_the_last_is_still_graded(releases):
    """At concurrency 1, task 0 waits after its answer (its grading) until task 1 has been asked: only a
    place given back at the answer lets task 1 start; held to the end, the two wait on each other."""
    asked: dict[int, asyncio.Event] = {}

    async def candidate(i: int) -> str:
        asked[i].set()
        if releases:
            release_slot()
        if i == 0:  # "grading" task 0 lasts until task 1 was asked
            await asyncio.wait_for(asked[1].wait(), timeout=2)
        return f"graded {i}"

    async def main() -> list[str | None]:
        asked.update({0: asyncio.Event(), 1: asyncio.Event()})
        replays = await replay_all([0, 1], candidate, str, concurrency=1, timeout_s=5)
        return [r.result for r in replays]

    got = asyncio.run(main())
    assert got == (["graded 0", "graded 1"] if releases else [None, "graded 1"])


def _endpoint():  # type: ignore[no-untyped-def]
    answers = {q.question: q for q in load_corpus().questions}

    def handler(request: ReceivedRequest) -> Reply:
        found = re.search(r"Question: (.*)$", request.json()["messages"][-1]["content"], re.S)
        q = answers[found.group(1).strip() if found else ""]
        return chat_reply("REFUSE: not here" if q.expect == "refuse" else f"```sql\n{q.sql}\n```", usage=(900, 40))

    return handler


@pytest.mark.skipif(not forked.can_fork(), reason="needs fork")
def test_grading_in_forked_processes_gives_the_report_threads_give(monkeypatch):
    forks: list[int] = []
    real = off_loop.fork_pool

    def counted(workers, setup=None):  # type: ignore[no-untyped-def]
        forks.append(workers)
        return real(workers, setup)

    monkeypatch.setattr(off_loop, "fork_pool", counted)
    with FakeHTTPServer(handler=_endpoint()) as server:

        def run(processes: str) -> list[tuple[str, str, str, str | None]]:
            monkeypatch.setenv(forked.PROCESSES_ENV, processes)
            spec = RunSpec(
                candidate="llm",
                generator=OpenAIChatGenerator(server.url + "/v1", "m"),
                corpus=load_corpus(),
                fixtures=FIXTURES,
                builtin=True,
                concurrency=8,
            )
            report = run_suite(spec)
            return [(o.question_id, o.verdict.value, o.reason, o.detail) for o in report.outcomes]

        threads = run("1")
        assert forks == []
        processes = run("2")
        assert forks == [2]  # the control: this run did grade in two forked children
    assert processes == threads
    assert sum(v == "pass" for _, v, _, _ in threads) > 100
