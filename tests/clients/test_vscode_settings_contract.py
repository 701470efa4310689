"""The VS Code extension's `arbor.*` settings mirror the server's settings tree.

Every server key the extension contributes must be one the server accepts, with the server's own
default; every leaf of the server's settings must be contributed (except the documented ones).
If this fails after a server setting was added or renamed, run
`python editors/vscode/scripts/sync_settings.py` (it rewrites package.json's server keys and the
extension README's settings table from the server's defaults and README.md's settings table).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from inference.backend_spec import BACKEND_KINDS, BackendSpec
from lsp_server.config import Settings, camel, load_settings, to_wire

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_JSON = ROOT / "editors" / "vscode" / "package.json"
EXTENSION_README = ROOT / "editors" / "vscode" / "README.md"
_spec = importlib.util.spec_from_file_location("sync_settings", ROOT / "editors" / "vscode" / "scripts" / "sync_settings.py")
sync_settings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sync_settings)
RANGES, readme_descriptions, settings_table, synced = (
    sync_settings.RANGES, sync_settings.readme_descriptions, sync_settings.settings_table, sync_settings.synced)
CLIENT_ONLY = ("arbor.enable", "arbor.server.", "arbor.trace.", "arbor.vscode.")
# Server keys the extension leaves out on purpose: `arbor.enable` is the editor's own switch.
NOT_MIRRORED = {"completion.enabled"}


def contributed() -> dict[str, dict[str, Any]]:
    properties = json.loads(PACKAGE_JSON.read_text())["contributes"]["configuration"]["properties"]
    return {key[len("arbor."):]: spec for key, spec in properties.items()
            if not any(key == p or (p.endswith(".") and key.startswith(p)) for p in CLIENT_ONLY)}


def leaves(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(leaves(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def nest(dotted: str, value: Any) -> dict[str, Any]:
    head, _, rest = dotted.partition(".")
    return {head: nest(rest, value) if rest else value}


def test_every_contributed_server_key_is_accepted_with_the_servers_default():
    defaults = leaves(to_wire(Settings()))
    for key, spec in contributed().items():
        if key == "backends":
            continue
        assert key in defaults, f"arbor.{key} is not a server setting"
        assert spec.get("default") == defaults[key], f"arbor.{key}: default differs from the server's"
        _, problems = load_settings(nest(key, spec["default"]))
        assert problems == [], (key, problems)


def test_every_server_setting_is_contributed():
    missing = set(leaves(to_wire(Settings()))) - set(contributed()) - NOT_MIRRORED
    missing = {key for key in missing if not key.startswith("backends")}
    assert not missing, (f"arbor.{', arbor.'.join(sorted(missing))} missing from editors/vscode/package.json: "
                         "run python editors/vscode/scripts/sync_settings.py")


def test_backend_entry_schema_lists_every_backend_field():
    schema = contributed()["backends"]["items"]["properties"]
    fields = {camel(f.name) for f in dataclasses.fields(BackendSpec)}
    assert set(schema) == fields
    assert schema["kind"]["enum"] == list(BACKEND_KINDS)


def properties() -> dict[str, dict[str, Any]]:
    return json.loads(PACKAGE_JSON.read_text())["contributes"]["configuration"]["properties"]


def text_of(spec: dict[str, Any]) -> str:
    return spec.get("markdownDescription") or spec.get("description") or ""


def test_every_setting_has_a_real_description():
    """No placeholder, no bare key: each server key says what README.md's settings table says."""
    readme = readme_descriptions()
    for key, spec in properties().items():
        text = text_of(spec)
        assert len(text) >= 20, f"{key}: description {text!r} is missing or too short"
        assert "see the settings table" not in text.lower(), f"{key}: placeholder description {text!r}"
        if not sync_settings.is_client_only(key):  # client keys and `arbor.backends` are written by hand
            meaning = readme[key[len("arbor."):]]
            assert text.startswith(meaning[0].upper() + meaning[1:]), f"{key}: description is not README's row"
            assert f"default `{json.dumps(spec['default'])}`" in text, f"{key}: description lacks the default"


def test_manifest_and_extension_readme_are_what_sync_settings_writes():
    props = properties()
    assert synced(props) == props, "run python editors/vscode/scripts/sync_settings.py"
    assert settings_table(props) in EXTENSION_README.read_text(), \
        "editors/vscode/README.md's settings table is stale: run python editors/vscode/scripts/sync_settings.py"


@pytest.mark.parametrize("key", sorted(RANGES))
def test_each_declared_range_is_the_servers(key):
    """A bound in the manifest accepts what the server accepts and stops what it rejects."""
    low, high = RANGES[key]
    integer = isinstance(leaves(to_wire(Settings()))[key], int)
    step = 1 if integer else 0.01
    if low is not None:
        assert load_settings(nest(key, low - step))[1], f"{key}: the server accepts {low - step} below the minimum"
        if integer:
            assert not load_settings(nest(key, low))[1], f"{key}: the server rejects the minimum {low}"
    if high is not None:
        assert load_settings(nest(key, high + step))[1], f"{key}: the server accepts {high + step} above the maximum"
    assert properties()[f"arbor.{key}"].get("minimum") == low
