"""The current file's own definitions (pruning.candidates.local_definitions), also where a
half-written line breaks the tree around them."""

from indexer import parse, syntax_for
from pruning.candidates import local_definitions

WHOLE = b'''class Store:
    def get(self, key):
        return key


def build(size=3):
    return Store()
'''

# the end of `build`'s header not written yet: the parser wraps what follows in an ERROR node
HALF_WRITTEN = b'''class Store:
    def get(self, key):
        return key


def build(
    *, size: int = 3

    """Build a store."""
    return Store()


class Cache:
    def put(self, key):
        return key
'''


def _names(source: bytes) -> set[str]:
    syntax = syntax_for("python")
    tree = parse("python", source)
    return set(local_definitions(tree.root_node, syntax, source))


def test_top_level_definitions_and_class_members():
    assert _names(WHOLE) == {"Store", "get", "build"}


def test_definitions_a_half_written_line_wraps_in_an_error_node_are_still_found():
    assert parse("python", HALF_WRITTEN).root_node.children[0].type == "ERROR"
    assert {"Store", "get", "build"} <= _names(HALF_WRITTEN)
