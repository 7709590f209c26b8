"""HTML pages rendered from Jinja2 templates: one self-contained file, every value escaped.

Jinja2 because a template engine escapes by default (``autoescape``) and keeps markup out of code:
untrusted text (questions, SQL, model output, values) cannot become markup, whoever forgets what.
Pages carry their CSS inline and draw their charts as inline SVG; a Content-Security-Policy meta tag
forbids any request off the page, so a report opens the same offline, in a CI artifact, or years later.
It allows no inline script but the harness's own (``eval/templates/*.js``, each allowed by its SHA-256):
were escaping ever to fail, a ``<script>`` in untrusted text would still not run.
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

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


_SCRIPTS = {
    f.name: f.read_text(encoding="utf-8")
    for f in resources.files("eval").joinpath("templates").iterdir()
    if f.name.endswith(".js")
}
"""The harness's own scripts, by file name: the only scripts a page may run."""


def _script(name: str) -> Markup:
    return Markup(f"<script>{_SCRIPTS[name]}</script>")


_ENV.globals["script"] = _script
_ENV.globals["script_src"] = Markup(
    " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
        for _, text in sorted(_SCRIPTS.items())
    )
    or "'none'"
)
_ENV.filters["pct"] = figures.pct  # every page writes a rate and an interval as every other output does
_ENV.filters["ci"] = figures.interval


def render(template: str, **context: Any) -> str:
    """The page ``template`` (under ``eval/templates``) with ``context``; a missing name is an error."""
    return _ENV.get_template(template).render(**context)
