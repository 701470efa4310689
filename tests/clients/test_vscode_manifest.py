"""The VS Code extension's manifest and messages keep VS Code's conventions and the README's word.

Read from the files themselves (no VS Code needed): the Escape binding leaves an open suggestion
list to VS Code, and the "server not found" message recommends the README's install command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"


def keybindings() -> list[dict]:
    return json.loads((VSCODE / "package.json").read_text())["contributes"]["keybindings"]


def when_terms(binding: dict) -> set[str]:
    return {term.strip() for term in binding["when"].split("&&")}


def test_escape_dismisses_only_when_no_suggestion_list_is_open():
    """With the list and ghost text both showing, VS Code's own Escape closes the list first."""
    [escape] = [b for b in keybindings() if b["key"] == "escape"]
    assert escape["command"] == "arbor.dismiss"
    assert {"inlineSuggestionVisible", "arbor.active", "!suggestWidgetVisible"} <= when_terms(escape)


def test_install_hint_is_the_readmes_install_command():
    source = (VSCODE / "src" / "executable.ts").read_text()
    [command] = re.findall(r'export const INSTALL_COMMAND = "([^"]+)";', source)
    readme = (ROOT / "README.md").read_text()
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert re.search(rf"^{re.escape(command)}(\s|$)", install, re.M), f"README's install section lacks {command!r}"
