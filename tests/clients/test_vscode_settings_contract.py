"""The VS Code extension's `arbor.*` settings mirror the server's settings tree.

Every server key the extension contributes must be one the server accepts, with the server's own
default; every leaf of the server's settings must be contributed (except the documented ones).
If this fails after a server setting was added or renamed, run
`python editors/vscode/scripts/sync_settings.py` (it rewrites package.json's server keys).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from inference.backend_spec import BACKEND_KINDS, BackendSpec
from lsp_server.config import Settings, camel, load_settings, to_wire

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json"
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
