"""HTML pages rendered from Jinja2 templates: one self-contained file, every value escaped.

Jinja2 because a template engine escapes by default (``autoescape``) and keeps markup out of code:
untrusted text (questions, SQL, model output, values) cannot become markup, whoever forgets what.
Pages carry their CSS inline and draw their charts as inline SVG; a Content-Security-Policy meta tag
forbids any request off the page, so a report opens the same offline, in a CI artifact, or years later.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

__all__ = ["pct", "render"]

_ENV = Environment(
    loader=PackageLoader("eval", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def pct(rate: float | None, digits: int = 1) -> str:
    return "n/a" if rate is None else f"{rate * 100:.{digits}f}%"


def ci(interval: list[float] | tuple[float, float] | None) -> str:
    return "n/a" if not interval else f"{interval[0] * 100:.1f}-{interval[1] * 100:.1f}%"


_ENV.filters["pct"] = pct
_ENV.filters["ci"] = ci


def render(template: str, **context: Any) -> str:
    """The page ``template`` (under ``eval/templates``) with ``context``; a missing name is an error."""
    return _ENV.get_template(template).render(**context)
