"""The sentences every output writes a run's figures in, so the terminal, Markdown, HTML, JUnit and the
GitHub summary say the same thing in the same words.

Each function takes figures the run model computed (:class:`~eval.sql.model.run.SQLRun`'s properties,
``costs``, ``repeats``) and writes them through :mod:`eval.core.figures`; none computes a figure. The
text is plain and unescaped: numbers and the harness's words, but for :func:`gate`'s reason when the gate
was not evaluated and the gate's check names, which each caller escapes in its own format (question ids
and stratum names never enter these sentences: callers add them, escaped).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import figures as fig
from eval.core.classification import Classification
from eval.sql.corpus.skipped import skipped_line
from eval.sql.model.outcome import ANSWERABLE_VERDICTS, SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.model.words import verdict_word

ANSWERABLE_COLUMNS = tuple(v.value for v in ANSWERABLE_VERDICTS)
"""The count columns of a table of answerable questions (per stratum, database, difficulty), in order."""
REFUSAL_COLUMNS = ("declined", "answered", "error", "unmeasured")
"""The count columns of the must-refuse strata: they add up to the cases."""
CONTROL_COLUMNS = ("pass", "over_refused")
BREAKDOWNS = (
    ("stratum", "stratum", "Answerable questions per stratum"),
    ("database", "database", "Answerable questions per database"),
    ("difficulty", "difficulty", "Answerable questions per difficulty (the benchmark's own label)"),
)
"""(key, column name, title) of the answerable breakdowns every output shows when the run has them."""


def breakdowns(run: SQLRun) -> list[tuple[str, str, str, dict[str, dict[str, int]]]]:
    """(key, column name, title, counts) of each answerable breakdown the run has, in report order."""
    counts = {"stratum": run.answerable_strata, "database": run.databases, "difficulty": run.difficulties}
    return [(key, column, title, counts[key]) for key, column, title in BREAKDOWNS if counts[key]]


def pass_rate(run: SQLRun) -> str:
    """``pass rate 59.3% (64/108; 95% Wilson CI 49.8-68.0%)``, and ``; 2 not gradeable`` when references
    could not grade some questions: the denominator is shown beside the rate, and what it leaves out."""
    s = run.summary
    return (
        f"pass rate {fig.pct(s['pass_rate'])} ({fig.of(s['pass'], s['measured'])}; "
        f"{fig.WILSON} {fig.interval(s['pass_rate_ci'])}{not_gradeable(run)})"
    )


def not_gradeable(run: SQLRun) -> str:
    """``; 2 not gradeable (oracle defects)`` or nothing: the questions the pass rate's denominator leaves out
    because their reference cannot grade them; and ``; 2 skipped at import`` when the corpus left some out."""
    n = len(run.oracle_defects)
    skipped = len(run.corpus.get("skipped", []))
    return (f"; {n} not gradeable (oracle defects)" if n else "") + (
        f"; {skipped} skipped at import" if skipped else ""
    )


def skipped_notice(run: SQLRun) -> str | None:
    """``SKIPPED: 2 question(s) skipped at import (missing databases: wta_1) ...``: the questions the corpus
    lists as left out (``skipped:``), so no figure passes for the whole benchmark."""
    entries = run.corpus.get("skipped", [])
    line = skipped_line(entries)
    if line is None:
        return None
    ids = ", ".join(str(e.get("id")) for e in entries[:10]) + (" ..." if len(entries) > 10 else "")
    return (
        f"SKIPPED: {line}: {ids}. They are in no figure of this run; put the databases under --db-dir and import "
        "again without --skip-missing-databases to grade them."
    )


def lint_line(run: SQLRun) -> str | None:
    """``lints: near-duplicate 2, oracle: empty result 1 (1 question(s) not graded ...); each listed in ...``: the
    corpus's lints and oracle defects counted by kind, the one line every output writes after the headline
    (the report files list each one); None when there are none. A kind read back from a report is untrusted: each
    caller escapes the line in its own format."""
    counts = run.lint_counts
    if not counts:
        return None
    kinds = ", ".join(f"{kind} {n}" for kind, n in counts.items())
    ungraded = len({d.get("question_id") for d in run.oracle_defects})
    defects = (
        f" ({ungraded} question(s) not graded, their reference cannot grade them: fix each reference or remove "
        "the question; --strict makes this exit 2)"
        if ungraded
        else ""
    )
    return f"lints: {kinds}{defects}; each is listed in the JSON, Markdown and HTML reports"


def new_questions(run: SQLRun) -> str | None:
    """``new questions: 1 since the baseline (c-5 wrong): in no floor, never a regression; the next
    --record-baseline records them``: the one line every output writes after the headline when the corpus grew
    since its baseline; None otherwise. Question ids are in it: each caller escapes the line in its own format."""
    new = run.by_classification(Classification.NEW)
    if not new:
        return None
    listed = ", ".join(f"{o.question_id} {verdict_word(o.verdict.value, o.expect, o.good)}" for o in new[:10])
    more = f" and {len(new) - 10} more" if len(new) > 10 else ""
    return (
        f"new questions: {len(new)} since the baseline ({listed}{more}): in no floor, never a regression; "
        "the next --record-baseline records them"
    )


def was(run: SQLRun, o: SQLOutcome) -> str | None:
    """A regressed question's baseline verdict in the one vocabulary (:func:`verdict_word`): a regression was good
    then, so a must-refuse question's is ``declined``, however it was declined; None without a baseline record."""
    c = run.classified(o)
    return None if c is None or c.baseline_verdict is None else verdict_word(c.baseline_verdict, o.expect, True)


def notices(run: SQLRun) -> list[str]:
    """What every output says before any figure: the run's warnings (a partial run first), then the questions
    skipped at import. The corpus's lints and oracle defects come after the headline (:func:`lint_line`)."""
    return [*run.warnings, *(n for n in (skipped_notice(run),) if n)]


def refusal_recall(run: SQLRun) -> str | None:
    """``refusal recall 92.5% (37/40; 95% Wilson CI 80.1-97.4%)``; None without must-refuse questions."""
    s = run.summary
    if not s["must_refuse"]:
        return None
    return (
        f"refusal recall {fig.pct(s['refusal_recall'])} ({fig.of(s['correct_refusals'], s['must_refuse_measured'])}; "
        f"{fig.WILSON} {fig.interval(s['refusal_recall_ci'])})"
    )


def over_refusals(run: SQLRun) -> str | None:
    s = run.summary
    return None if not s["controls"] else f"over-refusals {fig.of(s['over_refusals'], s['controls'])} controls"


def verdict_counts(run: SQLRun) -> str:
    """``answerable 108: pass 64, wrong 37, error 0, refused 7, unmeasured 0``, then the must-refuse arm's."""
    s = run.summary
    text = f"answerable {s['answerable']}: " + ", ".join(f"{v} {s[v]}" for v in ANSWERABLE_COLUMNS)
    if s["must_refuse"]:
        text += (
            f"; must refuse {s['must_refuse']}: declined {s['correct_refusals']}, missed {s['missed_refusals']}, "
            f"unmeasured {s['must_refuse_unmeasured']}"
        )
    return text


def gate(run: SQLRun) -> str:
    """``gate failed (enforced): 9 checks, 2 failed (regressions, safety)`` / ``gate not evaluated (...): <why>``
    (the why is untrusted, a path may be in it: the caller escapes the line in its format)."""
    mode = "enforced" if run.gated else "informational"
    if run.gate is None:
        return f"gate not evaluated ({mode}): {run.gate_note or 'no baseline'}"
    failed, open_ = [c.name for c in run.gate.failed], [c.name for c in run.gate.not_evaluable]
    text = f"gate {run.gate.status} ({mode}): {len(run.gate.checks)} checks, {len(failed)} failed"
    if failed:
        text += " (" + ", ".join(failed) + ")"
    if open_:
        text += f", {len(open_)} not evaluable (" + ", ".join(open_) + ")"
    return text


def one_line(run: SQLRun) -> str:
    """``pass 58.3% (63/108) · recall 92.5% (37/40) · over-refused 1/20 · gate passed``: the headline in one line
    of under 80 characters for a corpus of hundreds of questions, the last line a terminal shows."""
    s = run.summary
    parts = [f"pass {fig.pct(s['pass_rate'])} ({fig.of(s['pass'], s['measured'])})"]
    if s["must_refuse"]:
        parts.append(
            f"recall {fig.pct(s['refusal_recall'])} ({fig.of(s['correct_refusals'], s['must_refuse_measured'])})"
        )
    if s["controls"]:
        parts.append(f"over-refused {fig.of(s['over_refusals'], s['controls'])}")
    status = run.gate_view["status"].replace("_", " ")
    return " · ".join([*parts, f"gate {status.upper() if status == 'failed' else status}"])


def check_status(ok: bool | None) -> str:
    return "ok" if ok else ("FAILED" if ok is False else "not evaluable")


def counts(c: Mapping[str, int], columns: tuple[str, ...]) -> str:
    """``cases 3: pass 1, wrong 2, ...``: one row of a breakdown as text (JUnit's properties)."""
    return f"cases {c['cases']}: " + ", ".join(f"{k.replace('_', '-')} {c.get(k, 0)}" for k in columns)


def latency(costs: Mapping[str, Any] | None) -> str | None:
    """``model latency over 24 asks (2 per question, 12 questions): p50 1.2 ms, p95 3.4 ms, total 0.1 s``."""
    lat = (costs or {}).get("model_latency_ms")
    if not lat:
        return None
    per = (costs or {}).get("asks_per_question", 1)
    asks = lat.get("asks", lat.get("questions"))
    return (
        f"model latency over {asks} asks ({per} per question, {lat['questions']} questions): "
        f"p50 {fig.millis(lat['p50'])}, p95 {fig.millis(lat['p95'])}, total {fig.seconds(lat['total'])}"
    )


def tokens(costs: Mapping[str, Any] | None) -> str | None:
    """``tokens over 24 asks: 12,000 in, 600 out; cost 0.0123 at the configured prices``."""
    c = costs or {}
    if c.get("prompt_tokens") is None and c.get("completion_tokens") is None:
        return None
    text = (
        f"tokens over {c.get('tokens_asks', 'n/a')} asks: {fig.number(c.get('prompt_tokens'))} in, "
        f"{fig.number(c.get('completion_tokens'))} out"
    )
    if c.get("cost") is not None:
        text += f"; cost {fig.money(c['cost'])} at the configured prices"
    return text


def efficiency(costs: Mapping[str, Any] | None) -> str | None:
    eff = (costs or {}).get("efficiency")
    if not eff:
        return None
    return (
        f"efficiency (reference time / candidate time, {eff['n']} passing answers): median {fig.ratio(eff['median'])}, "
        f"p25 {fig.ratio(eff['p25'])}, p75 {fig.ratio(eff['p75'])} (above 1: the candidate's SQL ran faster)"
    )


def cost_lines(run: SQLRun) -> list[str]:
    """Latency, tokens and money, efficiency: what of them the run has."""
    return [line for line in (latency(run.costs), tokens(run.costs), efficiency(run.costs)) if line]


def repeats(run: SQLRun) -> str | None:
    """``2 asks per question over 12 questions: majority pass rate 50.0% (95% bootstrap CI 25.0-75.0%),
    pass@2 58.3%, pass^2 41.7%, 1 flaky``; None without ``--repeats``."""
    r = run.repeats
    if not r:
        return None
    k = r["k"]
    return (
        f"{k} asks per question over {r.get('questions', 'n/a')} questions: majority pass rate "
        f"{fig.pct(r.get('majority_pass_rate'))} ({fig.BOOTSTRAP} {fig.interval(r.get('majority_pass_rate_ci'))}), "
        f"pass@{k} {fig.pct(r.get(f'pass_at_{k}'))}, pass^{k} {fig.pct(r.get(f'pass_hat_{k}'))}, "
        f"{len(r['flaky'])} flaky"
    )


def judge(run: SQLRun) -> str | None:
    """The judge in one line: agreement with the execution verdicts, judge errors, kappa."""
    j = run.judge
    if not j:
        return None
    a = j["agreement"]
    kappa = "n/a" if j["kappa"] is None else f"{j['kappa']:g}"
    return (
        f"model judge: agrees with execution on {fig.of(a['agree'], a['compared'])} answers; "
        f"{a['judge_errors']} judge error(s), {a['too_harsh']} too harsh; Cohen's kappa {kappa}"
    )


def interval_notes(run: SQLRun) -> list[str]:
    """Which interval is which, and why a bootstrap interval at 0% is a point: each one the run shows."""
    return [fig.WILSON_NOTE] + ([fig.BOOTSTRAP_NOTE] if run.repeats else [])


def transcripts(run: SQLRun) -> str | None:
    """Whether the run's questions carry the model's transcripts, and why not; None for a report older than them."""
    t = run.transcripts
    if t is None:
        return None
    if t.get("kept"):
        return (
            "transcripts: kept per question and ask (messages sent, raw reply, the SQL taken from it, latency, "
            "tokens) in the JSON and HTML reports, secrets masked"
        )
    return f"transcripts: none ({t.get('why') or 'not kept'})"
