"""No secret in any output in any form (issue 38, point 1).

A model endpoint (a real HTTP server on 127.0.0.1) whose replies hold every secret the run knows, inside
the SQL it returns (so in the SQL shown, the rows it selects, the database's messages) and in its
refusals: the API key, a database URL's password holding JSON and HTML specials, a token in a
credential-named variable and one shaped like a credential under an innocent name, a signature and a
session id of the endpoint's URL, a user name standing alone in a database URL, each also
percent-encoded; and a signed URL the run was never told about. One run records a baseline, the next
regresses against it with every report asked for, the GitHub job summary and annotations, and the
accuracy record: stdout, stderr and every file written are read, and no secret shows in any of the forms
a report may write it.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from eval.core import outbound
from eval.tests import small_run as sr
from services.redaction import secret_forms
from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply

BACKEND = Path(__file__).resolve().parents[3]
KEY = "sk-live-5c1d9e7a3b2f8064"
PASSWORD = "pw\"<&'Hx9-secret"
"""A database password with a JSON escape and HTML specials in it: its JSON and HTML forms differ from it."""
NAMED_TOKEN = "tok-3e8f1a9c5d7b2e40"
"""In ``DEPLOY_TOKEN``: secret by its variable's name."""
SHAPED_TOKEN = "ghp_" + "Q7w3E9r1T5y8U2i6O4p0A1s3D5f7G9h2J4k6"
"""In ``BUILD_NOTE``: secret by its shape (an issuer's prefix) under an innocent name."""
SIGNATURE = "c2lnbmF0dXJlLXZhbHVl"
SESSION = "A91F0C2B7D3E5F68"
LONE_USER = "svc7x2kq9m"
"""A database URL's user standing alone, with digits in it: a token, not a role name."""
SIGNED_URL = "https://bucket.s3.example.com/r.csv?X-Amz-Credential=AKID%2Fx&X-Amz-Signature=9f8e7d6c5b4a3f2e1d"
SIGNED_PARTS = ("AKID%2Fx", "9f8e7d6c5b4a3f2e1d")
SECRETS = (KEY, PASSWORD, NAMED_TOKEN, SHAPED_TOKEN, SIGNATURE, SESSION, LONE_USER)
MARK = "PLANTED-REPLY"
"""Beside every planted secret: the check that the model's words did reach the reports."""


def _planted() -> str:
    encoded = " ".join(urllib.parse.quote(s, safe="") for s in SECRETS)
    return f"{MARK} {' '.join(SECRETS)} {encoded} {SIGNED_URL}"


def _endpoint(hostile: dict[str, bool]):  # type: ignore[no-untyped-def]
    """Each question's reference (a refusal for the must-refuse ones) until ``hostile``; then SQL that selects
    every secret and a refusal that repeats them."""
    answers = {q.question: q for q in sr.PICKED} | {sr.MARKUP_QUESTION: sr.PICKED[1]}  # as sr.write_corpus words it

    def handler(request: ReceivedRequest) -> Reply:
        found = re.search(r"Question: (.*)$", request.json()["messages"][-1]["content"], re.S)
        q = answers[found.group(1).strip() if found else ""]
        if not hostile["on"]:
            return chat_reply("REFUSE: not here" if q.expect == "refuse" else f"```sql\n{q.sql}\n```")
        text = _planted().replace("'", "''")
        if q.id == sr.DECLINED:
            return chat_reply(f"REFUSE: {_planted()}")
        if q.id == sr.BROKEN:  # a database error that quotes the SQL's name
            return chat_reply(f'```sql\nSELECT * FROM "{MARK} {KEY} {SIGNATURE}"\n```')
        return chat_reply(f"```sql\nSELECT '{text}' AS said, '{KEY}' AS k\n```")

    return handler


def _run(work: Path, server: FakeHTTPServer, *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NL_SQL_", "EVAL_", "GITHUB_"))}
    env = {
        **clean,
        "EVAL_OUTPUT_DIR": str(work),
        "NL_SQL_LLM_BASE_URL": f"{server.url}/v1;jsessionid={SESSION}?sig={SIGNATURE}",
        "NL_SQL_LLM_MODEL": "m",
        "NL_SQL_LLM_API_KEY": KEY,
        "NL_SQL_LLM_MAX_ATTEMPTS": "1",
        "WAREHOUSE_URL": f"postgresql://reporting:{urllib.parse.quote(PASSWORD, safe='')}@db.internal/shop",
        "REPLICA_URL": f"postgresql://{LONE_USER}@replica.internal/shop",
        "DEPLOY_TOKEN": NAMED_TOKEN,
        "BUILD_NOTE": SHAPED_TOKEN,
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
    }
    common = ["--suite", "sql", "--corpus", str(work / "mine.yaml"), "--candidate", "llm", "--rotations", "1"]
    common += ["--baseline-dir", str(work / "baselines"), "--stop-after-unavailable", "0"]
    return subprocess.run(
        [sys.executable, "-m", "eval.run", *common, *args],
        cwd=BACKEND,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("secrets")
    sr.write_corpus(work / "mine.yaml")
    hostile = {"on": False}
    with FakeHTTPServer(handler=_endpoint(hostile)) as server:
        first = _run(work, server, "--record-baseline")
        assert first.returncode == 0, first.stderr[-3000:]
        hostile["on"] = True
        proc = _run(
            work, server, "--fail-on-regression", "--github-summary", "--record-baseline", "--force",
            "--reason", "probe", "--record-accuracy", str(work / "record.md"),
            "--json", str(work / "r.json"), "--markdown", str(work / "r.md"), "--html", str(work / "r.html"),
            "--junit", str(work / "r.xml"),
        )  # fmt: skip
        assert server.requests and all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    files = {str(p.relative_to(work)): p.read_text("utf-8", "replace") for p in sorted(work.rglob("*")) if p.is_file()}
    files.pop("mine.yaml")
    return {"stdout": proc.stdout, "stderr": proc.stderr, **files}


def test_every_output_was_written_and_holds_the_reply(shown: dict[str, str]) -> None:
    """The control: the reports exist and show the model's words, masked where the secrets stood."""
    for name in ("r.json", "r.md", "r.html", "r.xml", "summary.md", "record.md", "record.jsonl"):
        assert name in shown, sorted(shown)
    assert any(name.startswith("baselines/") for name in shown)
    for name in ("stdout", "r.json", "r.md", "r.html", "r.xml"):
        assert MARK in shown[name] and "***" in shown[name], name
    assert "::error title=SQL regression" in shown["stdout"], "the harness's own annotations still go out"
    assert json.loads(shown["r.json"])["questions"], "the JSON report is still JSON"


@pytest.mark.parametrize("secret", [*SECRETS, *SIGNED_PARTS], ids=lambda s: s[:12])
def test_no_form_of_any_secret_is_in_any_output(shown: dict[str, str], secret: str) -> None:
    forms = secret_forms(secret) | secret_forms(urllib.parse.unquote(secret))
    leaks = [(name, form) for name, text in shown.items() for form in forms if form in text]
    assert not leaks, leaks[:5]


def test_the_secrets_are_known_to_the_one_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process: the environment's secrets, by name, by shape and in URLs, are what the redaction masks."""
    monkeypatch.setenv("DEPLOY_TOKEN", NAMED_TOKEN)
    monkeypatch.setenv("BUILD_NOTE", SHAPED_TOKEN)
    monkeypatch.setenv("REPLICA_URL", f"postgresql://{LONE_USER}@replica.internal/shop")
    monkeypatch.setenv("ROLE_URL", "postgresql://postgres@localhost/shop")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    known = outbound.known_secrets()
    assert {NAMED_TOKEN, SHAPED_TOKEN, LONE_USER} <= known
    assert "postgres" not in known, "a role name is masked in the URL shown, never as a word"
    assert "false" not in known, "a setting's word masked as a token would break a JSON report's literals"
    assert outbound.redact(json.dumps({"k": NAMED_TOKEN, "ok": False})) == '{"k": "***", "ok": false}'


# --- the streams: whatever is printed, however it is cut -----------------------------------------------


def _stream(monkeypatch: pytest.MonkeyPatch) -> tuple[outbound.RedactingStream, io.StringIO]:
    monkeypatch.setenv("DEPLOY_TOKEN", NAMED_TOKEN)
    raw = io.StringIO()
    return outbound.RedactingStream(raw), raw


def test_a_secret_written_in_pieces_is_masked_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    stream, raw = _stream(monkeypatch)
    for piece in ("said ", NAMED_TOKEN[:5], NAMED_TOKEN[5:11]):
        stream.write(piece)
        stream.flush()  # a flush in the middle of the line, in the middle of the secret
    stream.write(NAMED_TOKEN[11:] + " ok\n")
    assert raw.getvalue() == "said *** ok\n"


def test_a_command_written_in_pieces_is_neutralised_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    stream, raw = _stream(monkeypatch)
    for piece in ("\u00a0", ":", ":error::x\rnext #", "#[add-mask]y\n"):
        stream.write(piece)
        stream.flush()
    assert raw.getvalue() == "\u00a0\\x3a:error::x\rnext #\\u0023[add-mask]y\n"


def test_the_harness_s_own_annotation_goes_past_it_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    stream, raw = _stream(monkeypatch)
    stream.write("a line without its end")
    outbound.write_command(f"::error title=SQL regression::q1 said {NAMED_TOKEN}", stream)  # type: ignore[arg-type]
    assert raw.getvalue() == "a line without its end\n::error title=SQL regression::q1 said ***\n"


def test_a_command_line_s_streams_are_restored_and_flushed() -> None:
    out, err = sys.stdout, sys.stderr
    with outbound.redacting_streams():
        assert isinstance(sys.stdout, outbound.RedactingStream) and isinstance(sys.stderr, outbound.RedactingStream)
        with outbound.redacting_streams():  # nested: the outer one stays
            assert isinstance(sys.stdout.raw, type(out))
    assert (sys.stdout, sys.stderr) == (out, err)


def test_a_secret_the_run_made_is_registered_and_masked() -> None:
    """The throwaway PostgreSQL server's passwords are in neither the environment nor the command line."""
    made = "f0e1d2c3b4a5968778695a4b"
    assert outbound.redact(f"password authentication failed: {made}") == f"password authentication failed: {made}"
    outbound.register([made])
    assert outbound.redact(f"password authentication failed: {made}") == "password authentication failed: ***"
