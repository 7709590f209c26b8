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
import functools
import hashlib
from importlib import resources
from typing import TYPE_CHECKING, Any

from eval.core import figures

if TYPE_CHECKING:
    from jinja2 import Environment
    from markupsafe import Markup

__all__ = ["render"]


@functools.cache
def _env() -> Environment:
    """The template environment, built on the first page: Jinja2 is imported only by a run that writes HTML."""
    from jinja2 import Environment, PackageLoader, StrictUndefined
    from markupsafe import Markup

    scripts = {  # the harness's own scripts, by file name: the only scripts a page may run
        f.name: f.read_text(encoding="utf-8")
        for f in resources.files("eval").joinpath("templates").iterdir()
        if f.name.endswith(".js")
    }

    def script(name: str) -> Markup:
        return Markup(f"<script>{scripts[name]}</script>")

    env = Environment(
        loader=PackageLoader("eval", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["script"] = script
    env.globals["script_src"] = Markup(
        " ".join(
            f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
            for _, text in sorted(scripts.items())
        )
        or "'none'"
    )
    env.filters["pct"] = figures.pct  # every page writes a rate and an interval as every other output does
    env.filters["ci"] = figures.interval
    return env


def render(template: str, **context: Any) -> str:
    """The page ``template`` (under ``eval/templates``) with ``context``; a missing name is an error."""
    return _env().get_template(template).render(**context)
