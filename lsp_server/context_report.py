"""The JSON shape of a prompt's context, shared by `arbor-ls context --json` and `arbor/context`."""

from __future__ import annotations

from typing import Any

from inference.templates import FimTemplate
from pruning.prompt import PromptParts

from .prompt_request import request_from_parts


def context_report(parts: PromptParts, template: FimTemplate, repo_name: str = "") -> dict[str, Any]:
    data = parts.to_json()
    request = request_from_parts(parts, repo_name=repo_name)
    return {
        "prompt": template.render(request),
        "template": template.name,
        "prefix": data["prefix"],
        "suffix": data["suffix"],
        "path": data["path"],
        "language": data["language"],
        "tokens": data["tokens"],
        "budget": data["budget"],
        "snippets": data["snippets"],
    }
