"""The GitHub Actions workflows ``docs/eval/ci.md`` shows are valid workflows, and the sharded one does what it
says: checked against the GitHub workflow JSON Schema that ``check-jsonschema`` ships (SchemaStore's, vendored,
so no network), then its shard and merge commands run as its jobs would run them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft7Validator

BACKEND = Path(__file__).resolve().parents[3]
PAGE = BACKEND.parent / "docs" / "eval" / "ci.md"
_ARGS = re.compile(r'make (eval|merge) ARGS="(.*?)"', re.S)
_BOOL = "tag:yaml.org,2002:bool"


class _Yaml12(yaml.SafeLoader):
    """YAML as GitHub reads a workflow (1.2's booleans): ``on:`` is a key, not PyYAML's 1.1 ``True``."""


_Yaml12.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _BOOL]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def _workflows() -> dict[str, Any]:
    """Each YAML block of the page under the heading above it."""
    found, heading = {}, ""
    for part in re.split(r"(^## [^\n]*$|```yaml\n.*?\n```)", PAGE.read_text(encoding="utf-8"), flags=re.M | re.S):
        if part.startswith("## "):
            heading = part[3:].strip()
        elif part.startswith("```yaml"):
            found[heading] = yaml.load(part[len("```yaml\n") : -len("\n```")], Loader=_Yaml12)
    return found


def _schema() -> Any:
    vendored = resources.files("check_jsonschema.builtin_schemas.vendor") / "github-workflows.json"
    return json.loads(vendored.read_text(encoding="utf-8"))


def test_every_workflow_on_the_page_is_a_valid_github_workflow() -> None:
    workflows = _workflows()
    assert set(workflows) == {"A complete workflow", "A sharded run: a matrix of runners and one merge that gates"}
    validator = Draft7Validator(_schema())
    for heading, workflow in workflows.items():
        errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(workflow)]
        assert not errors, f"{heading}: {errors}"
    broken = {**workflows["A complete workflow"], "jobs": {"sql-gate": {"runs-on": "ubuntu-latest", "step": []}}}
    assert not validator.is_valid(broken)  # the schema does reject a malformed workflow


def _steps(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in job["steps"] if "name" in s}


@pytest.mark.slow
def test_the_sharded_workflow_shards_merges_and_gates(tmp_path: Path) -> None:
    """The matrix's shards as its jobs run them (each ``make eval ARGS`` run from the checkout's root), the
    artifacts gathered as download-artifact gathers them, and the merge job's command: it gates and passes."""
    workflow = _workflows()["A sharded run: a matrix of runners and one merge that gates"]
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    assert merge_job["needs"] == "shard"
    indices = shard_job["strategy"]["matrix"]["shard"]
    shard_run = _steps(shard_job)["SQL shard"]["run"]
    upload = _steps(shard_job)["Upload the shard"]["with"]
    download = next(s for s in merge_job["steps"] if s.get("uses", "").startswith("actions/download-artifact"))
    assert download["with"]["pattern"].rstrip("*") == upload["name"].split("${{")[0]
    env = {**os.environ, "EVAL_CALLER_DIR": str(tmp_path), "EVAL_OUTPUT_DIR": str(tmp_path)}
    for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY", "GITHUB_ACTIONS"):
        env.pop(var, None)
    (tmp_path / "eval-out").mkdir()
    procs = []
    for k in indices:
        kind, args = _ARGS.search(shard_run.replace("${{ matrix.shard }}", str(k))).groups()  # type: ignore[union-attr]
        assert kind == "eval" and f"--shard {k}/{len(indices)}" in args
        cmd = [sys.executable, "-m", "eval.run", "--suite", "sql", *args.split()]
        procs.append(subprocess.Popen(cmd, cwd=BACKEND, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    shards = tmp_path / download["with"]["path"]
    shards.mkdir()
    for k, proc in zip(indices, procs):
        _, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, stderr.decode()[-2000:]
        made = tmp_path / upload["path"].replace("${{ matrix.shard }}", str(k))
        made.rename(shards / made.name)  # merge-multiple: every artifact's file in one folder
    merge_run = _steps(merge_job)["Merge and gate"]["run"]
    kind, args = _ARGS.search(merge_run).groups()  # type: ignore[union-attr]
    assert kind == "merge"
    files = sorted(str(p.relative_to(tmp_path)) for p in shards.glob("shard-*.json"))
    args = args.replace("$(echo shards/shard-*.json)", " ".join(files)).replace("\\\n", " ")
    summary = tmp_path / "summary.md"
    proc = subprocess.run(
        [sys.executable, "-m", "eval.merge", *args.split()],
        cwd=BACKEND,
        env={**env, "GITHUB_STEP_SUMMARY": str(summary)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "eval-out" / "report.json").read_text(encoding="utf-8"))
    assert report["gate"]["status"] == "passed" and report["gate"]["enforced"] is True
    assert len(report["questions"]) == report["corpus"]["size"] and "shard" not in report
    assert "PASSED" in summary.read_text(encoding="utf-8")
    assert (tmp_path / "eval-out" / "report.html").is_file() and (tmp_path / "eval-out" / "junit.xml").is_file()
