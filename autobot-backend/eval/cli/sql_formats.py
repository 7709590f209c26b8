"""The report files of a SQL run beside JSON and Markdown (``--html``, ``--junit``): flag, help, renderer.

A light module: the parser reads the flags from here without importing the renderers (Jinja2 for the
HTML page), which are looked up by name when a file is written.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from eval.sql.model.run import SQLRun


@dataclass(frozen=True)
class ReportFile:
    """A file format of the run beside the JSON and Markdown every suite writes: its flag and renderer."""

    flag: str
    help: str
    renderer: str
    """The name of its function in :mod:`eval.sql.render`, imported when the file is written."""

    def render(self, report: SQLRun) -> str:
        module = importlib.import_module("eval.sql.render")
        return cast("Callable[[SQLRun], str]", getattr(module, self.renderer))(report)


REPORT_FILES = (
    ReportFile("html", "also write one self-contained HTML report (no network needed)", "to_html"),
    ReportFile("junit", "also write JUnit XML: one testcase per question", "to_junit"),
)
"""A new format is a renderer in ``eval/sql/render/`` and a line here: the flag, its confinement check
and the writing follow."""
