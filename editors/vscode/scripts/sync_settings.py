"""Regenerate the server settings in editors/vscode/package.json from `lsp_server.config.Settings`.

Run after a server setting is added, renamed or given a new default:
    python editors/vscode/scripts/sync_settings.py
Client-only keys (`arbor.enable`, `arbor.server.*`, `arbor.trace.*`, `arbor.vscode.*`) and
`arbor.backends` are kept as they are; every other `arbor.*` key is rebuilt from the server's
defaults, keeping a description or enum already written by hand. Keys the server no longer has
are dropped. tests/clients/test_vscode_settings_contract.py checks the result.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from lsp_server.config import MULTILINE_MODES, Settings, to_wire  # noqa: E402

PACKAGE_JSON = ROOT / "editors" / "vscode" / "package.json"
CLIENT_ONLY = ("arbor.enable", "arbor.server.", "arbor.trace.", "arbor.vscode.", "arbor.backends")
NOT_MIRRORED = {"completion.enabled"}  # `arbor.enable` is the editor's own switch
ENUMS = {"completion.multiline": list(MULTILINE_MODES), "logLevel": ["debug", "info", "warning", "error"]}


PLACEHOLDER = "Server setting `{key}` (see the settings table in the README)."
README_ROW = re.compile(r"^\| `([A-Za-z.\[\]]+)` \| [^|]* \| (.+) \|\s*$")


def readme_descriptions() -> dict[str, str]:
    """Descriptions from README's settings table: rows `| `key` | default | description |`."""
    readme = ROOT / "README.md"
    if not readme.exists():
        return {}
    found = {}
    for line in readme.read_text().splitlines():
        match = README_ROW.match(line)
        if match:
            found[match.group(1)] = match.group(2).strip()
    return found


def is_client_only(key: str) -> bool:
    return any(key == p or (p.endswith(".") and key.startswith(p)) for p in CLIENT_ONLY)


def leaves(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(leaves(value, f"{prefix}{key}."))
        elif f"{prefix}{key}" != "backends":  # backends' schema is written by hand
            out[f"{prefix}{key}"] = value
    return out


def schema_for(key: str, default: Any, old: dict[str, Any], readme: dict[str, str]) -> dict[str, Any]:
    if isinstance(default, list):
        spec: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "default": default}
    else:
        kind = "boolean" if isinstance(default, bool) else "number" if isinstance(default, (int, float)) else "string"
        spec = {"type": kind, "default": default}
    enum = old.get("enum") or ENUMS.get(key)
    if enum:
        spec["enum"] = enum
    for extra in ("minimum", "maximum"):
        if extra in old:
            spec[extra] = old[extra]
    placeholder = PLACEHOLDER.format(key=key)
    written = old.get("description")
    if written and written != placeholder:
        spec["description"] = written
    elif key in readme:
        spec["description"] = f"{readme[key]} (server setting `{key}`)"
    else:
        spec["description"] = placeholder
    return spec


def synced(properties: dict[str, Any]) -> dict[str, Any]:
    server = {k: v for k, v in leaves(to_wire(Settings())).items() if k not in NOT_MIRRORED}
    out = {key: spec for key, spec in properties.items() if is_client_only(key)}
    readme = readme_descriptions()
    for key, default in server.items():
        full = f"arbor.{key}"
        out[full] = schema_for(key, default, properties.get(full, {}), readme)
    return out


def main() -> int:
    package = json.loads(PACKAGE_JSON.read_text())
    configuration = package["contributes"]["configuration"]
    before = configuration["properties"]
    configuration["properties"] = synced(before)
    PACKAGE_JSON.write_text(json.dumps(package, indent=2) + "\n")
    added = sorted(set(configuration["properties"]) - set(before))
    dropped = sorted(set(before) - set(configuration["properties"]))
    print(json.dumps({"added": added, "dropped": dropped}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
