"""Why each survivor survives: the study's own rules first, then the written explanations.

Every mutant that survives needs a reason, in one of three classes:

* ``equivalent``: it returns the reference's rows on any database of the schema (by SQL's
  semantics, or the schema's keys, NOT NULL columns and foreign keys). Left out of the kill rate.
* ``outside``: only rows the fixtures cannot hold would show it (a day past the last one a
  fixture holds, the day after its period, which the build checks). It counts as a survivor.
  Since the rows just outside the period were built in (2026-12-04) no survivor is of this class.
* ``open``: data the fixtures could hold would show it, and it is not built in yet (the entry says
  why). It counts as a survivor.

The rules (``Mutant.equivalent``, ``Mutant.beyond``) come with the mutants; the written ones are in
``survivors.yaml`` beside this module, matched by question, kind and site. A survivor with no
reason, a claim of equivalence the study killed, and an entry that matches no survivor are all
errors of the study (:attr:`Classified.problems`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from eval.core.errors import HarnessError
from eval.sql.near_miss._study import KILLED, SURVIVED, Judged

EXPLANATIONS = Path(__file__).resolve().parent / "survivors.yaml"
Class = Literal["equivalent", "outside", "open"]
CLASSES: tuple[Class, ...] = ("equivalent", "outside", "open")


@dataclass(frozen=True)
class Verdict:
    judged: Judged
    cls: Class | None
    """None: killed, or did not run."""
    why: str = ""


@dataclass
class Classified:
    verdicts: list[Verdict]
    problems: list[str] = field(default_factory=list)
    """A survivor without a reason, a contradicted claim, an entry matching nothing."""


def load_explanations(path: Path = EXPLANATIONS) -> dict[tuple[str, str, str], tuple[Class, str]]:
    """(question, kind, site) -> (class, why), from the written file."""
    try:
        doc: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HarnessError(f"{path}: cannot read the survivors' explanations ({exc})") from None
    out: dict[tuple[str, str, str], tuple[Class, str]] = {}
    for i, entry in enumerate((doc or {}).get("survivors") or []):
        where = f"{path.name}: entry {i + 1}"
        if not isinstance(entry, dict) or entry.get("class") not in CLASSES or not entry.get("why"):
            raise HarnessError(f"{where}: needs question, kind, site, class ({', '.join(CLASSES)}) and why")
        key = (str(entry.get("question")), str(entry.get("kind")), str(entry.get("site")))
        if key in out:
            raise HarnessError(f"{where}: {key} is explained twice")
        out[key] = (entry["class"], " ".join(str(entry["why"]).split()))
    return out


def classify(judged: list[Judged], written: dict[tuple[str, str, str], tuple[Class, str]]) -> Classified:
    """Each mutant with its class and reason; the study's problems, if any."""
    used: set[tuple[str, str, str]] = set()
    result = Classified([])
    for j in judged:
        m = j.mutant
        key = (m.question_id, m.kind.value, m.site)
        claim: tuple[Class, str] | None = None
        if m.equivalent:
            claim = ("equivalent", m.equivalent)
        elif m.beyond:
            claim = ("outside", m.beyond)
        elif key in written:
            claim = written[key]
            used.add(key)
        if j.outcome == KILLED:
            if claim is not None:  # a rule that is wrong, or an entry the data has overtaken
                result.problems.append(
                    f"{m.question_id} {m.kind}: {m.site}: said to be {claim[0]}, but killed ({j.detail})"
                )
            result.verdicts.append(Verdict(j, None))
        elif j.outcome == SURVIVED:
            if claim is None:
                result.problems.append(f"{m.question_id} {m.kind}: {m.site}: survives with no explanation")
            cls, why = claim or ("open", f"no explanation: kill it, or say why in {EXPLANATIONS.name}")
            result.verdicts.append(Verdict(j, cls, why))
        else:
            result.verdicts.append(Verdict(j, None))
    for key in sorted(set(written) - used):
        result.problems.append(f"{EXPLANATIONS.name}: {key[0]} {key[1]}: {key[2]}: matches no survivor (remove it)")
    return result
