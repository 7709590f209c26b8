"""Seeded schemas the generator's question sets are asked of, as fixtures of the SQL suite.

``FIXTURES`` is what ``python -m eval.run --suite sql --fixtures tests.schemas`` reads: each is an
:class:`eval.sql.fixtures.Fixture`, built like the suite's own fixtures (one local random source
per seed, comments on every column), so the blind and dev sets are graded by the suite's own
grader, linted by its own self-check and gated by its own baselines.

* ``library``, ``clinic`` (:mod:`.dev`), ``saas`` (:mod:`.saas`): blind set 1, seeds 0, 1, 2;
* ``airline``, ``university``: blind set 2; ``hotel``, ``logistics``: blind set 3;
* ``dev_retail``, ``dev_library``, ``dev_clinic``: the dev set, one database each, on the seed its
  builder was written for (7, 11 and 5 at rotation 0).
"""

from __future__ import annotations

from pathlib import Path

from eval.sql.fixtures.seeded import FIXTURES as BUILTIN
from eval.sql.fixtures.seeded import Fixture
from tests.schemas import airline, dev, hotel, logistics, saas, university

_HERE = Path(__file__).resolve().parent
# A schema's rows depend on its module, the helpers here and the suite's fixture code it builds with.
_SOURCES = tuple(sorted(_HERE.glob("*.py"))) + BUILTIN["retail"].sources


def _fixture(name: str, build: object, base_seed: int = 0) -> Fixture:
    return Fixture(name, build, base_seed=base_seed, sources=_SOURCES)  # type: ignore[arg-type]


FIXTURES: dict[str, Fixture] = {
    "library": _fixture("library", dev.build_library),
    "clinic": _fixture("clinic", dev.build_clinic),
    "saas": _fixture("saas", saas.build),
    "airline": _fixture("airline", airline.build),
    "university": _fixture("university", university.build),
    "hotel": _fixture("hotel", hotel.build),
    "logistics": _fixture("logistics", logistics.build),
    "dev_retail": _fixture("dev_retail", dev.build_retail, base_seed=7),
    "dev_library": _fixture("dev_library", dev.build_library, base_seed=11),
    "dev_clinic": _fixture("dev_clinic", dev.build_clinic, base_seed=5),
}
