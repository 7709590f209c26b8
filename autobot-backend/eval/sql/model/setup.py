"""The typed parts of a run's set-up and stamps, as the JSON report holds them (TypedDicts: the model's
fields are typed, and the file keeps its keys)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class FileStamp(TypedDict):
    path: str
    """Relative to the corpus's own folder where it can be, so the stamp names no machine."""
    sha256: str
    questions: int


class SkippedStamp(TypedDict):
    """A question the corpus leaves out but counts (``skipped:`` in a file, written by an import)."""

    id: str
    database: str | None
    reason: str


class CorpusStamps(TypedDict):
    digest: str
    """One digest over every file's content: numbers compare only on the same digest."""
    size: int
    files: list[FileStamp]
    skipped: NotRequired[list[SkippedStamp]]
    """Only when the files leave questions out: each one's id, database and why; every output counts them."""


class DatabaseStamp(TypedDict):
    schema: str
    """SHA-256 of the schema (tables, columns, types, keys, comments)."""
    sha256: str | None
    """SHA-256 of a SQLite file's bytes; None for another engine."""


class RunSetup(TypedDict, total=False):
    """How the run was taken (the settings that change a verdict are also in the cohort)."""

    engine: str
    rotations: int
    seed: int | None
    fixtures: list[str]
    db_url: str | None
    """Redacted: never a password."""
    databases: dict[str, list[DatabaseStamp]]
    """Per fixture (or database), each rotation's stamp."""
    concurrency: int
    repeats: int
    column_order: str
    """Only when ``--column-order`` overrode the corpus."""
    db_dir: str | None
    """Where questions that name a database find it (``--db-dir``)."""
    counterexamples: str
    """Only with ``--counterexamples``: the search's budget per pass (``200 neighbours``, ``2s``)."""


class BaselineRef(TypedDict):
    """The baseline a run was compared with."""

    path: str
    recorded_at: str
    model: str
    corpus_digest: str | None


class Cohort(TypedDict):
    """The run's identity (``eval.sql.grading.identity``): its keys' fingerprint, the model beside it."""

    fingerprint: str
    keys: dict[str, Any]
    model: str
    provider: str | None


class Latency(TypedDict):
    total: float
    p50: float
    p95: float
    asks: int
    questions: int


class Distribution(TypedDict):
    n: int
    min: float
    p25: float
    median: float
    p75: float
    max: float


class Prices(TypedDict):
    input: float
    output: float
    """Per million tokens."""


class TokenSpread(TypedDict):
    """One ask's tokens across the asks that reported them (nearest-rank quantiles)."""

    p50: int
    p95: int


class TokensPerAsk(TypedDict):
    prompt: TokenSpread | None
    completion: TokenSpread | None


class Costs(TypedDict):
    """What a run cost (``eval.sql.grading.costs``): every ask's time and tokens, money where priced."""

    asks_per_question: int
    asks: int
    model_latency_ms: Latency | None
    prompt_tokens: int | None
    completion_tokens: int | None
    tokens_asks: int
    prices_per_million: Prices | None
    cost: float | None
    efficiency: Distribution | None
    """Reference time / candidate time per passing answer; not part of the pass rate."""
    efficiency_note: str
    tokens_per_ask: NotRequired[TokensPerAsk | None]
    """p50 and p95 of the prompt and completion tokens of one ask (absent in a report from before them)."""
