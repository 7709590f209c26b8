"""The architecture is enforced, not reviewed: the import contracts in pyproject.toml hold, they can fail,
and no module imports another that imports it back."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

BACKEND = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def loggers_left_as_they_were() -> Iterator[None]:
    """import-linter configures logging with ``disable_existing_loggers``: every logger that exists when it runs
    (the service's audit log, once a test imported it) is disabled for the rest of the session, and a later
    test reading the audit sees nothing. Each test here gives the loggers back as it found them."""
    loggers = [lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    was = [(lg, lg.disabled) for lg in loggers]
    yield
    for lg, disabled in was:
        lg.disabled = disabled


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each a cycle of imports."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.find_modules_directly_imported_by(v) & modules:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return found


def test_the_import_contracts_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BACKEND)
    assert lint_imports(no_cache=True, no_logo=True) == 0, "an import breaks a layer: see the contract above"


def test_a_contract_catches_an_import_against_the_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the same tool, told the shared infrastructure sits above the SQL suite, fails."""
    config = tmp_path / "upside-down.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["eval"]\n\n[[tool.importlinter.contracts]]\n'
        'name = "upside down"\ntype = "layers"\nlayers = ["eval.core", "eval.sql"]\n'
    )
    monkeypatch.chdir(BACKEND)
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 1


@pytest.mark.parametrize(
    ("listed", "unlisted", "package"),
    [
        ('    "sections",\n', "", "eval.sql.sections"),
        ('"tools | turns"', '"tools"', "eval.turns"),
        ('    "nl_answer",\n', "", "services.nl_answer"),
    ],
    ids=["eval.sql", "eval", "services"],
)
def test_a_package_no_layer_lists_breaks_the_contracts(
    listed: str,
    unlisted: str,
    package: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The layer contracts are exhaustive: a package of a container that no layer names (here one taken out of the
    project's own contracts) fails them, named, where a non-exhaustive contract would pass it unchecked."""
    text = (BACKEND / "pyproject.toml").read_text(encoding="utf-8")
    assert text.count(listed) == 1, f"{listed!r} no longer in the contracts: choose another package to leave out"
    config = tmp_path / "one-left-out.toml"
    config.write_text(text.replace(listed, unlisted), encoding="utf-8")
    monkeypatch.chdir(BACKEND)
    capsys.readouterr()
    assert lint_imports(config_filename=str(config), no_cache=True, no_logo=True) == 1
    said = capsys.readouterr().out
    assert package in said and "must be declared as a layer" in " ".join(said.split())


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = grimp.build_graph("eval", "services", cache_dir=None)
    modules = {m for m in graph.modules if ".tests" not in m}
    assert _cycles(graph, modules) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=a, imported=b)
    assert _cycles(graph, set(graph.modules)) == [["p.a", "p.b", "p.c"]]
