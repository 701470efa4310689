"""build_context on small multi-file workspaces: referenced definitions, budget, determinism."""

import textwrap

import pytest
from hypothesis import given, settings, strategies as st

from pruning.budget import ApproxTokenizer
from pruning.context import build_context

PROJECTS = {
    "python": {
        "repo.py": '''
            class Repository:
                """Stores items by id."""

                def __init__(self, path: str):
                    self.path = path

                def save(self, item) -> None:
                    """Persist one item."""
                    raise NotImplementedError

                def load(self, key: str):
                    return None
            ''',
        "service.py": '''
            from repo import Repository


            class Service:
                def __init__(self, repo: Repository):
                    self.repo = repo

                def store(self, item):
                    self.repo.save(item)
                    CURSOR
            ''',
    },
    "typescript": {
        "repo.ts": '''
            /** Stores items by id. */
            export class Repository {
              constructor(private path: string) {}
              save(item: Item): void {
                throw new Error("todo");
              }
            }
            export interface Item { id: string }
            ''',
        "service.ts": '''
            import { Repository, Item } from './repo';

            export class Service {
              constructor(private repo: Repository) {}
              store(item: Item) {
                this.repo.save(item);
                CURSOR
              }
            }
            ''',
    },
    "go": {
        "go.mod": "module example.com/shop\n",
        "store/repo.go": '''
            package store

            // Repository stores items.
            type Repository struct {
            	path string
            }

            // Save persists one item.
            func (r *Repository) Save(item string) error {
            	return nil
            }

            func NewRepository(path string) *Repository {
            	return &Repository{path: path}
            }
            ''',
        "main.go": '''
            package main

            import "example.com/shop/store"

            func run() {
            	repo := store.NewRepository("x")
            	repo.Save("a")
            	CURSOR
            }
            ''',
    },
    "java": {
        "com/shop/Repository.java": '''
            package com.shop;

            /** Stores items. */
            public class Repository {
              private String path;
              public Repository(String path) { this.path = path; }
              public void save(String item) {
                throw new UnsupportedOperationException();
              }
            }
            ''',
        "com/shop/Service.java": '''
            package com.shop;

            public class Service {
              private Repository repo;
              public void store(String item) {
                repo.save(item);
                CURSOR
              }
            }
            ''',
    },
}
CURRENT = {"python": "service.py", "typescript": "service.ts", "go": "main.go", "java": "com/shop/Service.java"}
EXPECTED = {  # (defining file, symbol) that must be in the context
    "python": {("repo.py", "Repository"), ("repo.py", "save")},
    "typescript": {("repo.ts", "Repository"), ("repo.ts", "Item")},
    "go": {("store/repo.go", "NewRepository"), ("store/repo.go", "Save")},
    "java": {("com/shop/Repository.java", "Repository")},
}


def make_workspace(write_workspace, root, language):
    return write_workspace(root, PROJECTS[language])


@pytest.mark.parametrize("language", sorted(PROJECTS))
def test_referenced_definitions_from_other_files(tmp_path, language, write_workspace):
    index = make_workspace(write_workspace, tmp_path, language)
    path = str(tmp_path / CURRENT[language])
    text = (tmp_path / CURRENT[language]).read_text().replace("CURSOR", "")
    offset = text.index("\n", text.index("save(" if language != "go" else "Save(")) + 1
    offset = len(text[:offset]) + (len(text[offset:]) - len(text[offset:].lstrip(" \t")))
    parts = build_context(path, text, offset, budget_tokens=1024, index=index, workspace_root=str(tmp_path))
    for defining, symbol in EXPECTED[language]:  # shown as a snippet of its own or inside another's
        assert any(s.path == defining and (s.symbol == symbol or f" {symbol}" in s.text) for s in parts.snippets), \
            (symbol, parts.to_json()["snippets"])
    assert parts.tokens <= parts.budget
    for snippet in parts.snippets:
        assert snippet.reason and snippet.tokens > 0 and snippet.start_line <= snippet.end_line
    defining = {p for p, _ in EXPECTED[language]}
    assert defining <= {p for p, _ in parts.depends_on}


def test_python_method_rendered_with_its_class_and_docstring(tmp_path, write_workspace):
    index = make_workspace(write_workspace, tmp_path, "python")
    path = str(tmp_path / "service.py")
    text = (tmp_path / "service.py").read_text().replace("CURSOR", "")
    offset = text.index("self.repo.save")
    parts = build_context(path, text, offset, index=index, workspace_root=str(tmp_path))
    # the method alone under its class's header, or inside the class's skeleton
    save = next(s for s in parts.snippets if "    def save(self, item) -> None:" in s.text)
    assert save.text.startswith("class Repository:\n")
    assert '    def save(self, item) -> None:\n        """Persist one item."""' in save.text
    assert save.start_line <= 7 and 9 <= save.end_line


def test_layout_is_stable_first(tmp_path, write_workspace):
    index = make_workspace(write_workspace, tmp_path, "python")
    path = str(tmp_path / "service.py")
    text = (tmp_path / "service.py").read_text().replace("CURSOR", "")
    parts = build_context(path, text, text.index("self.repo.save"), index=index, workspace_root=str(tmp_path))
    keys = [(s.path == "service.py", s.path, s.start_line) for s in parts.snippets]
    assert keys == sorted(keys)


SOURCE = textwrap.dedent('''
    import os
    from collections import OrderedDict


    class Cache:
        """A small LRU cache."""

        def __init__(self, size: int):
            self.size = size
            self.items = OrderedDict()

        def get(self, key):
            value = self.items.pop(key)
            self.items[key] = value
            return value

        def put(self, key, value):
            if len(self.items) >= self.size:
                self.items.popitem(last=False)
            self.items[key] = value


    def make(size):
        cache = Cache(size)
        cache.put("a", os.getcwd())
        return cache
    ''') * 3


@settings(max_examples=60, deadline=None)
@given(st.integers(0, len(SOURCE)), st.integers(64, 600))
def test_budget_never_exceeded_and_deterministic(offset, budget):
    tokenizer = ApproxTokenizer()
    first = build_context("/w/cache.py", SOURCE, offset, budget_tokens=budget, tokenizer=tokenizer)
    second = build_context("/w/cache.py", SOURCE, offset, budget_tokens=budget, tokenizer=tokenizer)
    assert first == second
    blocks = {s.path for s in first.snippets}
    counted = (tokenizer.count(first.prefix) + tokenizer.count(first.suffix)
               + sum(tokenizer.count(s.text) for s in first.snippets)
               + sum(tokenizer.count(p) + 3 for p in blocks))
    assert counted == first.tokens <= budget
    assert SOURCE[:offset].endswith(first.prefix) and SOURCE[offset:].startswith(first.suffix)


def test_nearby_cursors_share_the_prompt_start():
    at = SOURCE.index("def put", 400)
    a = build_context("/w/cache.py", SOURCE, at, budget_tokens=400)
    b = build_context("/w/cache.py", SOURCE, at + 4, budget_tokens=400)
    assert [s.text for s in a.snippets] == [s.text for s in b.snippets]


@given(st.binary(max_size=80) | st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"\x1c",
                                                      b"\xa0", b"\x85", b"a", b"(", b"\xc3\xa9"]),
                                      max_size=30).map(b"".join))
def test_whitespace_collapsing_equals_the_regex_definition(text):
    import re

    from pruning.semantic_key import normalise
    assert normalise(text) == re.sub(rb"\s+", b" ", text).strip()


def test_semantic_key_ignores_whitespace_but_not_tokens():
    text = "def f(a):\n    x = a + 1\n    "
    base = build_context("/w/m.py", text, len(text)).semantic_key
    spaced = "def f(a):\n    x  =  a + 1\n    "
    other = "def f(a):\n    x = a + 2\n    "
    assert build_context("/w/m.py", spaced, len(spaced)).semantic_key == base
    assert build_context("/w/m.py", other, len(other)).semantic_key != base
