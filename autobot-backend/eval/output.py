"""Where reports may be written: inside the working directory or ``EVAL_OUTPUT_DIR`` only.

A report path comes from a command line that CI or a script may build from untrusted input;
confining it keeps ``--json ../../etc/x`` or a symlink out of the tree from overwriting
anything the run does not own.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from eval.errors import HarnessError

OUTPUT_DIR_ENV = "EVAL_OUTPUT_DIR"


class OutputPathError(HarnessError):
    """The requested output path lies outside the allowed directory."""


def allowed_root() -> Path:
    raw = os.environ.get(OUTPUT_DIR_ENV)
    return Path(raw).resolve() if raw else Path.cwd().resolve()


def confine(path: str | os.PathLike[str]) -> Path:
    """Resolve ``path`` (symlinks and ``..`` included) and insist it stays under the root."""
    root = allowed_root()
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = Path.cwd() / candidate
    resolved = candidate.resolve()
    if resolved != root and not resolved.is_relative_to(root):
        raise OutputPathError(
            f"refusing to write {str(path)!r}: it resolves outside {root}; write under the working "
            f"directory or set {OUTPUT_DIR_ENV} to the directory reports may go to"
        )
    if resolved.is_dir():
        raise OutputPathError(f"refusing to write {str(path)!r}: it is a directory")
    return resolved


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write atomically to a confined path, creating parent directories under the root."""
    target = confine(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
