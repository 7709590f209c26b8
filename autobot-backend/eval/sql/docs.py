"""The two pages the suite keeps true: the dated accuracy record and the methodology's stamps.

``docs/eval/sql-accuracy.md`` gains a row only through ``--record-accuracy`` (numbers are
measured, never typed), and with it a block of that run's per-stratum counts. A row is
``provisional`` until a later run on the same corpus digest, candidate path, model, engine and
rotations agrees with it on every figure; that later row says ``confirmed``.
``docs/eval/sql-methodology.md`` carries the corpus stamps between markers;
``python -m eval.sql.docs --update-stamps`` rewrites them and a docs test fails when they drift.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eval import markdown as md
from eval.errors import HarnessError
from eval.output import write_atomically
from eval.sql.corpus import Corpus
from eval.sql.outcome import Verdict, strata
from eval.sql.report import SQLReport

REPO_ROOT = Path(__file__).resolve().parents[3]
ACCURACY_PAGE = REPO_ROOT / "docs" / "eval" / "sql-accuracy.md"
METHODOLOGY_PAGE = REPO_ROOT / "docs" / "eval" / "sql-methodology.md"
RECORD_START, RECORD_END = "<!-- accuracy-record:start -->", "<!-- accuracy-record:end -->"
STRATA_START, STRATA_END = "<!-- accuracy-strata:start -->", "<!-- accuracy-strata:end -->"
STAMPS_START, STAMPS_END = "<!-- corpus-stamps:start -->", "<!-- corpus-stamps:end -->"
NEAR_MISS_START, NEAR_MISS_END = "<!-- near-miss:start -->", "<!-- near-miss:end -->"
DIGEST_CHARS = 16

RECORD_COLUMNS = [
    "date",
    "corpus digest",
    "questions",
    "candidate",
    "model",
    "engine",
    "rotations",
    "pass",
    "wrong",
    "error",
    "refused",
    "unmeasured",
    "pass rate",
    "refusal recall",
    "over-refusals",
    "status",
]
# Columns that must agree for a second run to confirm a first.
_IDENTITY = ("corpus digest", "questions", "candidate", "model", "engine", "rotations")
_FIGURES = ("pass", "wrong", "error", "refused", "unmeasured", "pass rate", "refusal recall", "over-refusals")


class DocsError(HarnessError):
    """A docs page is missing its markers or its table is unreadable."""


def _block(text: str, start: str, end: str, page: Path) -> tuple[int, int]:
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        raise DocsError(f"{page}: markers {start} ... {end} not found; restore them to let the suite maintain the page")
    return i + len(start), j


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_record(page: Path = ACCURACY_PAGE) -> list[dict[str, str]]:
    """The accuracy record's rows, oldest first."""
    text = page.read_text(encoding="utf-8")
    a, b = _block(text, RECORD_START, RECORD_END, page)
    rows = []
    for line in text[a:b].splitlines():
        if not line.strip().startswith("|") or set(line.replace("|", "").strip()) <= {"-", " "}:
            continue
        cells = _cells(line)
        if cells == RECORD_COLUMNS:
            continue
        if len(cells) != len(RECORD_COLUMNS):
            raise DocsError(
                f"{page}: record row has {len(cells)} cells, expected {len(RECORD_COLUMNS)}: {line.strip()}"
            )
        rows.append(dict(zip(RECORD_COLUMNS, (c.strip("`") for c in cells))))
    return rows


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def record_row(report: SQLReport) -> dict[str, str]:
    s = report.summary
    return {
        "date": report.generated_at[:10],
        "corpus digest": str(report.corpus["digest"])[:DIGEST_CHARS],
        "questions": str(report.corpus["size"]),
        "candidate": report.candidate_path,
        "model": report.model,
        "engine": str(report.run.get("engine")),
        "rotations": str(report.run.get("rotations")),
        "pass": str(s["pass"]),
        "wrong": str(s["wrong"]),
        "error": str(s["error"]),
        "refused": str(s["refused"]),
        "unmeasured": str(s["unmeasured"] + s["must_refuse_unmeasured"]),
        "pass rate": f"{_pct(s['pass_rate'])} ({s['pass']}/{s['answerable'] - s['unmeasured']})",
        "refusal recall": "n/a"
        if not s["must_refuse"]
        else f"{_pct(s['refusal_recall'])} ({s['correct_refusals']}/{s['must_refuse'] - s['must_refuse_unmeasured']})",
        "over-refusals": "n/a" if not s["controls"] else f"{s['over_refusals']}/{s['controls']}",
        "status": "provisional",
    }


NEW_PAGE = f"""# SQL accuracy record

Dated figures of runs recorded with `--record-accuracy`, measured by the suite, never typed.

{RECORD_START}
{RECORD_END}

## Per stratum

{STRATA_START}
{STRATA_END}
"""


def ensure_page(page: Path) -> None:
    """A user's own record starts as an empty page with the markers the suite keeps it between."""
    if not page.exists():
        write_atomically(page, NEW_PAGE)


def append_record(report: SQLReport, page: Path = ACCURACY_PAGE) -> dict[str, str]:
    """Append this run's row; it is confirmed when the latest earlier row of the same identity agrees."""
    text = page.read_text(encoding="utf-8")
    rows = read_record(page)
    row = record_row(report)
    same = [r for r in rows if all(r[k] == row[k] for k in _IDENTITY)]
    if same and all(same[-1][k] == row[k] for k in _FIGURES):
        row["status"] = f"confirmed (agrees with {same[-1]['date']})"
    _, end = _block(text, RECORD_START, RECORD_END, page)
    fmt = {"corpus digest"}
    line = "| " + " | ".join(f"`{row[c]}`" if c in fmt else row[c].replace("|", "/") for c in RECORD_COLUMNS) + " |\n"
    body = text[:end]
    if not rows:
        header = "| " + " | ".join(RECORD_COLUMNS) + " |\n|" + "|".join("---" for _ in RECORD_COLUMNS) + "|\n"
        body = body.rstrip("\n") + "\n" + header
    write_atomically(page, body.rstrip("\n") + "\n" + line + text[end:])
    return row


def render_strata(report: SQLReport, row: dict[str, str]) -> str:
    """One run's per-stratum counts (counts, not rates: a stratum may be two cases wide)."""
    head = (
        f"#### {row['date']} · {md.escape(row['candidate'])} / {md.escape(row['model'])} · corpus "
        f"`{row['corpus digest']}` · {md.escape(row['engine'])}, {row['rotations']} rotation(s) · {row['status']}"
    )
    answer, refuse = [], []
    for name, c in strata(report.outcomes).items():
        if "correct_refusals" in c:
            refuse.append(
                [
                    md.escape(name),
                    str(c["cases"]),
                    str(c["correct_refusals"]),
                    str(c.get(Verdict.ANSWERED.value, 0)),
                    str(
                        c["cases"]
                        - c["correct_refusals"]
                        - c.get(Verdict.ANSWERED.value, 0)
                        - c.get(Verdict.UNMEASURED.value, 0)
                    ),
                    str(c.get(Verdict.UNMEASURED.value, 0)),
                ]
            )
        else:
            answer.append(
                [md.escape(name), "control" if "over_refusals" in c else "answer", str(c["cases"])]
                + [
                    str(c.get(v.value, 0))
                    for v in (Verdict.PASS, Verdict.WRONG, Verdict.ERROR, Verdict.REFUSED, Verdict.UNMEASURED)
                ]
            )
    parts = [head, ""]
    if answer:
        parts += [md.table(["stratum", "arm", "cases", "pass", "wrong", "error", "refused", "unmeasured"], answer), ""]
    if refuse:
        parts += [
            md.table(
                ["must-refuse stratum", "cases", "declined", "answered", "error (not the guard)", "unmeasured"], refuse
            ),
            "",
        ]
    return "\n".join(parts)


def append_strata(report: SQLReport, row: dict[str, str], page: Path = ACCURACY_PAGE) -> None:
    """Append this run's per-stratum block, headed by its record row's identity and status."""
    text = page.read_text(encoding="utf-8")
    _, end = _block(text, STRATA_START, STRATA_END, page)
    body = text[:end].rstrip("\n") + "\n\n" + render_strata(report, row)
    write_atomically(page, body.rstrip("\n") + "\n\n" + text[end:])


def render_stamps(corpus: Corpus) -> str:
    lines = ["| file | sha256 | questions |", "|---|---|---|"]
    lines += [f"| `{f.path}` | `{f.sha256}` | {f.questions} |" for f in corpus.files]
    lines += ["", f"Corpus digest `{corpus.digest}`, {corpus.size} questions."]
    return "\n".join(lines)


def stamps_on_page(page: Path = METHODOLOGY_PAGE) -> str:
    text = page.read_text(encoding="utf-8")
    a, b = _block(text, STAMPS_START, STAMPS_END, page)
    return text[a:b].strip()


def update_stamps(corpus: Corpus, page: Path = METHODOLOGY_PAGE) -> bool:
    """Rewrite the stamps block; returns whether anything changed."""
    text = page.read_text(encoding="utf-8")
    a, b = _block(text, STAMPS_START, STAMPS_END, page)
    new = text[:a] + "\n" + render_stamps(corpus) + "\n" + text[b:]
    if new != text:
        write_atomically(page, new)
    return new != text


def block_on_page(start: str, end: str, page: Path = METHODOLOGY_PAGE) -> str:
    """The text between two markers of a page, stripped."""
    text = page.read_text(encoding="utf-8")
    a, b = _block(text, start, end, page)
    return text[a:b].strip()


def update_block(start: str, end: str, body: str, page: Path = METHODOLOGY_PAGE) -> bool:
    """Rewrite the text between two markers; returns whether anything changed."""
    text = page.read_text(encoding="utf-8")
    a, b = _block(text, start, end, page)
    new = text[:a] + "\n" + body.strip() + "\n" + text[b:]
    if new != text:
        write_atomically(page, new)
    return new != text


def main(argv: list[str] | None = None) -> int:
    from eval.sql.corpus import load_corpus

    p = argparse.ArgumentParser(prog="python -m eval.sql.docs", description=__doc__.splitlines()[0])
    p.add_argument("--update-stamps", action="store_true", help="rewrite the corpus stamps on the methodology page")
    args = p.parse_args(argv)
    try:
        corpus = load_corpus()
        if args.update_stamps:
            print("updated" if update_stamps(corpus) else "already current", METHODOLOGY_PAGE.relative_to(REPO_ROOT))
            return 0
        ok = stamps_on_page() == render_stamps(corpus).strip()
        print("stamps current" if ok else "stamps differ from the corpus: run python -m eval.sql.docs --update-stamps")
        return 0 if ok else 1
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
