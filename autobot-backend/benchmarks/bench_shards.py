"""A run split into shards and merged (issue 39 point 6) against the same run in one process.

Two corpora, as a user would shard them: the built-in corpus graded by the built-in generator (offline, all CPU),
and 1,000 generated questions (the built-in ones repeated under new ids, as ``bench_offline`` makes them) asked of a
model stand-in that answers after 200 ms (``tests/http_fakes.py`` on 127.0.0.1, as ``bench_model_path`` runs it),
each process at ``--concurrency 8`` (one key's rate limit). For N in 1, 2 and 4, the N shards (``--shard K/N``) are
started at once as fresh processes, and when the last has ended ``python -m eval.merge`` joins them: the figure is
the wall time from the first start to the merge's end, beside the unsharded run's, a ratio within one round. The
merged run's verdicts are checked against the unsharded run's, question by question (the proof of identity is
``eval/tests/run/test_shards_identical.py``; here a difference would make the figure meaningless).

In CI each shard has a runner of its own; here the shards share this machine's cores, so the offline corpus (CPU
bound) shows what sharding costs on one machine, and the model corpus (waiting on the endpoint) what it saves.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_model_path import endpoint_answering_references
from benchmarks.bench_offline import generated_corpus
from tests.http_fakes import FakeHTTPServer

BACKEND = Path(__file__).resolve().parents[1]
ROUNDS = int(os.environ.get("BENCH_SHARD_ROUNDS", os.environ.get("BENCH_REPEATS", "2")))
SHARDS = (1, 2, 4)
LATENCY_S = 0.2
CONCURRENCY = 8


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, *args], cwd=BACKEND, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def _wait(proc: subprocess.Popen[bytes], what: str) -> None:
    _, err = proc.communicate()
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{what} exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}")


def _verdicts(report: Path) -> dict[str, str]:
    return {q["id"]: q["verdict"] for q in json.loads(report.read_text())["questions"]}


def _unsharded(run_args: list[str], out: Path, env: dict[str, str]) -> tuple[float, dict[str, str]]:
    report = out / "whole.json"
    started = time.perf_counter()
    _wait(_start(["-m", "eval.run", *run_args, "--json", str(report)], env), "the unsharded run")
    return time.perf_counter() - started, _verdicts(report)


def _sharded(
    n: int, run_args: list[str], corpus_args: list[str], out: Path, env: dict[str, str]
) -> tuple[float, dict[str, str]]:
    shards = [out / f"shard-{k}-of-{n}.json" for k in range(1, n + 1)]
    merged = out / f"merged-{n}.json"
    started = time.perf_counter()
    running = [
        _start(["-m", "eval.run", *run_args, "--shard", f"{k}/{n}", "--json", str(shard)], env)
        for k, shard in enumerate(shards, start=1)
    ]
    for k, proc in enumerate(running, start=1):
        _wait(proc, f"shard {k}/{n}")
    _wait(_start(["-m", "eval.merge", *map(str, shards), *corpus_args, "--json", str(merged)], env), "the merge")
    return time.perf_counter() - started, _verdicts(merged)


def _case(label: str, run_args: list[str], corpus_args: list[str], env: dict[str, str], tmp: Path) -> None:
    walls: dict[int | None, list[float]] = {}
    for r in range(ROUNDS):
        out = tmp / f"{label[:7]}-{r}"
        out.mkdir()
        whole_s, whole = _unsharded(run_args, out, env)
        walls.setdefault(None, []).append(whole_s)
        for n in SHARDS:
            shard_s, merged = _sharded(n, run_args, corpus_args, out, env)
            if merged != whole:
                differ = sorted(k for k in whole.keys() | merged.keys() if whole.get(k) != merged.get(k))
                raise RuntimeError(f"{label}: the merge of {n} shards differs from the run on {differ[:5]}")
            walls.setdefault(n, []).append(shard_s)
    whole_walls = walls[None]
    print(
        f"   {label}: one process {statistics.median(whole_walls):.2f} s (range {min(whole_walls):.2f}-"
        f"{max(whole_walls):.2f}); the same verdicts from every merge"
    )
    for n in SHARDS:
        ratios = [s / w for s, w in zip(walls[n], whole_walls, strict=True)]
        print(
            f"     {n} shard(s) at once + merge: {statistics.median(walls[n]):.2f} s, / one process "
            f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"
        )


def run() -> None:
    print(f"   {ROUNDS} round(s); shards started together as fresh processes on {os.cpu_count()} core(s), then merged")
    with tempfile.TemporaryDirectory(prefix="bench-shards-") as name:
        tmp = Path(name)
        env = {**os.environ, "EVAL_OUTPUT_DIR": str(tmp), "EVAL_CALLER_DIR": str(tmp)}
        for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY", "GITHUB_ACTIONS"):
            env.pop(var, None)
        _case("built-in corpus, built-in generator (offline)", ["--suite", "sql"], [], env, tmp)
        corpus = sorted(map(str, generated_corpus(1_000, tmp / "gen1000").glob("*.yaml")))
        handler = endpoint_answering_references(LATENCY_S)
        with FakeHTTPServer(handler=handler, keep_alive=True) as server:
            model_env = {**env, "NL_SQL_LLM_BASE_URL": server.url + "/v1", "NL_SQL_LLM_MODEL": "bench-model"}
            args = ["--suite", "sql", "--candidate", "llm", "--concurrency", str(CONCURRENCY), "--corpus", *corpus]
            _case(
                f"1,000 questions, a model answering in {LATENCY_S * 1000:.0f} ms, concurrency {CONCURRENCY} a process",
                args,
                ["--corpus", *corpus],
                model_env,
                tmp,
            )
