"""NLDatabaseService.aanswer: the same pipeline as answer, awaited; a real SQLite file and a real HTTP
server on 127.0.0.1, generators scripted at the edge."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from services.generation.llm import OpenAIChatGenerator
from services.generation.protocol import Generation, GeneratorUnavailable
from services.nl_database_service import Answer, ErrorKind, NLDatabaseService
from services.schema_context import SchemaContext
from tests.http_fakes import FakeHTTPServer, chat_reply
from tests.nl_service_helpers import RUNAWAY, Scripted, build_shop


class AsyncScripted(Scripted):
    """A generator with a coroutine ``agenerate`` (as a model's is); ``generate`` must not be used."""

    def __init__(self, outcome: object) -> None:
        super().__init__(outcome)
        self.awaited = 0

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        raise AssertionError("aanswer must await agenerate, not call generate")

    async def agenerate(self, question: str, schema: SchemaContext) -> Generation:
        self.awaited += 1
        return super().generate(question, schema)


class Threads(Scripted):
    """Records which thread ``generate`` ran on."""

    def __init__(self, outcome: object) -> None:
        super().__init__(outcome)
        self.threads: list[int] = []

    def generate(self, question: str, schema: SchemaContext) -> Generation:
        self.threads.append(threading.get_ident())
        return super().generate(question, schema)


@pytest.fixture
def shop_url(tmp_path) -> str:
    return build_shop(tmp_path / "shop.db")


def seen(answer: Answer) -> tuple:
    """Everything of an answer but its clock."""
    return (
        answer.question,
        answer.db_id,
        answer.user_id,
        answer.status,
        answer.error_kind,
        answer.reason,
        answer.sql,
        answer.columns,
        answer.rows,
        answer.generator,
        answer.model,
        answer.generation,
    )


OUTCOMES = [
    ("ok", Generation(sql="SELECT name FROM customers ORDER BY id"), "Who?", None, ("ok", None)),
    ("refused", Generation.refuse("no salaries here"), "Who?", None, ("refused", ErrorKind.REFUSED)),
    ("guard", Generation(sql="DELETE FROM orders"), "Who?", None, ("error", ErrorKind.GUARD_BLOCKED)),
    ("database", Generation(sql="SELECT nope FROM customers"), "Who?", None, ("error", ErrorKind.DATABASE)),
    ("unavailable", GeneratorUnavailable("endpoint down"), "Who?", None, ("error", ErrorKind.GENERATOR_UNAVAILABLE)),
    ("crash", RuntimeError("model exploded"), "Who?", None, ("error", ErrorKind.GENERATOR_ERROR)),
    ("not_a_generation", "SELECT 1", "Who?", None, ("error", ErrorKind.GENERATOR_ERROR)),
    ("bad_question", Generation(sql="SELECT 1"), "  ", None, ("error", ErrorKind.BAD_REQUEST)),
    ("no_database", Generation(sql="SELECT 1"), "Who?", "missing", ("error", ErrorKind.DB_UNREACHABLE)),
]


@pytest.mark.parametrize("flavour", [Scripted, AsyncScripted], ids=["generate", "agenerate"])
@pytest.mark.parametrize(
    ("outcome", "question", "db", "expected"), [c[1:] for c in OUTCOMES], ids=[c[0] for c in OUTCOMES]
)
def test_aanswer_gives_what_answer_gives(shop_url, tmp_path, flavour, outcome, question, db, expected):
    url = shop_url if db is None else f"sqlite:///{tmp_path / db / 'x.db'}"
    sync_generator, async_generator = Scripted(outcome), flavour(outcome)
    with (
        NLDatabaseService(sync_generator, local_db_url=shop_url) as one,
        NLDatabaseService(async_generator, local_db_url=shop_url) as other,
    ):
        told = one.answer(question, url, "shop", "u-1")
        awaited = asyncio.run(other.aanswer(question, url, "shop", "u-1"))
        assert (awaited.status, awaited.error_kind) == expected
        assert seen(awaited) == seen(told)
        assert [r.error_kind for r in other.history] == [r.error_kind for r in one.history]  # kept alike
    assert len(async_generator.calls) == len(sync_generator.calls)
    if flavour is AsyncScripted:
        assert async_generator.awaited == len(sync_generator.calls)


def test_a_recorded_generation_is_taken_without_asking(shop_url):
    generator = AsyncScripted(Generation(sql="SELECT 'never asked'"))
    with NLDatabaseService(generator, local_db_url=shop_url) as service:
        answer = asyncio.run(service.aanswer("anything", generation=Generation(sql="SELECT count(*) FROM orders")))
    assert (answer.status, answer.rows, answer.generation_ms) == ("ok", [(5,)], None)
    assert generator.awaited == 0


def test_a_sync_generator_and_the_database_run_off_the_event_loop(shop_url):
    generator = Threads(Generation(sql=RUNAWAY))

    async def ask() -> tuple[bool, Answer, int]:
        loop_thread = threading.get_ident()
        task = asyncio.create_task(service.aanswer("How many?"))
        await asyncio.sleep(0.1)
        # The runaway query holds its thread for the whole time limit; the loop is free meanwhile.
        return task.done(), await task, loop_thread

    with NLDatabaseService(generator, local_db_url=shop_url, timeout_s=1.5) as service:
        done_early, answer, loop_thread = asyncio.run(ask())
    assert not done_early
    assert answer.error_kind is ErrorKind.TIMEOUT
    assert generator.threads and loop_thread not in generator.threads


def test_a_models_agenerate_is_awaited_with_the_session_given(shop_url):
    reply = chat_reply("```sql\nSELECT country, count(*) FROM customers GROUP BY country ORDER BY country\n```")

    async def ask(service: NLDatabaseService) -> tuple[Answer, Answer]:
        async with httpx.AsyncClient(headers={"X-Eval-Run": "run-7"}) as session:
            shared = await service.aanswer("Customers per country?", session=session)
        own = await service.aanswer("Customers per country?")
        return shared, own

    with FakeHTTPServer(reply) as server:
        model = OpenAIChatGenerator(server.url + "/v1", "m")
        with NLDatabaseService(model, local_db_url=shop_url) as service:
            shared, own = asyncio.run(ask(service))
        headers = [r.headers.get("x-eval-run") for r in server.requests]
    assert shared.status == own.status == "ok"
    assert shared.rows == [("Canada", 2), ("France", 1)]
    assert headers == ["run-7", None]  # the first call went through the session it was handed
    assert shared.generation is not None and shared.generation.latency_ms is not None


def test_the_sync_answer_calls_generate_even_beside_agenerate(shop_url):
    # answer stays plain (no event loop of its own), so it works from inside a running loop too.
    generator = AsyncScripted(Generation(sql="SELECT 1"))
    generator.generate = Scripted(Generation(sql="SELECT 2")).generate  # type: ignore[method-assign]
    with NLDatabaseService(generator, local_db_url=shop_url) as service:

        async def inside_a_loop() -> Answer:
            return service.answer("Which?")

        assert asyncio.run(inside_a_loop()).rows == [(2,)]
    assert generator.awaited == 0


@pytest.mark.parametrize(
    "outcome, status, called",
    [
        (Generation(sql="SELECT name FROM customers ORDER BY id"), "ok", [0]),
        (RuntimeError("model exploded"), "error", []),
        (GeneratorUnavailable("endpoint down"), "error", []),
    ],
    ids=["answered", "generator crashed", "generator unavailable"],
)
def test_answered_is_called_once_when_the_model_answered_before_the_sql_runs(shop_url, outcome, status, called):
    """``answered`` frees a caller's place among the model calls in flight: it comes once the model has
    answered, while nothing of this question has run or been kept yet; never for a failed call (the caller
    frees the place with the answer, once it has counted the failure)."""
    service = NLDatabaseService(AsyncScripted(outcome))
    calls: list[int] = []
    answer = asyncio.run(service.aanswer("Who?", shop_url, answered=lambda: calls.append(len(service.history))))
    assert answer.status == status
    assert calls == called  # before the answer was executed and kept
    assert len(service.history) == 1


def test_answered_is_not_called_without_a_model_call(shop_url):
    """A recorded answer asks no model: there is no place to free (the caller frees it at the answer)."""
    service = NLDatabaseService(AsyncScripted(Generation(sql="SELECT 1")))
    calls: list[str] = []
    answer = asyncio.run(
        service.aanswer("Who?", shop_url, generation=Generation(sql="SELECT 2"), answered=lambda: calls.append("x"))
    )
    assert (answer.status, answer.rows, calls) == ("ok", [(2,)], [])


def test_an_open_databases_schema_is_taken_in_place_not_in_a_thread(shop_url):
    """The first question on a database reads its schema in a blocking step (a thread, under ``aanswer``);
    once it is open, the next question goes straight to the model: a thread for it would wait behind other
    answers' SQL, and with it the model call."""
    from services.nl_steps import Ask, Blocking

    service = NLDatabaseService(Scripted(Generation(sql="SELECT 1")))
    first = service._steps("Who?", shop_url, "shop", None, None)
    assert isinstance(next(first), Blocking)  # the schema, read in a thread
    assert service.sql.cached_schema(shop_url) is None
    assert service.answer("Who?", shop_url).status == "ok"
    assert service.sql.cached_schema(shop_url) is service.schema(shop_url)
    again = next(service._steps("Who?", shop_url, "shop", None, None))
    assert isinstance(again, Ask)
    assert again.schema is service.schema(shop_url)
