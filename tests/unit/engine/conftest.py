"""Makes `engine_fixtures` importable (pytest runs with --import-mode=importlib) and parametrises
tests over both model families."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(params=["qwen2", "llama"])
def family(request) -> str:
    return request.param
