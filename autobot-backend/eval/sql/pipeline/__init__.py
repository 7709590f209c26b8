"""One SQL run, in the order that is the contract: build, self-check, ask, grade (:mod:`.run`), from what it is
asked to do (:mod:`.spec`) over the databases it builds and checks (:mod:`.databases`)."""

from eval.sql.pipeline.run import run_suite
from eval.sql.pipeline.spec import OracleBroken, RunSpec

__all__ = ["OracleBroken", "RunSpec", "run_suite"]
