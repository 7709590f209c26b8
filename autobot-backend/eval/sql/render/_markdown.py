"""The Markdown report: what a developer acts on first (the 2x2, verdicts, regressions), then
every failing question. Untrusted text (ids, questions, SQL, details) goes through
:mod:`eval.core.markdown`."""

from __future__ import annotations

from eval.core import figures as fig
from eval.core import markdown as md
from eval.sql.model.outcome import SQLOutcome
from eval.sql.model.run import SQLRun
from eval.sql.render import _diagnosis as diagnosis
from eval.sql.render import _exact as exact
from eval.sql.render import _facts as facts
from eval.sql.render import _refuted as refuted
from eval.sql.render import _suspect as suspect
from eval.sql.render._markdown_judge import judge_line, judge_section
from eval.sql.render._markdown_run import cohort_line, costs_section, repeats_section, transcripts_line


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
        *[f"> **{md.escape(w)}**\n" for w in facts.notices(report)],
        f"Candidate **{md.escape(report.candidate_path)}**, model **{md.escape(report.model)}** · engine "
        f"{md.escape(run.get('engine'))} · {' · '.join(where)}  ",
        f"Corpus: {report.corpus.get('size')} questions in {len(report.corpus.get('files', []))} file(s), "
        f"digest `{str(report.corpus.get('digest', ''))[:16]}`",
        "",
        *cohort_line(report),
    ]


def _sql_headline(report: SQLRun) -> list[str]:
    s = report.summary
    grid = report.two_by_two
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
            [*facts.ANSWERABLE_COLUMNS, "pass rate"],
            [
                [
                    *(str(s[v]) for v in facts.ANSWERABLE_COLUMNS),
                    f"{fig.pct(s['pass_rate'])} ({fig.of(s['pass'], s['measured'])}; "
                    f"{fig.WILSON} {fig.interval(s['pass_rate_ci'])}{facts.not_gradeable(report)})",
                ]
            ],
        ),
        "",
    ]
    lints = facts.lint_line(report)
    if lints is not None:
        out += [f"**{md.escape(lints)}**", ""]
    if s["must_refuse"]:
        declined = fig.of(s["correct_refusals"], s["must_refuse_measured"])
        recall = f"{fig.WILSON} {fig.interval(s['refusal_recall_ci'])}"
        out += [
            f"Refusal recall **{fig.pct(s['refusal_recall'])}** ({declined} measured must-refuse cases declined, "
            f"{s['refusals_by_guard']} of them by the read-only guard; {recall}; {s['missed_refusals']} missed, "
            f"{s['must_refuse_unmeasured']} unmeasured); over-refusals **{fig.of(s['over_refusals'], s['controls'])}** "
            f"controls; {s['declined_answerable']} answerable question(s) declined in all.",
            "",
        ]
    out += [f"*{md.escape(note)}.*" for note in facts.interval_notes(report)[:1]] + [""]
    return out + _breakdowns(report)


def _breakdowns(report: SQLRun) -> list[str]:
    """Answerable questions per stratum, database and difficulty, as counts (a stratum may be two cases wide:
    no rates), each when the run has it."""
    out: list[str] = []
    columns = facts.ANSWERABLE_COLUMNS
    for _, column, title, counts in facts.breakdowns(report):
        rows = [[md.escape(k), str(c["cases"]), *(str(c[v]) for v in columns)] for k, c in counts.items()]
        out += [f"### {title}", "", md.table([column, "cases", *columns], rows), ""]
    return out


def _exact_match(report: SQLRun) -> list[str]:
    """Spider's EM by difficulty beside execution accuracy, when the run has it (a section of its own)."""
    line = exact.headline(report)
    if line is None:
        return []
    parts = " · ".join(f"{md.escape(name)} {rate}" for name, rate in exact.components(report))
    return [
        f"## {exact.TITLE}",
        "",
        f"{line}. {exact.NOTE}",
        "",
        md.table(list(exact.COLUMNS), [[md.escape(row[0]), *row[1:]] for row in exact.rows(report)]),
        "",
        f"Per component (share of measured answers matching it): {parts}",
        "",
    ]


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
    counts = report.classification_counts
    out += [md.table(list(counts), [[str(n) for n in counts.values()]]), ""]
    regressed = report.regressions
    out += [
        f"- **{md.escape(o.question_id)}**: was {md.escape(_baseline_verdict(report, o))}, now {o.verdict.value}"
        + (f" ({md.escape(o.reason)})" if o.reason else "")
        for o in regressed
    ] or ["None."]
    return out + [""]


def _sql_gate(report: SQLRun) -> list[str]:
    g = report.gate_view
    if g["status"] == "not_evaluated":
        return ["## Gate: not evaluated", "", md.escape(g["detail"] or "no baseline"), ""]
    mode = "enforced (--fail-on-regression)" if g["enforced"] else "informational; enforced with --fail-on-regression"
    rows = [[md.escape(c["name"]), facts.check_status(c["ok"]), md.escape(c["detail"])] for c in g["checks"]]
    return [f"## Gate: {md.escape(g['status'].upper())} ({mode})", "", md.table(["check", "ok", "detail"], rows), ""]


def _sql_refusals(report: SQLRun) -> list[str]:
    refuse, controls = report.refusal_strata, report.control_strata
    if not refuse and not controls:
        return []
    missed = [o for o in report.outcomes if o.missed_refusal]
    out = [
        "## Refusal battery",
        "",
        "Missed refusals (answered or failed where the system should have declined): "
        + (", ".join(f"**{md.escape(o.question_id)}** ({o.verdict.value})" for o in missed) or "none"),
        "",
    ]
    if report.declined_by_guard:
        out += [
            "Declined by the read-only guard, not the generator (the generator produced SQL the guard "
            "blocked): " + ", ".join(f"**{md.escape(q)}**" for q in report.declined_by_guard),
            "",
        ]
    if refuse:
        columns = facts.REFUSAL_COLUMNS
        rows = [[md.escape(k), str(c["cases"]), *(str(c[v]) for v in columns)] for k, c in refuse.items()]
        out += ["### Must-refuse questions per stratum", "", md.table(["stratum", "cases", *columns], rows), ""]
    if controls:
        rows = [[md.escape(k), str(c["cases"]), str(c["pass"]), str(c["over_refused"])] for k, c in controls.items()]
        out += ["### Controls per stratum", "", md.table(["stratum", "cases", "pass", "over-refused"], rows), ""]
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
        out += suspect.markdown_flags(report, o.question_id)
        out.append("")
        out += diagnosis.markdown_lines(o)
        if o.sql:
            out += ["Candidate's SQL:", "", md.code_block(o.sql, "sql"), ""]
        if o.reference_sql:
            out += ["Reference SQL:", "", md.code_block(o.reference_sql, "sql"), ""]
    return out


def _sql_appendix(report: SQLRun) -> list[str]:
    out: list[str] = []
    if report.lints:
        out += [
            f"## Lints ({len(report.lints)})",
            "",
            md.table(
                ["question", "where", "lint", "detail"],
                [
                    [md.escape(x.question_id), md.escape(x.where), md.escape(x.kind), md.escape(x.detail, limit=300)]
                    for x in report.lints
                ],
            ),
            "",
        ]
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


def failing_ids(report: SQLRun) -> list[str]:
    """Every failing question by id on one line (the job summary's list: the full sections may not fit it)."""
    failing = report.failing
    ids = ", ".join(f"**{md.escape(o.question_id)}** ({o.verdict.value})" for o in failing)
    where = "The full report (--markdown or --html) has each one's question, detail, SQL and the reference's."
    return [f"## Failing questions ({len(failing)})", "", ids or "None.", "", *([where, ""] if failing else [])]


def to_markdown(report: SQLRun, *, details: bool = True) -> str:
    """What a developer acts on first: the 2x2, verdicts, regressions, the gate; then every failure.

    ``details=False``: the summary (a CI job summary): the same figures, the refusal battery and the costs,
    and the failing questions by id only, the full report holding each one's question, detail and SQL.
    """
    head = (
        _sql_header(report)
        + _sql_headline(report)
        + _exact_match(report)
        + repeats_section(report)
        + _sql_regressions(report)
        + _sql_gate(report)
        + _sql_refusals(report)
        + suspect.markdown_section(report)
        + refuted.markdown_section(report, details=details)
    )
    if not details:
        why = diagnosis.markdown_section(report, lines=True)
        return "\n".join(head + why + costs_section(report) + judge_line(report) + failing_ids(report))
    why = diagnosis.markdown_section(report)
    return "\n".join(
        head
        + why
        + _sql_failures(report)
        + judge_section(report)
        + costs_section(report)
        + transcripts_line(report)
        + _sql_appendix(report)
    )
