"""The built-in generator answers every question we hold exactly as recorded (see tests.generator_outputs)."""

from __future__ import annotations

import json

from tests.generator_outputs import SNAPSHOT, collect


def test_every_answer_is_the_recorded_one():
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    outputs = collect()
    assert sorted(outputs) == sorted(recorded), "a question was added or lost: re-run tests.generator_outputs"
    changed = {k: (recorded[k], outputs[k]) for k in outputs if outputs[k] != recorded[k]}
    assert changed == {}, f"{len(changed)} answer(s) changed; python -m tests.generator_outputs lists them"
