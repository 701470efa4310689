"""A test double for an in-process backend (configured as `{"kind": "python", "model":
"tests.fakes.in_process_backend:FollowOnBackend"}`): the router treats it as it treats the
embedded engine (background work is its own to put below real requests).

It answers "total = a + b" at first and "\n    return total" once the text before the cursor
ends with that line, and appends every prompt it is asked, one JSON string per line, to
$ARBOR_TEST_REQUEST_LOG, so a test in another process can count the model calls."""

from __future__ import annotations

import json
import os
import re

from inference.api import SamplingParams
from inference.backend_spec import BackendSpec


class FollowOnBackend:
    def __init__(self, spec: BackendSpec) -> None:
        self.name, self.model_id, self.model_family = spec.name, "follow-on", "qwen2.5-coder"
        self.log = os.environ.get("ARBOR_TEST_REQUEST_LOG", "")

    async def stream(self, prompt: str, params: SamplingParams):
        if self.log:
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(json.dumps(prompt) + "\n")
        match = re.search(r"<\|fim_prefix\|>(.*)<\|fim_suffix\|>", prompt, re.S)
        before = match.group(1) if match else prompt
        yield "\n    return total" if before.endswith("total = a + b") else "total = a + b"

    async def aclose(self) -> None:
        pass
