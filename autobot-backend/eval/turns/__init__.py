"""Judging captured turns that have no reference: the Ask Axon rubric, with its arithmetic in code.

The rest of the harness uses these names; each module holds one concept: ``format`` (the
captured-turns file), ``rubric`` (weights, caps, bands: plain arithmetic), ``prompt`` (what the
judge is told), ``judge`` (the model behind an OpenAI-compatible endpoint, and strict validation of
its reply), ``scoring`` (many turns at once), ``report`` and ``markdown`` (the turns suite's
report), ``calibration`` (agreement with human labels), ``drift`` (re-judging stored scores),
``sql_turns`` (a SQL run's answers as turns, and the judge against execution verdicts),
``trajectory`` (the judge as the trajectory suite's evaluator); the command line is
:mod:`eval.cli.turns`. The method, and every choice in it, is written up in ``docs/eval/judge.md``.
"""

from eval.turns.format import Step, Turn, TurnsFileError, load_turns, parse_turn
from eval.turns.judge import Judge, JudgeConfigError, Judgement, JudgeReply, validate_reply
from eval.turns.rubric import CAPS, RUBRIC_VERSION, Arithmetic, Cap, band_of, caps_for, compose

__all__ = [
    "CAPS",
    "RUBRIC_VERSION",
    "Arithmetic",
    "Cap",
    "Judge",
    "JudgeConfigError",
    "JudgeReply",
    "Judgement",
    "Step",
    "Turn",
    "TurnsFileError",
    "band_of",
    "caps_for",
    "compose",
    "load_turns",
    "parse_turn",
    "validate_reply",
]
