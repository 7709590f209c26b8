"""Every command of the harness lives in ``eval/cli/``; library modules have no ``main``; the exit codes
are defined once (``eval/core/exit_codes.py``) and every command maps a crash to 2."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from eval.core.exit_codes import EXIT_CANNOT_JUDGE

BACKEND = Path(__file__).resolve().parents[3]
EVAL = BACKEND / "eval"
COMMANDS = (
    *("run", "compare", "merge", "trend", "browser", "selfcheck", "bench_import", "near_miss", "spider_study"),
    *("docs", "docs_images", "init", "check"),
)


def _library_modules() -> list[Path]:
    skip = (EVAL / "cli", EVAL / "tests")
    return sorted(p for p in EVAL.rglob("*.py") if not any(p.is_relative_to(d) for d in skip))


def test_every_command_module_is_in_eval_cli():
    assert sorted(p.stem for p in (EVAL / "cli").glob("*.py")) == sorted(
        {
            *COMMANDS,
            "__init__",
            "entry",
            "options",
            "parser",
            "sql",
            "sql_checks",
            "sql_formats",
            "sql_options",
            "sql_run_options",
            "sql_publish",
            "turns",
            "trajectory",
        }
    )


def test_library_modules_define_no_main_and_parse_no_command_line():
    offenders = []
    for path in _library_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        imports = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        if "main" in defined or "argparse" in imports or (path.name == "__main__.py" and not _hands_over(tree)):
            offenders.append(str(path.relative_to(BACKEND)))
    assert offenders == []
    assert len(_library_modules()) > 50  # the walk found the library


def _hands_over(tree: ast.Module) -> bool:
    """A ``__main__.py`` that only hands over to an ``eval.cli`` module with runpy (as ``eval/sql/init.py`` does):
    a docstring, ``from __future__``, ``import runpy`` and ``if __name__ == "__main__": runpy.run_module(..)``."""
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Import) and [a.name for a in node.names] == ["runpy"]:
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) == "__name__ == '__main__'" and len(node.body) == 1:
            call = node.body[0].value if isinstance(node.body[0], ast.Expr) else None
            if isinstance(call, ast.Call) and ast.unparse(call.func) == "runpy.run_module":
                target = call.args[0] if call.args else None
                if isinstance(target, ast.Constant) and str(target.value).startswith("eval.cli."):
                    continue
        return False
    return True


def test_a_main_module_that_does_more_than_hand_over_is_refused():
    handing = ast.parse((EVAL / "sql" / "near_miss" / "__main__.py").read_text(encoding="utf-8"))
    assert _hands_over(handing)
    assert not _hands_over(ast.parse("import runpy\nimport argparse\n"))
    assert not _hands_over(ast.parse("import runpy\nif __name__ == '__main__':\n    runpy.run_module('os')\n"))
    assert not _hands_over(ast.parse("def main():\n    pass\n"))


def test_the_exit_codes_are_assigned_in_one_module_only():
    assigned = []
    for path in sorted(EVAL.rglob("*.py")):
        if path.is_relative_to(EVAL / "tests"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            if any(n.startswith("EXIT_") for n in names):
                assigned.append(str(path.relative_to(BACKEND)))
    assert assigned == ["eval/core/exit_codes.py"] * 3


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_and_exit_codes(command, capsys):
    main = importlib.import_module(f"eval.cli.{command}").main
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m eval.") and "Exit" in out


@pytest.mark.parametrize(
    "command", ["compare", "merge", "trend", "browser", "bench_import", "docs", "docs_images", "init", "check"]
)
def test_every_command_refuses_a_bad_flag_with_2(command, capsys):
    assert importlib.import_module(f"eval.cli.{command}").main(["--no-such-flag"]) == EXIT_CANNOT_JUDGE
    assert "error: " in capsys.readouterr().err


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("eval.cli.compare", "compare"),
        ("eval.cli.trend", "trend.load"),
        ("eval.cli.docs", "load_corpus"),
        ("eval.cli.merge", "sql_options.add_records"),
    ],
)
def test_a_crash_in_any_command_is_2_not_1(module, target, tmp_path, monkeypatch, capsys):
    cli = importlib.import_module(module)
    owner, _, name = target.rpartition(".")
    where = getattr(cli, owner) if owner else cli

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(where, name, boom)
    (tmp_path / "a.json").write_text('{"suite": "sql", "questions": []}')
    argv = {
        "eval.cli.compare": [str(tmp_path / "a.json")] * 2,
        "eval.cli.trend": [],
        "eval.cli.docs": [],
        "eval.cli.merge": [str(tmp_path / "a.json")],
    }[module]
    assert cli.main(argv) == EXIT_CANNOT_JUDGE
    err = capsys.readouterr().err
    assert "RuntimeError: bug" in err and "internal error (a bug in the harness)" in err


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["eval.compare", "--help"], "python -m eval.compare"),
        (["eval.merge", "--help"], "python -m eval.merge"),
        (["eval.trend", "--help"], "python -m eval.trend"),
        (["eval.cli.selfcheck", "--help"], "python -m eval.cli.selfcheck"),
        (["eval.cli.near_miss", "--help"], "python -m eval.sql.near_miss"),
        (["eval.sql.near_miss", "--help"], "python -m eval.sql.near_miss"),
        (["eval.sql.init", "--help"], "python -m eval.sql.init"),
        (["eval.sql.check", "--help"], "python -m eval.sql.check"),
    ],
    ids=lambda x: x[0] if isinstance(x, list) else "",
)
def test_the_documented_commands_run_as_modules(argv, prog):
    proc = subprocess.run(
        [sys.executable, "-m", *argv], cwd=BACKEND, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {prog}")


def test_a_library_module_is_no_command():
    # eval.sql.near_miss is one since issue 25, by a hand-over-only __main__.py (checked above)
    proc = subprocess.run(
        [sys.executable, "-m", "eval.sql.oracle"], cwd=BACKEND, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0 and "cannot be directly executed" in proc.stderr
