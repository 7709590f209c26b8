"""The built-in offline generator, selected when no model is configured (its version is ``NAME``).

A thin entry point: the generator lives in the :mod:`services.embedded` package.
"""

from services.embedded import NAME, EmbeddedGenerator

__all__ = ["NAME", "EmbeddedGenerator"]
