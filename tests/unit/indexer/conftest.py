"""Shared fixtures for indexer tests: fixture projects, tag extraction, scanned indexes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from indexer import WorkspaceIndex, extract_tags, parse

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def fixture_root():
    """fixture_root(lang) -> absolute '/'-separated path of the fixture project for `lang`."""
    return lambda lang: os.path.abspath(FIXTURES / lang).replace(os.sep, "/")


@pytest.fixture
def tags_of():
    """tags_of(lang, source) -> FileTags of `source` (str or bytes)."""

    def extract(lang: str, source: str | bytes):
        data = source.encode() if isinstance(source, str) else source
        return extract_tags(lang, parse(lang, data), data)

    return extract


@pytest.fixture
def scanned(fixture_root):
    """scanned(lang) -> (index, root) with the fixture project of `lang` indexed (no snapshot)."""
    made: list[WorkspaceIndex] = []

    def make(lang: str) -> tuple[WorkspaceIndex, str]:
        index = WorkspaceIndex(snapshot=False)
        root = fixture_root(lang)
        index.scan([root])
        made.append(index)
        return index, root

    yield make
    for index in made:
        index.close()
