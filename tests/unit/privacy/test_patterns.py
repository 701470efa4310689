"""Secret patterns: what is masked, what is left alone, and that lengths never change."""

from __future__ import annotations

import pytest

from lsp_server.privacy.patterns import MASK, find_secrets, redact

SECRETS = {
    "openai": ('API_KEY = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"', "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e"),
    "aws_id": ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    "aws_secret": ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                   "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    "github": ('token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"', "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
    "slack": ("SLACK = 'xoxb-1234567890-abcdefghijkl'", "xoxb-1234567890-abcdefghijkl"),
    "stripe": ("export STRIPE=sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"),
    "google": ('key = "AIzaSyA1234567890abcdefghijklmnopqrstuv"', "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    "db_url": ('DATABASE_URL = "postgres://admin:hunter2pass@db.internal:5432/app"', "admin:hunter2pass"),
    "url_token": ("git clone https://ghtoken123abc@github.com/org/repo", "ghtoken123abc"),
    "password": ('password = "hunter2!"', "hunter2!"),
    "yaml_password": ("  db_password: s3cr3t-Value", "s3cr3t-Value"),
    "json_key": ('{"api_key": "Zx9vQ2LmN8pR4tW6"}', "Zx9vQ2LmN8pR4tW6"),
    "bearer": ('headers = {"X": "Bearer abcdefghijklmnop1234567890"}', "abcdefghijklmnop1234567890"),
    "jwt": ("t = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'",
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    "signing_key": ('signing_key = "a8f5f167f44f4964e6c998dee827110c"', "a8f5f167f44f4964e6c998dee827110c"),
}

HARMLESS = [
    "token = request.headers",
    'TOKEN_TYPE = "bearer"',
    'secret_key = os.environ.get("SECRET")',
    "def get_api_key(name): return os.environ['API_KEY']",
    'monkey = "a8f5f167f44f4964e6c998dee827110c"',
    "api_key: Optional[str] = None",
    'password = "changeme"',
    'url = "https://example.com/path?q=1"',
    "for token in tokens: keys[token] = value",
    "author = 'Jane Smith'",
]


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_each_kind_of_secret_is_masked_in_place(name):
    line, secret = SECRETS[name]
    text = f"before\n{line}\nafter\n"
    masked = redact(text)
    assert secret not in masked
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert masked.startswith("before\n") and masked.endswith("\nafter\n")
    assert redact(masked) == masked  # idempotent


@pytest.mark.parametrize("line", HARMLESS)
def test_ordinary_code_is_left_alone(line):
    assert redact(line) == line, find_secrets(line)


def test_private_key_block_body_is_masked_and_its_frame_kept():
    block = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234567890abcdef\nABCDEFGH/+==\n"
             "-----END RSA PRIVATE KEY-----\n")
    masked = redact("x = 1\n" + block + "y = 2\n")
    assert "MIIEpAIBAAKCAQEA" not in masked and "ABCDEFGH" not in masked
    assert "-----BEGIN RSA PRIVATE KEY-----\n" in masked and "-----END RSA PRIVATE KEY-----" in masked
    assert masked.endswith("y = 2\n")


def test_private_key_in_a_string_with_escaped_newlines_and_without_an_end_line():
    embedded = 'KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\\n-----END OPENSSH PRIVATE KEY-----"'
    assert "b3BlbnNzaC1rZXktdjEA" not in redact(embedded)
    cut = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASD\n"
    assert "MIIEvQIBADANBgkq" not in redact(cut)


def test_lengths_hold_in_every_encoding_with_non_ascii_around():
    text = 'naïve = "é"\nİ password = "pässwörd-Zx9"\n'
    masked = redact(text)
    assert len(masked) == len(text)
    assert len(masked.encode("utf-8")) == len(text.encode("utf-8"))
    assert len(masked.encode("utf-16-le")) == len(text.encode("utf-16-le"))
    assert "ä" in masked and "pss" not in masked.replace(MASK, "")


def test_counts_one_per_secret():
    kinds = []
    redact(SECRETS["openai"][0] + "\n" + SECRETS["db_url"][0], kinds.append)
    assert sorted(kinds) == ["api_token", "url_userinfo"]
