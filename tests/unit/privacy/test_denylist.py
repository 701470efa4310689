"""The denylist and the workspace boundary, with real symlinks."""

from __future__ import annotations

import os

import pytest

from lsp_server.privacy import DEFAULT_DENY_FILES, Denylist, Privacy
from lsp_server.privacy.denylist import outside


@pytest.mark.parametrize("name", [
    ".env", ".env.local", "prod.env", "server.pem", "tls.key", "id_rsa", "id_ed25519.pub", ".npmrc",
    ".pypirc", "aws_credentials.py", "credentials.json", "secrets.py", "secrets.yaml", ".ENV",
])
def test_default_globs_deny_secret_files(name):
    assert Denylist(DEFAULT_DENY_FILES).denies(f"/w/project/sub/{name}")


@pytest.mark.parametrize("name", ["main.py", "environment.py", "keys.py", "secret_santa_test.go", "env.ts"])
def test_default_globs_leave_source_alone(name):
    assert not Denylist(DEFAULT_DENY_FILES).denies(f"/w/project/{name}")


def test_globs_with_a_slash_match_the_path():
    deny = Denylist(["**/.ssh/**", "**/deploy/prod_*.py"])
    assert deny.denies("/home/u/.ssh/config")
    assert deny.denies("/w/p/deploy/prod_settings.py")
    assert not deny.denies("/w/p/deploy/dev_settings.py")


def test_a_symlink_to_a_denied_file_is_denied(tmp_path):
    (tmp_path / ".env").write_text("A=1\n")
    os.symlink(tmp_path / ".env", tmp_path / "settings.py")
    assert Denylist(DEFAULT_DENY_FILES).denies(str(tmp_path / "settings.py"))


def test_outside_resolves_symlinks(tmp_path):
    root, other = tmp_path / "ws", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    (other / "leak.py").write_text("X = 1\n")
    (root / "inner.py").write_text("Y = 1\n")
    os.symlink(other / "leak.py", root / "leak.py")
    os.symlink(root / "inner.py", root / "alias.py")
    os.symlink("/etc/passwd", root / "passwd.py")
    assert outside(str(root / "leak.py"), [str(root)])
    assert outside(str(root / "passwd.py"), [str(root)])
    assert not outside(str(root / "alias.py"), [str(root)])
    assert not outside(str(root / "inner.py"), [str(root)])
    assert outside(str(root / "inner.py"), [])  # no roots: nothing is inside


def test_privacy_refuse_and_counts(tmp_path):
    (tmp_path / "a.py").write_text("A = 1\n")
    privacy = Privacy(roots=lambda: [str(tmp_path)])
    assert privacy.refuse(str(tmp_path / "a.py")) is None
    assert privacy.refuse(str(tmp_path / ".env")) == "denied"
    assert privacy.refuse("/etc/passwd") == "outside_workspace"
    stats = privacy.stats()
    assert (stats["deniedFiles"], stats["outsideWorkspace"]) == (1, 1)


def test_privacy_redacts_file_bytes_keeping_their_length():
    privacy = Privacy()
    data = 'TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"  # é\n'.encode()
    masked = privacy.redact("/w/a.py", data)
    assert b"ghp_" not in masked and len(masked) == len(data)
    assert privacy.stats()["filesRedacted"] == 1 and privacy.stats()["redactionsByKind"] == {"github_token": 1}


def test_backend_credentials_are_known_secrets(monkeypatch):
    import base64

    from inference.backend_spec import BackendSpec
    from lsp_server.privacy import api_keys_of

    monkeypatch.setenv("ARBOR_UNIT_KEY", "env-key-1234")
    specs = [BackendSpec(url="https://bob:pw%40x@h/v1"), BackendSpec(api_key_env="ARBOR_UNIT_KEY"),
             BackendSpec(api_key="inline-key-5678")]
    keys = api_keys_of(specs)
    assert {"bob:pw%40x", "pw%40x", "env-key-1234", "inline-key-5678"} <= set(keys)
    assert base64.b64encode(b"bob:pw@x").decode() in keys
    privacy = Privacy()
    privacy.apply(privacy.settings, keys)
    assert "env-key-1234" not in privacy.scrub("echo: Bearer env-key-1234")
