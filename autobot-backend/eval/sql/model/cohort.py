"""Comparing two runs' cohorts: the one place two set-ups are compared (``eval.compare``, the gate and the
accuracy record all ask :func:`cohort_differences`). The cohort itself is made in
:mod:`eval.sql.grading.identity`; this reads it and needs nothing but the standard library."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

_FROM_RUN = ("engine", "rotations", "seed", "repeats", "column_order")
"""Cohort keys an older report or baseline kept in its ``run`` (``column_order`` only when overridden)."""


def cohort_keys(record: Mapping[str, Any]) -> dict[str, Any]:
    """The cohort keys of a JSON report or a baseline file. A key its cohort lacks (written before the key
    existed) is taken from where the record itself kept it (its run set-up, corpus digest, candidate path),
    else left out: unknown."""
    found = record.get("cohort")
    keys = dict(found.get("keys") or {}) if isinstance(found, Mapping) else {}
    run = record.get("run")
    if isinstance(run, Mapping):
        keys.update({k: run[k] for k in _FROM_RUN if k not in keys and k in run})
    for key, section, field in (("corpus", "corpus", "digest"), ("candidate", "candidate", "path")):
        kept = record.get(section)
        if key not in keys and isinstance(kept, Mapping) and field in kept:
            keys[key] = kept[field]
    return keys


class _Missing:
    """A key one side does not have: ``unknown`` (its cohort predates the key) or ``absent`` (e.g. a
    fixture the other run did not use)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNKNOWN, ABSENT = _Missing("unknown"), _Missing("absent")


def _show(value: Any) -> str:
    if isinstance(value, _Missing):
        return value.name
    if value is None:
        return "none"
    if isinstance(value, str):
        return value if len(value) <= 24 else value[:16] + "..."
    return json.dumps(value, sort_keys=True, default=str)


class Difference(NamedTuple):
    """One key on which two cohorts differ; ``str()`` reads ``key: A's value vs B's value``."""

    key: str
    """Nested keys flattened: ``fixtures.retail.generator``."""
    a: Any
    b: Any

    def __str__(self) -> str:
        return f"{self.key}: {_show(self.a)} vs {_show(self.b)}"

    @property
    def top(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def unknown(self) -> bool:
        """One side's cohort predates the key: a difference, because sameness cannot be shown."""
        return self.a is UNKNOWN or self.b is UNKNOWN


def _flat(keys: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in keys.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def cohort_differences(
    a: Mapping[str, Any], b: Mapping[str, Any], *, only: Collection[str] | None = None, skip: Collection[str] = ()
) -> list[Difference]:
    """The keys on which cohort keys ``a`` and ``b`` differ, nested keys flattened (``only``/``skip``: top-level
    keys to keep or leave out); an empty list is the same cohort. A key missing on one side is ``unknown``
    when that side lacks the top-level key (its cohort predates it), else ``absent``."""
    flat_a, flat_b = _flat(a), _flat(b)
    tops = [t for t in (dict.fromkeys([*a, *b]) if only is None else only) if t not in skip]
    differences = []
    for top in tops:
        for path in sorted(p for p in {*flat_a, *flat_b} if p.split(".", 1)[0] == top):
            va = flat_a.get(path, ABSENT if top in a else UNKNOWN)
            vb = flat_b.get(path, ABSENT if top in b else UNKNOWN)
            if isinstance(va, _Missing) or isinstance(vb, _Missing) or va != vb:
                differences.append(Difference(path, va, vb))
    return differences
