"""The built-in offline generator (``embedded-v5``), selected when no model is configured.

A thin entry point: the generator lives in the :mod:`services.embedded` package.
"""

from services.embedded import NAME, EmbeddedGenerator

__all__ = ["NAME", "EmbeddedGenerator"]
