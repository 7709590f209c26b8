"""HTML pages rendered from Jinja2 templates: one self-contained file, every value escaped.

Jinja2 because a template engine escapes by default (``autoescape``) and keeps markup out of code:
untrusted text (questions, SQL, model output, values) cannot become markup, whoever forgets what.
Pages carry their CSS inline and draw their charts as inline SVG; a Content-Security-Policy meta tag
forbids any request off the page, so a report opens the same offline, in a CI artifact, or years later.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from eval.core import figures

__all__ = ["render"]

_ENV = Environment(
    loader=PackageLoader("eval", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


_ENV.filters["pct"] = figures.pct  # every page writes a rate and an interval as every other output does
_ENV.filters["ci"] = figures.interval


def render(template: str, **context: Any) -> str:
    """The page ``template`` (under ``eval/templates``) with ``context``; a missing name is an error."""
    return _ENV.get_template(template).render(**context)
