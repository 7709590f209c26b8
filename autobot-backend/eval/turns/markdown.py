"""The turns suite's Markdown: who judged, the distribution, bands, caps and disagreements, calibration,
drift, then every turn with its arithmetic. Untrusted text (ids, reasons, explanations, names) goes
through :mod:`eval.core.markdown`."""

from __future__ import annotations

from typing import Any

from eval.core import markdown as md
from eval.turns.report import TurnsReport
from eval.turns.rubric import BANDS, CAPS, DIMENSIONS, GOOD_FROM, PARTIAL_FROM

_SHORT = {"intent": "I", "sql_quality": "S", "result_relevance": "R", "answer_faithfulness": "F"}


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:g}"


def _header(report: TurnsReport) -> list[str]:
    j, src = report.judge, report.source
    mode = (
        "replies constrained by a JSON schema, and validated"
        if j.get("output_mode") == "json_schema"
        else f"replies validated only ({md.escape(j.get('schema_note') or 'no schema', limit=300)})"
    )
    out = [f"# Turns judged without a reference ({md.escape(report.generated_at)})", ""]
    out += [f"> **{md.escape(w)}**\n" for w in report.warnings]
    out += [
        f"Judge **{md.escape(j.get('model'))}** at {md.escape(j.get('endpoint'))} · rubric "
        f"**{md.escape(j.get('rubric_version'))}** (prompt sha256 `{md.escape(str(j.get('prompt_sha256'))[:16])}`) "
        f"· {mode}  ",
        f"Turns: {src.get('turns')} from {md.escape(src.get('path'))} ({md.escape(src.get('kind'))}, sha256 "
        f"`{md.escape(str(src.get('sha256'))[:16])}`)",
        "",
    ]
    return out


def _scores(report: TurnsReport) -> list[str]:
    s = report.summary
    d = s["distribution"]
    out = [
        "## Scores (composite out of 100)",
        "",
        md.table(
            ["turns", "scored", "unmeasured", "mean", "median", "p25", "p75", "min", "max"],
            [
                [str(s["turns"]), str(s["scored"]), str(s["unmeasured"])]
                + [_num(d[k]) for k in ("mean", "median", "p25", "p75", "min", "max")]
            ],
        ),
        "",
        md.table(
            [f"{h['from']}-{h['to'] - 1 if h['to'] < 100 else 100}" for h in s["histogram"]],
            [[str(h["count"]) for h in s["histogram"]]],
        ),
        "",
        "## Bands",
        "",
        f"good: composite at least {GOOD_FROM}; partial: at least {PARTIAL_FROM}; poor: below. "
        f"{s['band_disagreements']} turn(s) where the judge's own band differs from the composite's.",
        "",
        md.table(
            ["band", "composite band", "judge's own band"],
            [[b, str(s["bands"][b]), str(s["judge_bands"][b])] for b in BANDS],
        ),
        "",
        "## Caps",
        "",
        md.table(
            ["cap", "limit", "applied", "lowered the score", "when"],
            [
                [c.name, str(c.limit), str(s["caps"][c.name]["applied"]), str(s["caps"][c.name]["binding"]), c.rule]
                for c in CAPS
            ],
        ),
        "",
    ]
    disagree = [j for j in report.judgements if j.arithmetic is not None and not j.arithmetic.band_agrees]
    out += [f"## Band disagreements ({len(disagree)})", ""]
    if disagree:
        out += [
            md.table(
                ["turn", "judge's band", "composite band", "composite", "caps"],
                [
                    [
                        md.escape(j.turn.turn_id),
                        j.arithmetic.judge_band,
                        j.arithmetic.band,
                        _num(float(j.arithmetic.composite)),
                        ", ".join(c.name for c in j.arithmetic.caps) or "-",
                    ]
                    for j in disagree
                    if j.arithmetic is not None
                ],
            ),
            "",
        ]
    else:
        out += ["None.", ""]
    return out


def _calibration(report: TurnsReport) -> list[str]:
    c = report.calibration
    target = c.get("target_kappa")
    if c.get("status") != "calibrated":
        why = "no labelled turn was scored" if c.get("labels") else "no human labels were given (`--labels FILE`)"
        return [
            "## Calibration: UNCALIBRATED",
            "",
            f"How far this judge agrees with people is unknown: {why}. The method's target is Cohen's kappa "
            f"of at least {target} between the composite's band and a human's band.",
            "",
        ]
    meets = {True: "meets the target", False: "BELOW the target", None: "kappa undefined"}[c.get("meets_target")]
    out = [
        f"## Calibration against {md.escape(c.get('labels_file'))}",
        "",
        md.table(
            [
                "labelled turns scored",
                "Spearman rho (scores)",
                "Cohen's kappa (bands)",
                "kappa, judge's own band",
                "target",
                "reading",
            ],
            [
                [
                    str(c["pairs"]),
                    _num(c["spearman_rho"]),
                    _num(c["kappa"]),
                    _num(c["kappa_judge_band"]),
                    f"kappa >= {target}",
                    meets,
                ]
            ],
        ),
        "",
    ]
    for key, what in (("not_in_run", "labels for turns not in this run"), ("not_scored", "labelled but unmeasured")):
        if c.get(key):
            out += [f"{what.capitalize()}: " + ", ".join(md.escape(t) for t in c[key][:20]), ""]
    return out


def _drift(report: TurnsReport) -> list[str]:
    d = report.drift
    if not d:
        return []
    stored, now = d["stored_judge"], d["judge"]
    out = [
        "## Drift against the stored scores",
        "",
        f"Stored: {md.escape(stored.get('model'))} / {md.escape(stored.get('rubric_version'))}; now: "
        f"{md.escape(now.get('model'))} / {md.escape(now.get('rubric_version'))}"
        + (" (the same judge)" if d["same_judge"] else " (another judge: compared turn by turn, never pooled)"),
        "",
        md.table(
            [
                "compared",
                "mean change",
                "mean absolute change",
                "largest",
                "band changes",
                "kappa (bands)",
                "Spearman rho",
                f"moved down (band, or > {d['tolerance']:g} points)",
            ],
            [
                [
                    str(d["compared"]),
                    _num(d["mean_delta"]),
                    _num(d["mean_abs_delta"]),
                    _num(d["max_abs_delta"]),
                    str(d["band_changes"]),
                    _num(d["band_kappa"]),
                    _num(d["spearman_rho"]),
                    str(len(d["moved_down"])),
                ]
            ],
        ),
        "",
    ]
    moved = [r for r in d["turns"] if r["stored_band"] != r["band"] or r["moved_down"]]
    if moved:
        out += [
            md.table(
                ["turn", "stored", "now", "change", "band then", "band now"],
                [
                    [
                        md.escape(r["turn_id"]),
                        _num(r["stored"]),
                        _num(r["now"]),
                        _num(r["delta"]),
                        r["stored_band"],
                        r["band"],
                    ]
                    for r in moved
                ],
            ),
            "",
        ]
    if d["not_compared"]:
        out += [
            "Not compared: "
            + "; ".join(f"{md.escape(x['turn_id'])} ({md.escape(x['why'], limit=160)})" for x in d["not_compared"]),
            "",
        ]
    return out


def _gate(report: TurnsReport) -> list[str]:
    g = report.gate
    if not g:
        return []
    return [
        f"## Gate: {g['status'].upper()}",
        "",
        md.table(
            ["check", "ok", "detail"],
            [[md.escape(c["name"]), "yes" if c["ok"] else "NO", md.escape(c["detail"])] for c in g["checks"]],
        ),
        "",
    ]


def _turns(report: TurnsReport) -> list[str]:
    unmeasured = [j for j in report.judgements if not j.scored]
    out = [f"## Unmeasured turns ({len(unmeasured)})", ""]
    out += [f"- **{md.escape(j.turn.turn_id)}**: {md.escape(j.reason, limit=400)}" for j in unmeasured] or ["None."]
    out += ["", "## Every scored turn", ""]
    rows = []
    for j in report.judgements:
        a = j.arithmetic
        if a is None or j.reply is None:
            continue
        parts = " + ".join(
            f"{_SHORT[d.name]} {d.used}x{float(d.effective_weight):g}" for d in a.dimensions if d.used is not None
        )
        rows.append(
            [
                md.escape(j.turn.turn_id),
                parts,
                _num(float(a.pre_cap)),
                ", ".join(f"{c.name} <= {c.limit}" for c in a.caps) or "-",
                _num(float(a.composite)),
                a.band,
                a.judge_band,
                md.escape(j.reply.explanation, limit=300),
            ]
        )
    header = ["turn", "subscore x weight (x10)", "pre-cap", "caps", "composite", "band", "judge's band", "why"]
    out += [md.table(header, rows) if rows else "None.", ""]
    legend = ", ".join(f"{_SHORT[d]} {d.replace('_', ' ')}" for d in DIMENSIONS)
    return out + [f"Dimensions: {legend}; the full arithmetic of every turn is in the JSON report.", ""]


def to_markdown(report: TurnsReport) -> str:
    parts = _header(report) + _scores(report) + _calibration(report) + _drift(report) + _gate(report)
    return "\n".join(parts + _turns(report))
