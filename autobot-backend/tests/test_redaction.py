"""Secrets in the URL forms a second probe found printed: a token as the user name, a ``sig=`` parameter,
a fragment (issue 23, point 6, its URL half)."""

from __future__ import annotations

import pytest

from services.redaction import (
    environment_secrets,
    redact_http_url,
    redact_traceback,
    redact_url,
    redact_urls_in_text,
    scrub_secrets,
    url_secrets,
)


@pytest.mark.parametrize(
    ("url", "secret"),
    [
        ("http://sk-live-4f9a2b@127.0.0.1:8080/v1", "sk-live-4f9a2b"),
        ("https://api.example.com/v1?sig=Zm9vYmFy&region=eu", "Zm9vYmFy"),
        ("https://api.example.com/v1#access_token=abcdef123", "access_token=abcdef123"),
        ("https://bob:hunter2@api.example.com/v1", "hunter2"),
    ],
)
def test_no_form_of_an_endpoint_secret_is_shown(url: str, secret: str) -> None:
    shown = redact_http_url(url)
    assert secret not in shown and "***" in shown
    assert secret in url_secrets(url), "and it is scrubbed from any text that echoes it"


def test_what_is_not_secret_stays_readable() -> None:
    assert redact_http_url("https://api.example.com/v1?region=eu") == "https://api.example.com/v1?region=eu"
    assert redact_url("sqlite:///shop.db?mode=ro") == "sqlite:///shop.db?mode=ro"
    assert url_secrets("http://a@host/v1") == set(), "a one-letter user name would mask every 'a' in a message"


def test_a_database_url_sig_parameter_is_masked() -> None:
    assert redact_url("postgresql://u@db/x?sig=abc123") == "postgresql://u@db/x?sig=***"


# --- a key masked only where it stands as a whole token (issue 23, point 6) -------------------------------


def test_a_one_letter_secret_masks_the_word_never_the_letter() -> None:
    text = "a bad key: a (set NL_SQL_LLM_API_KEY to a real one)"
    assert scrub_secrets(text, {"a"}) == "*** bad key: *** (set NL_SQL_LLM_API_KEY to *** real one)"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Bearer sk-live-abc123.", "Bearer ***."),  # punctuation after it is no part of a key
        ("key=sk-live-abc123&x=1", "key=***&x=1"),
        ("key%3Dsk-live-abc123%26", "key%3D***%26"),  # percent-escaped neighbours
        ("'sk-live-abc123'", "'***'"),
        ("sk-live-abc123-rotated and xsk-live-abc123", "sk-live-abc123-rotated and xsk-live-abc123"),  # other tokens
    ],
)
def test_a_secret_is_masked_as_a_whole_token(text: str, shown: str) -> None:
    assert scrub_secrets(text, {"sk-live-abc123"}) == shown


def test_the_longer_secret_is_masked_first() -> None:
    assert scrub_secrets("pw pw-long", {"pw", "pw-long"}) == "*** ***"


# --- URLs written without a scheme, and database URLs with a fragment -------------------------------------


@pytest.mark.parametrize(
    ("url", "secret", "shown"),
    [
        ("sk-live-4f9a2b@127.0.0.1:8080/v1", "sk-live-4f9a2b", "***@127.0.0.1:8080/v1"),
        ("127.0.0.1:8080/v1?key=Zm9vYmFy", "Zm9vYmFy", "127.0.0.1:8080/v1?key=***"),
        ("api.example.com/v1#access-token-1", "access-token-1", "api.example.com/v1#***"),
        ("bob:hunter2@db.example.com/v1", "hunter2", "***@db.example.com/v1"),
    ],
)
def test_a_url_without_a_scheme_keeps_its_secret(url: str, secret: str, shown: str) -> None:
    assert redact_http_url(url) == shown
    assert secret in url_secrets(url)


def test_a_url_that_does_not_parse_still_names_its_secrets() -> None:
    assert url_secrets("http://[::1/v1?key=Zm9vYmFy#frag-secret") == {"Zm9vYmFy", "frag-secret"}
    assert url_secrets("sqlite:///data/with@sign/x.db") == set(), "an @ further along a path is no user info"


def test_a_database_url_fragment_is_masked() -> None:
    assert redact_url("postgresql://bob@db:5432/shop#Zm9vYmFy") == "postgresql://bob@db:5432/shop#***"
    assert redact_url("postgresql://bob@db:5432/shop%23Zm9vYmFy") == "postgresql://bob@db:5432/shop#***"
    assert "Zm9vYmFy" in url_secrets("postgresql://bob@db:5432/shop#Zm9vYmFy")


# --- what a traceback may quote ---------------------------------------------------------------------------


def test_the_environment_and_the_command_line_name_the_secrets_a_traceback_may_quote() -> None:
    environ = {
        "NL_SQL_LLM_API_KEY": "sk-live-0123456789",
        "NL_SQL_JUDGE_BASE_URL": "judge-token-1@127.0.0.1:9/v1",
        "MY_DATABASE_URL": "postgresql://bob:hunter2@db/x",
        "PWD": "/work/repo",  # a path, not a credential: masking it would blank every path in a traceback
        "GITHUB_TOKEN": "ok",  # too short to be told from a word
    }
    argv = ["--db-url", "postgresql://alice:pw-secret@db/x", "--fixture-url=postgresql://carol:other-pw@db/y"]
    assert environment_secrets(environ, argv) == {
        "sk-live-0123456789",
        "judge-token-1",
        "hunter2",
        "pw-secret",
        "other-pw",
    }
    text = 'File "/work/repo/x.py"\nValueError: judge-token-1@127.0.0.1:9/v1 with sk-live-0123456789 and pw-secret'
    assert (
        redact_traceback(text, environ, argv)
        == 'File "/work/repo/x.py"\nValueError: ***@127.0.0.1:9/v1 with *** and ***'
    )


# --- the low findings of the third probe (issue 38, point 6) ----------------------------------------------

HOOK_TOKEN = "xZ81kQ2mN7pL4rT6vW9yA3bC"


@pytest.mark.parametrize(
    ("url", "secret", "shown"),
    [
        (f"https://hooks.example.com/services/T0AB/B0CD/{HOOK_TOKEN}", HOOK_TOKEN,
         "https://hooks.example.com/services/T0AB/B0CD/***"),
        ("https://api.example.com/v1;jsessionid=F00DCAFE42?region=eu", "F00DCAFE42",
         "https://api.example.com/v1;jsessionid=***?region=eu"),
        ("https://api.example.com/cb?code=4/0AbCdEf&state=x", "4/0AbCdEf", "https://api.example.com/cb?code=***&state=x"),
        ("https://acct.blob.example.net/c/b?skoid=6b1f-42aa&sktid=72f9-41bf&sig=c2ln", "6b1f-42aa",
         "https://acct.blob.example.net/c/b?skoid=***&sktid=***&sig=***"),
    ],
    ids=["path_token", "jsessionid", "oauth_code", "azure_skoid"],
)  # fmt: skip
def test_secrets_in_a_path_token_or_a_parameter_of_a_common_name(url: str, secret: str, shown: str) -> None:
    assert redact_http_url(url) == shown
    assert secret in url_secrets(url)
    assert secret not in redact_urls_in_text(f"the model said {url} twice: {url}")


def test_a_model_name_in_a_path_is_no_token() -> None:
    url = "https://x.openai.example.com/openai/deployments/gpt-4o-2024-08-06/chat"
    assert redact_http_url(url) == url and url_secrets(url) == set()


def test_a_database_url_with_a_user_alone_is_shown_masked() -> None:
    """The user alone may be a token: masked in the URL shown; scrubbed from other text when it looks like one
    (a digit in it), not when it is a role's name, which would blank the word ``postgres`` in every report."""
    assert redact_url("postgresql://svc7x2kq9m@replica.internal/shop") == "postgresql://***@replica.internal/shop"
    assert url_secrets("postgresql://svc7x2kq9m@replica.internal/shop") == {"svc7x2kq9m"}
    assert redact_url("postgresql://postgres@localhost/shop") == "postgresql://***@localhost/shop"
    assert url_secrets("postgresql://postgres@localhost/shop") == set()


def test_a_database_url_that_does_not_parse_is_not_echoed() -> None:
    assert redact_url("notaurl Sekr3tPw") == "<a database URL that does not parse>"
