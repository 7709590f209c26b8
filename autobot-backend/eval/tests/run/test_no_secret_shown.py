"""No secret in any form (issue 23, point 6), through the real command line in a subprocess: the endpoint
settings a user can get wrong are configuration errors (exit 2, ``error:``, no traceback) that never
repeat the value; an endpoint that echoes its credentials back leaves none in stdout, stderr or a
report; and a crash's traceback, like a log record Python prints on its own, is redacted.

Every run talks to a real HTTP server on 127.0.0.1; a setting that is refused must also send it nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply, json_reply

from ..judge_fakes import evidence, verdict

BACKEND = Path(__file__).resolve().parents[3]
EXAMPLE_TURNS = BACKEND.parent / "docs" / "eval" / "examples" / "turns.jsonl"
TOKEN = "sk-live-7f3a9c2e1b8d4f60"
"""The secret every case hides somewhere in a setting."""
OTHER = "Zm9vYmFyYmF6cXV4"
"""A second secret (a signature, a fragment) beside it."""
REPORTS = ("--json", "r.json", "--markdown", "r.md")


def run(work: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m eval.run ARGS`` from ``autobot-backend/`` with only these harness settings in its environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NL_SQL_", "EVAL_"))}
    return subprocess.run(
        [sys.executable, "-m", "eval.run", *args],
        cwd=BACKEND,
        env={**clean, "EVAL_CALLER_DIR": str(work), **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def everything_shown(proc: subprocess.CompletedProcess[str], work: Path) -> str:
    files = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(work.rglob("*")) if p.is_file()]
    return "\n".join([proc.stdout, proc.stderr, *files])


def assert_configuration_error(proc: subprocess.CompletedProcess[str], work: Path, named: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and named in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    shown = everything_shown(proc, work)
    assert TOKEN not in shown and OTHER not in shown
    assert not (work / "r.json").exists() and not (work / "r.md").exists(), "nothing is written"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE_TURNS, tmp_path / "turns.jsonl")
    return tmp_path


@pytest.fixture
def server():
    with FakeHTTPServer(chat_reply("SELECT 1")) as running:
        yield running


# --- the settings, refused without their value -----------------------------------------------------------

BAD_BASE_URLS = [
    ("token_as_user_no_scheme", "{token}@{host}/v1", "is not an http(s) URL"),
    ("key_parameter_no_scheme", "{host}/v1?key={token}#{other}", "is not an http(s) URL"),
    ("another_scheme", "ftp://{token}@{host}/v1?sig={other}", "is not an http(s) URL"),
    ("port_out_of_range", "http://{token}@127.0.0.1:99999/v1#{other}", "has a port outside 1..65535"),
    ("port_zero", "http://127.0.0.1:0/v1?sig={token}", "has a port outside 1..65535"),
    ("does_not_parse", "http://[::1/v1?key={token}#{other}", "does not parse as a URL"),
]


def _url(template: str, server: FakeHTTPServer) -> str:
    return template.format(token=TOKEN, other=OTHER, host=server.url.removeprefix("http://"))


@pytest.mark.parametrize(("template", "named"), [c[1:] for c in BAD_BASE_URLS], ids=[c[0] for c in BAD_BASE_URLS])
def test_a_bad_llm_base_url_is_a_configuration_error_that_keeps_its_secret(work, server, template, named):
    proc = run(
        work, "--suite", "sql", "--candidate", "llm", *REPORTS,
        NL_SQL_LLM_BASE_URL=_url(template, server), NL_SQL_LLM_MODEL="m", NL_SQL_LLM_API_KEY=TOKEN,
    )  # fmt: skip
    assert_configuration_error(proc, work, f"NL_SQL_LLM_BASE_URL {named}")
    assert server.requests == []


@pytest.mark.parametrize(("template", "named"), [c[1:] for c in BAD_BASE_URLS], ids=[c[0] for c in BAD_BASE_URLS])
def test_a_bad_judge_base_url_is_a_configuration_error_that_keeps_its_secret(work, server, template, named):
    proc = run(
        work, "--suite", "turns", "--turns", "turns.jsonl", *REPORTS,
        NL_SQL_JUDGE_BASE_URL=_url(template, server), NL_SQL_JUDGE_MODEL="m", NL_SQL_JUDGE_API_KEY=TOKEN,
    )  # fmt: skip
    assert_configuration_error(proc, work, f"NL_SQL_JUDGE_BASE_URL {named}")
    assert server.requests == []


BAD_SETTINGS = [
    ("key_with_a_space", "API_KEY", f"{TOKEN} {OTHER}", "an HTTP header cannot carry"),
    ("key_with_a_control_character", "API_KEY", f"{TOKEN}\x01{OTHER}", "an HTTP header cannot carry"),
    ("key_not_ascii", "API_KEY", f"{TOKEN}é{OTHER}", "an HTTP header cannot carry"),
    ("timeout_zero", "TIMEOUT_S", "0", "TIMEOUT_S"),
    ("timeout_infinite", "TIMEOUT_S", "inf", "TIMEOUT_S"),
]


@pytest.mark.parametrize("suite", ["sql", "turns"])
@pytest.mark.parametrize(("setting", "value", "named"), [c[1:] for c in BAD_SETTINGS], ids=[c[0] for c in BAD_SETTINGS])
def test_a_bad_key_or_timeout_is_a_configuration_error(work, server, suite, setting, value, named):
    prefix = "NL_SQL_LLM_" if suite == "sql" else "NL_SQL_JUDGE_"
    args = ("--candidate", "llm") if suite == "sql" else ("--turns", "turns.jsonl")
    env = {f"{prefix}BASE_URL": server.url + "/v1", f"{prefix}MODEL": "m", f"{prefix}API_KEY": TOKEN}
    proc = run(work, "--suite", suite, *args, *REPORTS, **{**env, prefix + setting: value})
    assert_configuration_error(proc, work, named)
    assert server.requests == []


@pytest.mark.parametrize("suite", ["sql", "turns"])
def test_a_key_too_short_to_mask_as_a_token_is_refused(work, server, suite):
    """A key ``a`` masked as a whole token would blank every word "a" of every message: refused instead,
    naming the variable and the length a key needs, never the key."""
    prefix = "NL_SQL_LLM_" if suite == "sql" else "NL_SQL_JUDGE_"
    args = ("--candidate", "llm") if suite == "sql" else ("--turns", "turns.jsonl")
    env = {f"{prefix}BASE_URL": server.url + "/v1", f"{prefix}MODEL": "m", f"{prefix}API_KEY": "xQ7"}
    proc = run(work, "--suite", suite, *args, *REPORTS, **env)
    assert_configuration_error(proc, work, f"{prefix}API_KEY is 3 character(s) long, shorter than the 8")
    assert "xQ7" not in proc.stderr and server.requests == []


# --- an endpoint that echoes its credentials ------------------------------------------------------------


def _echo(request: ReceivedRequest) -> Reply:
    """An endpoint that repeats everything it was sent that could be secret: the key and the query string."""
    said = f"{request.headers.get('authorization', '')} at {request.path}"
    if "rejected" in request.path:
        return json_reply({"error": {"message": f"Incorrect API key provided: {said}"}}, status=401)
    return chat_reply(f"REFUSE: I was called with {said}")


@pytest.mark.parametrize("how", ["rejected", "refused"])
def test_an_endpoint_echoing_its_credentials_leaves_them_in_no_output(work, how):
    """The key comes back in an HTTP 401's message (every question unavailable) or in the model's refusal
    (every question refused); the base URL carries a signature and a fragment besides. All four reports,
    stdout and stderr hold ``***`` where the endpoint echoed them, and none of the secrets."""
    with FakeHTTPServer(handler=_echo) as server:
        proc = run(
            work, "--suite", "sql", "--candidate", "llm", "--rotations", "1", "--stop-after-unavailable", "0",
            *REPORTS, "--html", "r.html", "--junit", "r.xml",
            NL_SQL_LLM_BASE_URL=f"{server.url}/{how}/v1?sig={OTHER}#{OTHER}x", NL_SQL_LLM_MODEL="m",
            NL_SQL_LLM_API_KEY=TOKEN, NL_SQL_LLM_MAX_ATTEMPTS="1",
        )  # fmt: skip
        assert server.requests and all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in server.requests)
    assert "Traceback" not in proc.stderr
    assert {p.name for p in work.iterdir()} >= {"r.json", "r.md", "r.html", "r.xml"}
    shown = everything_shown(proc, work)
    assert TOKEN not in shown and OTHER not in shown
    reasons = [q.get("detail") or q.get("reason") or "" for q in json.loads((work / "r.json").read_text())["questions"]]
    assert any("Bearer ***" in r for r in reasons), reasons[:3]


def _echoing_judge(request: ReceivedRequest) -> Reply:
    said = f"{request.headers.get('authorization', '')} at {request.path}"
    faithful = None if evidence(request)["answer"] is None else 8
    return chat_reply(json.dumps(verdict(8, 8, 8, faithful, why=f"I was called with {said}")))


def test_a_judge_echoing_its_credentials_leaves_them_in_no_output(work):
    """The judge's explanation is shown in both reports: one that repeats the key and the URL's signature
    shows ``***`` for them."""
    with FakeHTTPServer(handler=_echoing_judge) as server:
        proc = run(
            work, "--suite", "turns", "--turns", "turns.jsonl", *REPORTS,
            NL_SQL_JUDGE_BASE_URL=f"{server.url}/v1?sig={OTHER}", NL_SQL_JUDGE_MODEL="m", NL_SQL_JUDGE_API_KEY=TOKEN,
        )  # fmt: skip
        assert len(server.requests) == 7
    assert proc.returncode == 0, proc.stderr
    shown = everything_shown(proc, work)
    assert TOKEN not in shown and OTHER not in shown
    turns = json.loads((work / "r.json").read_text())["turns"]
    assert all("Bearer *** at /v1/chat/completions?sig=***" in t["explanation"] for t in turns)


# --- tracebacks and log records --------------------------------------------------------------------------

CRASHING_FIXTURES = """
import os
raise RuntimeError(
    "could not reach " + os.environ["NL_SQL_LLM_BASE_URL"] + " with " + os.environ["NL_SQL_LLM_API_KEY"]
    + " for " + os.environ["MY_DATABASE_URL"] + "\\x1b]0;retitled\\x07\\n::error::forged"
)
"""


def test_a_crash_prints_its_traceback_with_no_secret_in_it(work, tmp_path_factory):
    """A module given to ``--fixtures`` that raises at import is a crash (a bug, exit 2, with its traceback):
    the traceback quotes a scheme-less endpoint URL with a token as its user name, the API key and a
    database password, and shows none of them, nor a control character or a workflow command."""
    modules = tmp_path_factory.mktemp("modules")
    (modules / "crashing_fixtures.py").write_text(CRASHING_FIXTURES, encoding="utf-8")
    proc = run(
        work, "--suite", "sql", "--fixtures", "crashing_fixtures",
        PYTHONPATH=str(modules), NL_SQL_LLM_BASE_URL=f"{OTHER}@127.0.0.1:9/v1", NL_SQL_LLM_API_KEY=TOKEN,
        MY_DATABASE_URL="postgresql://bob:hunter2-Secret@db.internal/shop",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" in proc.stderr and "RuntimeError: could not reach ***@127.0.0.1:9/v1 with ***" in proc.stderr
    assert "internal error (a bug in the harness)" in proc.stderr
    for secret in (TOKEN, OTHER, "hunter2-Secret"):
        assert secret not in proc.stderr
    assert "\x1b" not in proc.stderr and "\n::error" not in proc.stderr and "\\x1b]0;retitled" in proc.stderr


LOGGING_SCRIPT = """
import logging, os
from eval.cli.entry import entry_point

@entry_point
def main():
    try:
        raise ConnectionError("refused by " + os.environ["NL_SQL_JUDGE_BASE_URL"])
    except ConnectionError as exc:
        logging.getLogger("services.nl_database_service").error("generator failed", exc_info=exc)
    return 0

raise SystemExit(main())
"""


def test_a_log_record_python_prints_on_its_own_is_redacted(work):
    """With no logging configured, Python prints a warning or an error (and its traceback) on stderr by itself;
    under the harness's commands that text is redacted like a crash's."""
    proc = subprocess.run(
        [sys.executable, "-c", LOGGING_SCRIPT],
        cwd=BACKEND,
        env={**os.environ, "NL_SQL_JUDGE_BASE_URL": f"http://{TOKEN}@127.0.0.1:9/v1?sig={OTHER}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "generator failed" in proc.stderr and "ConnectionError: refused by http://***@127.0.0.1:9/v1" in proc.stderr
    assert TOKEN not in proc.stderr and OTHER not in proc.stderr
