"""The report files of a SQL run beside JSON and Markdown (``--html``, ``--junit``): flag, help, renderer.

A light module: the parser reads the flags from here, and each renderer is imported (a plain import, which the
import contracts see) only when its file is written, so ``--help`` loads no renderer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from eval.sql.model.run import SQLRun


@dataclass(frozen=True)
class ReportFile:
    """A file format of the run beside the JSON and Markdown every suite writes: its flag and renderer."""

    flag: str
    help: str
    render: Callable[[SQLRun], str]


def _html(report: SQLRun) -> str:
    from eval.sql.render import to_html

    return to_html(report)


def _junit(report: SQLRun) -> str:
    from eval.sql.render import to_junit

    return to_junit(report)


REPORT_FILES = (
    ReportFile("html", "also write one self-contained HTML report (no network needed)", _html),
    ReportFile("junit", "also write JUnit XML: one testcase per question", _junit),
)
"""A new format is a renderer in ``eval/sql/render/`` and a line here (with the function that imports it): the
flag, its confinement check and the writing follow."""
