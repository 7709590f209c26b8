"""Readers of a SQL run's rendered outputs: each takes one format's text and gives back the facts it shows,
in one shape (:func:`expected` gives the model's), so every format can be compared with the model.

A reader reads what a person or a tool would: the terminal's text as exported, Markdown's headings and
pipe tables (escapes undone), the HTML page's elements (by id and ``data-`` attribute), JUnit's
testcases and ``<properties>``, the JSON's keys. The sentences several formats share (costs, repeats)
are read by one pattern each. Nothing here renders, and no figure is worked out: a fact a format does not
show is missing from what its reader returns, and the comparison says so.
"""

from __future__ import annotations

import json
import re
from typing import Any

from eval.core import figures as fig
from eval.sql.model import codec
from eval.sql.model.run import SQLRun
from eval.sql.sections.counts import ANSWERABLE_COLUMNS
from eval.sql.sections.gate import check_status

Facts = dict[str, Any]

VERDICTS = list(ANSWERABLE_COLUMNS)
_LATENCY = re.compile(
    r"model latency over (\d+) asks \((\d+) per question, (\d+) questions\): p50 (.+?), p95 (.+?), total ([\d.,]+ s)",
    re.I,
)
_TOKENS = re.compile(r"tokens over (\d+) asks: ([\d,]+) in, ([\d,]+) out; cost ([\d.]+) at the configured prices", re.I)
_REPEATS = re.compile(
    r"(\d+) asks per question over (\d+) questions: majority pass rate (\S+) \(95% bootstrap CI (\S+)\), "
    r"pass@\d+ (\S+), pass\^\d+ (\S+), (\d+) flaky"
)
_RATE = re.compile(r"(\d+\.\d%|n/a) \((\d+/\d+)(?: measured)?[^;]*; 95% Wilson CI (\S+?)[);]")


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def costs_from(text: str) -> dict[str, tuple[str, ...]]:
    """The cost sentences every format writes (:mod:`eval.sql.sections.costs`), wherever they stand in ``text``."""
    out = {}
    if m := _LATENCY.search(_one_line(text)):
        out["latency"] = m.groups()
    if m := _TOKENS.search(_one_line(text)):
        out["tokens"] = m.groups()
    return out


def repeats_from(text: str) -> tuple[str, ...] | None:
    m = _REPEATS.search(_one_line(text))
    return None if m is None else m.groups()


_LINTS = re.compile(r"lints: (.+?)(?: \(\d+ question\(s\) not graded|; each is listed)")


def lints_from(text: str) -> dict[str, int]:
    """The lints' line every format writes (:func:`eval.sql.sections.lints.line`): questions per kind."""
    m = _LINTS.search(_one_line(re.sub(r"\\(.)", r"\1", text)))
    if m is None:
        return {}
    return {kind: int(n) for kind, n in (part.rsplit(" ", 1) for part in m.group(1).split(", "))}


def notes_from(text: str) -> tuple[bool, bool]:
    flat = _one_line(text)
    return fig.WILSON_NOTE in flat, fig.BOOTSTRAP_NOTE in flat


def counts(cells: dict[str, str]) -> dict[str, int]:
    return {k.replace("-", "_").replace(" ", "_"): int(v) for k, v in cells.items()}


def _figures(s: dict[str, Any], c: dict[str, Any], r: dict[str, Any]) -> Facts:
    """The summary's, the costs' and the repeats' facts as every format writes them (by the one formatter)."""
    lat, k = c["model_latency_ms"], r["k"]
    return {
        "pass_rate": (fig.pct(s["pass_rate"]), fig.of(s["pass"], s["measured"]), fig.interval(s["pass_rate_ci"])),
        "recall": (
            fig.pct(s["refusal_recall"]),
            fig.of(s["correct_refusals"], s["must_refuse_measured"]),
            fig.interval(s["refusal_recall_ci"]),
        ),
        "over_refusals": fig.of(s["over_refusals"], s["controls"]),
        "verdicts": {v: s[v] for v in VERDICTS},
        "costs": {
            "latency": (
                str(lat["asks"]), str(c["asks_per_question"]), str(lat["questions"]),
                fig.number(lat["p50"], " ms"), fig.number(lat["p95"], " ms"), fig.seconds(lat["total"]),
            ),
            "tokens": (
                str(c["tokens_asks"]), fig.number(c["prompt_tokens"]), fig.number(c["completion_tokens"]),
                fig.money(c["cost"]),
            ),
        },
        "repeats": (
            str(k), str(r["questions"]), fig.pct(r["majority_pass_rate"]), fig.interval(r["majority_pass_rate_ci"]),
            fig.pct(r[f"pass_at_{k}"]), fig.pct(r[f"pass_hat_{k}"]), str(len(r["flaky"])),
        ),
        "flaky": r["flaky"],
    }  # fmt: skip


def expected(run: SQLRun) -> Facts:
    """The facts as the run model holds them, in the shape the readers give (the model's values as data)."""
    assert run.costs is not None and run.repeats is not None, "the run of this test has costs and repeats"
    as_data = codec.to_json
    return _figures(as_data(run.summary), as_data(run.costs), as_data(run.repeats)) | {
        "gate": run.gate_view.status,
        "checks": {ch.name: check_status(ch.ok) for ch in run.gate_view.checks},
        "failing": [o.question_id for o in run.failing],
        "strata": {k: as_data(c) for k, c in run.answerable_strata.items()},
        "databases": {k: as_data(c) for k, c in run.databases.items()},
        "difficulties": {k: as_data(c) for k, c in run.difficulties.items()},
        "refusal_strata": {k: as_data(c) for k, c in run.refusal_strata.items()},
        "control_strata": {k: as_data(c) for k, c in run.control_strata.items()},
        "notes": (True, True),
        "lints": run.lint_counts,
    }


# --- JSON ---------------------------------------------------------------------------------------------


def from_json_text(text: str) -> Facts:
    """The JSON holds figures, not prose: no interval notes (``repeats.ci_method`` names the bootstrap's method)."""
    data = json.loads(text)
    gate = data["gate"]
    answerable = {k: v for k, v in data["strata"].items() if "correct_refusals" not in v}
    return _figures(data["summary"], data["costs"], data["repeats"]) | {
        "gate": gate["status"],
        "checks": {ch["name"]: check_status(ch["ok"]) for ch in gate["checks"]},
        "failing": data["failing"],
        "strata": {k: {"cases": v["cases"], **{x: v.get(x, 0) for x in VERDICTS}} for k, v in answerable.items()},
        "databases": data["databases"],
        "difficulties": data["difficulties"],
        "refusal_strata": data["refusal_strata"],
        "control_strata": data["control_strata"],
        "lints": data.get("lint_counts", {}),
    }


# --- Markdown (the report, and the GitHub job summary) -------------------------------------------------


def _unescape(cell: str) -> str:
    return re.sub(r"\\(.)", r"\1", cell.strip())


def md_sections(text: str) -> dict[str, list[str]]:
    """Heading (escapes undone) -> the lines under it, up to the next heading."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("#"):
            current = _unescape(line.lstrip("#").strip())
            out[current] = []
        else:
            out.setdefault(current, []).append(line)
    return out


def md_table(lines: list[str]) -> list[dict[str, str]]:
    rows = [
        [_unescape(c) for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]] for line in lines if line.startswith("|")
    ]
    if not rows:
        return []
    header, body = rows[0], [r for r in rows[2:]]
    return [dict(zip(header, r)) for r in body]


def _keyed(rows: list[dict[str, str]], key: str) -> dict[str, dict[str, int]]:
    return {row.pop(key): counts(row) for row in rows}


def _heading(sections: dict[str, list[str]], prefix: str) -> tuple[str, list[str]]:
    found = [(h, lines) for h, lines in sections.items() if h.startswith(prefix)]
    assert len(found) == 1, f"one heading starting {prefix!r}: {[h for h, _ in found]}"
    return found[0]


def _md_failing(text: str) -> list[str]:
    """The ids of the failing questions: the sections under ``## Failing questions`` (the full report), or
    the one line of ids (the job summary)."""
    part = text[text.index("\n## Failing questions (") + 1 :]
    part = part[: part.find("\n## ", 1)] if "\n## " in part[1:] else part
    sections = re.findall(r"^### (.+): [a-z]+(?: \(.+\))?$", part, re.M)
    if sections:
        return [_unescape(s) for s in sections]
    line = next(x for x in part.splitlines()[1:] if x.strip())
    return [_unescape(x) for x in re.findall(r"\*\*(.+?)\*\* \(", line)]


def from_markdown(text: str) -> Facts:
    sec = md_sections(text)
    (verdicts,) = md_table(sec["Verdicts"])
    rate = _RATE.search(verdicts.pop("pass rate"))
    under = "\n".join(sec["Verdicts"])
    recall = re.search(r"Refusal recall \*\*(\S+)\*\* \((\d+/\d+) [^;]*; 95% Wilson CI (\S+?);", under)
    over = re.search(r"over-refusals \*\*(\d+/\d+)\*\* controls", under)
    gate_heading, gate_lines = _heading(sec, "Gate: ")
    repeats_heading, repeats_lines = _heading(sec, "Repeats (")
    (rep,) = md_table(repeats_lines)
    k, questions = re.findall(r"\((\d+) asks per question, over (\d+) ", repeats_heading)[0]
    flaky_line = next(x for x in repeats_lines if x.startswith("Flaky"))
    return {
        "pass_rate": rate.groups() if rate else None,
        "recall": recall.groups() if recall else None,
        "over_refusals": over.group(1) if over else None,
        "verdicts": counts(verdicts),
        "gate": gate_heading.split()[1].lower(),
        "checks": {row["check"]: row["ok"] for row in md_table(gate_lines)},
        "failing": _md_failing(text),
        "strata": _keyed(md_table(sec.get("Answerable questions per stratum", [])), "stratum"),
        "databases": _keyed(md_table(sec.get("Answerable questions per database", [])), "database"),
        "difficulties": _keyed(
            md_table(sec.get("Answerable questions per difficulty (the benchmark's own label)", [])), "difficulty"
        ),
        "refusal_strata": _keyed(md_table(sec.get("Must-refuse questions per stratum", [])), "stratum"),
        "control_strata": _keyed(md_table(sec.get("Controls per stratum", [])), "stratum"),
        "costs": costs_from("\n".join(sec.get("Time and cost", []))),
        "repeats": (
            k,
            questions,
            rep["majority pass rate"],
            rep[fig.BOOTSTRAP],
            rep[f"pass@{k}"],
            rep[f"pass^{k}"],
            rep["flaky questions"],
        ),
        "flaky": [_unescape(x) for x in re.findall(r"\*\*(.+?)\*\*", flaky_line)],
        "notes": notes_from(text),
        "lints": lints_from("\n".join(sec["Verdicts"])),
    }


# --- the terminal (rich's text, as recorded) ----------------------------------------------------------


def term_table(text: str, title: str) -> list[dict[str, str]]:
    """The rows of the table titled ``title`` (a row folded over several lines is read by its first line)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == title]
    if not starts:
        return []
    header = [c.strip() for c in lines[starts[0] + 1].split("│")]
    rows = []
    for line in lines[starts[0] + 3 :]:
        if "│" not in line:
            break
        cells = [c.strip() for c in line.split("│")]
        if cells[0]:
            rows.append(dict(zip(header, cells)))
    return rows


def _term_counts(text: str, title: str, key: str) -> dict[str, dict[str, int]]:
    return _keyed(term_table(text, title), key)


def from_terminal(text: str) -> Facts:
    flat = _one_line(text)
    rate = re.search(r"pass rate (\S+) \((\d+/\d+); 95% Wilson CI ([^\s;)]+)(?:; .*?)?\)(?:\s|$)", flat)
    recall = re.search(r"refusal recall (\S+) \((\d+/\d+); 95% Wilson CI (\S+)\)", flat)
    over = re.search(r"over-refusals (\d+/\d+) controls", flat)
    counts = re.search(r"answerable \d+: " + ", ".join(rf"{v} (\d+)" for v in VERDICTS), flat)
    gate = re.search(r"gate (\w+) \((?:enforced|informational)\)", flat)
    flaky = re.search(r"\d+ flaky: (.+?) 95% Wilson CI:", flat)
    failing_title = next((line.strip() for line in text.splitlines() if line.startswith("Failing questions (")), "")
    return {
        "pass_rate": rate.groups() if rate else None,
        "recall": recall.groups() if recall else None,
        "over_refusals": over.group(1) if over else None,
        "verdicts": dict(zip(VERDICTS, map(int, counts.groups()))) if counts else None,
        "gate": gate.group(1) if gate else None,
        "checks": {row["check"]: row["ok"] for row in term_table(text, "Gate checks")},
        "failing": [row["question"] for row in term_table(text, failing_title)] if failing_title else [],
        "strata": _term_counts(text, "Answerable questions per stratum", "stratum"),
        "databases": _term_counts(text, "Answerable questions per database", "database"),
        "difficulties": _term_counts(
            text, "Answerable questions per difficulty (the benchmark's own label)", "difficulty"
        ),
        "refusal_strata": _term_counts(text, "Must-refuse questions per stratum", "stratum"),
        "control_strata": _term_counts(text, "Controls per stratum", "stratum"),
        "costs": costs_from(text),
        "repeats": repeats_from(text),
        "flaky": flaky.group(1).split(", ") if flaky else None,
        "notes": notes_from(text),
        "lints": lints_from(text),
    }
