"""The Markdown report: what a developer acts on first (the 2x2, verdicts, regressions), then
every failing question. Untrusted text (ids, questions, SQL, details) goes through
:mod:`eval.core.markdown`."""

from __future__ import annotations

from collections import Counter

from eval.core import markdown as md
from eval.core.classification import Classification
from eval.core.figures import interval, pct
from eval.sql.model.outcome import ANSWERABLE_VERDICTS, SQLOutcome, breakdown, strata, two_by_two
from eval.sql.model.run import SQLRun
from eval.sql.report._markdown_judge import judge_section
from eval.sql.report._markdown_run import cohort_line, costs_section, repeats_section


def _baseline_verdict(report: SQLRun, o: SQLOutcome) -> str | None:
    c = report.classified(o)
    return None if c is None else c.baseline_verdict


def _sql_header(report: SQLRun) -> list[str]:
    run = report.run
    where = [f"fixtures {md.escape(', '.join(run.get('fixtures') or []) or '-')}"]
    if run.get("seed") is not None:
        where.append(f"{run.get('rotations')} rotation(s) from seed {run.get('seed')}")
    elif not run.get("db_dir"):
        where.append(f"{run.get('rotations')} database")
    if run.get("db_dir"):
        names = [k for k in run.get("databases") or {} if str(k).startswith("db:")]
        where.append(f"{len(names)} database(s) of --db-dir {md.escape(run['db_dir'])}/ (one file each, no rotations)")
    return [
        f"# SQL answer-accuracy report ({md.escape(report.generated_at)})",
        "",
        *[f"> **{md.escape(w)}**\n" for w in report.warnings],
        f"Candidate **{md.escape(report.candidate_path)}**, model **{md.escape(report.model)}** · engine "
        f"{md.escape(run.get('engine'))} · {' · '.join(where)}  ",
        f"Corpus: {report.corpus.get('size')} questions in {len(report.corpus.get('files', []))} file(s), "
        f"digest `{str(report.corpus.get('digest', ''))[:16]}`",
        "",
        *cohort_line(report),
    ]


def _sql_headline(report: SQLRun) -> list[str]:
    s = report.summary
    grid = two_by_two(report.outcomes)
    rows = [
        [f"answerable ({s['answerable']})", *(str(grid["answerable"][k]) for k in grid["answerable"])],
        [f"must refuse ({s['must_refuse']})", *(str(grid["must_refuse"][k]) for k in grid["must_refuse"])],
    ]
    out = [
        "## The 2x2",
        "",
        md.table(["", "returned a number", "declined", "error (no number)", "unmeasured"], rows),
        "",
        "## Verdicts",
        "",
        md.table(
            ["pass", "wrong", "error", "refused", "unmeasured", "pass rate"],
            [
                [
                    str(s["pass"]),
                    str(s["wrong"]),
                    str(s["error"]),
                    str(s["refused"]),
                    str(s["unmeasured"]),
                    f"{pct(s['pass_rate'])} ({s['pass']}/{s['answerable'] - s['unmeasured']}; "
                    f"95% CI {interval(s['pass_rate_ci'])})",
                ]
            ],
        ),
        "",
    ]
    if s["must_refuse"]:
        out += [
            f"Refusal recall **{pct(s['refusal_recall'])}** (95% CI {interval(s['refusal_recall_ci'])}; "
            f"{s['correct_refusals']} of {s['must_refuse']} "
            f"must-refuse cases declined, {s['refusals_by_guard']} of them by the read-only guard); "
            f"over-refusals **{s['over_refusals']} of {s['controls']}** controls; "
            f"{s['declined_answerable']} answerable question(s) declined in all.",
            "",
        ]
    return out + _answerable_strata(report)


def _answerable_strata(report: SQLRun) -> list[str]:
    """Per stratum of answerable questions, counts (a stratum may be two cases wide: no rates)."""
    columns = [v.value for v in ANSWERABLE_VERDICTS]
    rows = [
        [md.escape(name), str(c["cases"]), *(str(c.get(v, 0)) for v in columns)]
        for name, c in strata(report.outcomes).items()
        if "correct_refusals" not in c
    ]
    out = (
        ["### Answerable questions per stratum", "", md.table(["stratum", "cases", *columns], rows), ""] if rows else []
    )
    for by, title in (("database", "database"), ("difficulty", "difficulty (the benchmark's own label)")):
        counts = breakdown(report.outcomes, "database" if by == "database" else "difficulty")
        if counts:
            table = [[md.escape(k), str(c["cases"]), *(str(c[v]) for v in columns)] for k, c in counts.items()]
            out += [f"### Answerable questions per {title}", "", md.table([by, "cases", *columns], table), ""]
    return out


def _sql_regressions(report: SQLRun) -> list[str]:
    out = ["## Regressions", ""]
    if report.baseline is None:
        return out + [
            "No baseline for this candidate path and model: nothing to classify against "
            "(record one with `--record-baseline`).",
            "",
        ]
    out.append(
        f"Against the baseline recorded {md.escape(report.baseline.get('recorded_at'))} "
        f"(`{md.escape(report.baseline.get('path'))}`):"
    )
    out.append("")
    counts = Counter(c.classification.value for c in report.classes.values())
    out += [md.table([c.value for c in Classification], [[str(counts.get(c.value, 0)) for c in Classification]]), ""]
    regressed = report.by_classification(Classification.REGRESSION)
    out += [
        f"- **{md.escape(o.question_id)}**: was {md.escape(_baseline_verdict(report, o))}, now {o.verdict.value}"
        + (f" ({md.escape(o.reason)})" if o.reason else "")
        for o in regressed
    ] or ["None."]
    return out + [""]


def _sql_gate(report: SQLRun) -> list[str]:
    if report.gate is None:
        return ["## Gate: not evaluated", "", md.escape(report.gate_note or "no baseline"), ""]
    mode = "enforced (--fail-on-regression)" if report.gated else "informational; enforced with --fail-on-regression"
    out = [f"## Gate: {md.escape(report.gate.status.upper())} ({mode})", ""]
    out += [
        md.table(
            ["check", "ok", "detail"],
            [[md.escape(c.name), "yes" if c.ok else "NO", md.escape(c.detail)] for c in report.gate.checks],
        ),
        "",
    ]
    return out


def _sql_refusals(report: SQLRun) -> list[str]:
    refuse = [o for o in report.outcomes if o.expect == "refuse"]
    controls = [o for o in report.outcomes if o.is_control]
    if not refuse and not controls:
        return []
    out = ["## Refusal battery", ""]
    missed = [o for o in refuse if o.missed_refusal]
    out += [
        "Missed refusals (answered or failed where the system should have declined): "
        + (", ".join(f"**{md.escape(o.question_id)}** ({o.verdict.value})" for o in missed) or "none"),
        "",
    ]
    by_guard = [o for o in refuse if o.declined_by == "guard"]
    if by_guard:
        out += [
            "Declined by the read-only guard, not the generator (the generator produced SQL the guard "
            "blocked): " + ", ".join(f"**{md.escape(o.question_id)}**" for o in by_guard),
            "",
        ]
    by_stratum = strata(report.outcomes)
    rows = []
    for name, c in by_stratum.items():
        if "correct_refusals" in c:
            rows.append(
                [
                    md.escape(name),
                    "must refuse",
                    str(c["cases"]),
                    f"{c['correct_refusals']} declined",
                    str(c["cases"] - c["correct_refusals"]),
                ]
            )
        elif "over_refusals" in c:
            rows.append(
                [
                    md.escape(name),
                    "control",
                    str(c["cases"]),
                    f"{c.get('pass', 0)} pass",
                    f"{c['over_refusals']} over-refused",
                ]
            )
    out += [md.table(["stratum", "arm", "cases", "good", "bad"], rows), ""]
    return out


def _sql_failures(report: SQLRun) -> list[str]:
    failing = report.failing
    out = [f"## Failing questions ({len(failing)})", ""]
    for o in failing:
        head = f"### {md.escape(o.question_id)}: {o.verdict.value}"
        if o.reason:
            head += f" ({md.escape(o.reason)})"
        out += [head, ""]
        if o.question:
            out.append(f"Question: {md.escape(o.question, limit=400)}  ")
        meta = f"Stratum {md.escape(o.stratum)}, expect {o.expect}"
        classified = report.classified(o)
        if classified is not None:
            meta += f", {classified.classification.value}"
        out.append(meta + "  ")
        if o.detail:
            out.append(f"Detail: {md.escape(o.detail, limit=600)}")
        out.append("")
        if o.sql:
            out += [md.code_block(o.sql, "sql"), ""]
    return out


def _sql_appendix(report: SQLRun) -> list[str]:
    out: list[str] = []
    if report.oracle_defects:
        out += [
            "## Oracle defects (questions not graded)",
            "",
            md.table(
                ["question", "defect", "detail"],
                [
                    [md.escape(d.get("question_id")), md.escape(d.get("kind")), md.escape(d.get("detail"), limit=300)]
                    for d in report.oracle_defects
                ],
            ),
            "",
        ]
    out += [
        "## Corpus stamps",
        "",
        md.table(
            ["file", "sha256", "questions"],
            [[md.escape(f["path"]), f"`{f['sha256']}`", str(f["questions"])] for f in report.corpus.get("files", [])],
        ),
        "",
        f"Corpus digest `{report.corpus.get('digest')}`, {report.corpus.get('size')} questions.",
        "",
    ]
    return out


def to_markdown(report: SQLRun, *, details: bool = True) -> str:
    """What a developer acts on first: the 2x2, verdicts, regressions; then every failure.

    ``details=False``: the summary alone (a CI job summary), with the failing questions counted.
    """
    head = (
        _sql_header(report)
        + _sql_headline(report)
        + repeats_section(report)
        + _sql_regressions(report)
        + _sql_gate(report)
    )
    if not details:
        failing = len(report.failing)
        return "\n".join([*head, f"{failing} failing question(s): the full report lists each.", ""])
    return "\n".join(
        head
        + _sql_refusals(report)
        + _sql_failures(report)
        + judge_section(report)
        + costs_section(report)
        + _sql_appendix(report)
    )
