"""Secrets in the URL forms a second probe found printed: a token as the user name, a ``sig=`` parameter,
a fragment (issue 23, point 6, its URL half)."""

from __future__ import annotations

import pytest

from services.redaction import redact_http_url, redact_url, url_secrets


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
