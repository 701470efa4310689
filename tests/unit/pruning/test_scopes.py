"""Scope ladder and snippet forms on small fixtures in Python, TypeScript, Go and Java."""

from indexer import syntax_for
from pruning.scopes import scope_chain
from pruning.snippets import render

PY = '''import os

class Repo(Base):
    """A repository.

    Stores things."""
    size = 3

    @property
    def name(self) -> str:
        """The name."""
        return "x"

    def save(self, item):
        x = 1
        CURSOR

    def other(self): pass
'''

TS = """import { Repo } from './repo';
/** The service. */
export class Service extends Base {
  private repo: Repo;
  constructor(repo: Repo) { this.repo = repo; }
  async save(item: Item): Promise<void> {
    this.repo.CURSOR
  }
}
"""

GO = """package main

// Store keeps items.
type Store struct {
	items []int
}

func (s *Store) Add(x int) int {
	return CURSOR
}
"""

JAVA = """package a;

public class Cart extends Base {
  private int count;
  public Cart(int count) { this.count = count; }
  /** Adds one. */
  public int add() {
    return CURSOR;
  }
}
"""


def chain(parse, language, source, marker="CURSOR"):
    data = source.encode()
    offset = data.index(marker.encode())
    tree = parse(language, data)
    return data, scope_chain(tree.root_node, data, offset, syntax_for(language))


def ladder(scopes):
    return [(s.kind, s.name, s.start_line, s.end_line) for s in scopes]


def test_python_ladder(parse):
    _, scopes = chain(parse, "python", PY)
    assert ladder(scopes) == [("method", "save", 13, 15), ("class", "Repo", 2, 17)]


def test_python_blank_line_after_block_belongs_to_the_block_by_indentation(parse):
    source = "class A:\n    def f(self):\n        x = 1\n        \n"
    data = source.encode()
    tree = parse("python", data)
    inside = scope_chain(tree.root_node, data, len("class A:\n    def f(self):\n        x = 1\n        "), syntax_for("python"))
    assert [s.name for s in inside] == ["f", "A"]
    at_class_level = scope_chain(tree.root_node, data + b"    ", len(data) + 4, syntax_for("python"))
    assert [s.name for s in at_class_level] == ["A"]


def test_python_skeleton_and_signature(parse):
    data, scopes = chain(parse, "python", PY)
    method, cls = scopes
    syntax = syntax_for("python")
    assert render(cls.node, data, syntax, "skeleton").text == (
        'class Repo(Base):\n'
        '    """A repository."""\n'
        '    size = 3\n'
        '    @property\n'
        '    def name(self) -> str:\n'
        '        """The name."""\n'
        '    def save(self, item): ...\n'
        '    def other(self): ...\n'
    )
    snippet = render(method.node, data, syntax, "signature", parents=True)
    assert snippet.text == "class Repo(Base):\n    def save(self, item): ...\n"
    assert (snippet.start_line, snippet.end_line, snippet.form) == (13, 15, "signature")
    assert render(method.node, data, syntax, "full").text == "    def save(self, item):\n        x = 1\n        CURSOR\n"


def test_typescript_ladder_and_skeleton(parse):
    data, scopes = chain(parse, "typescript", TS)
    assert ladder(scopes) == [("method", "save", 5, 7), ("class", "Service", 2, 8)]
    assert render(scopes[1].node, data, syntax_for("typescript"), "skeleton").text == (
        "// The service.\n"
        "export class Service extends Base {\n"
        "  private repo: Repo\n"
        "  constructor(repo: Repo) { /* ... */ }\n"
        "  async save(item: Item): Promise<void> { /* ... */ }\n"
        "}\n"
    )


def test_go_ladder_and_struct(parse):
    data, scopes = chain(parse, "go", GO)
    assert ladder(scopes) == [("method", "Add", 7, 9)]
    assert render(scopes[0].node, data, syntax_for("go"), "signature").text == \
        "func (s *Store) Add(x int) int { /* ... */ }\n"
    tree = parse("go", data)
    struct = tree.root_node.named_children[2].named_children[0]
    assert render(struct, data, syntax_for("go"), "signature").text == \
        "// Store keeps items.\ntype Store struct {\n\titems []int\n}\n"


def test_java_ladder_and_skeleton(parse):
    data, scopes = chain(parse, "java", JAVA)
    assert ladder(scopes) == [("method", "add", 6, 8), ("class", "Cart", 2, 9)]
    assert render(scopes[1].node, data, syntax_for("java"), "skeleton").text == (
        "public class Cart extends Base {\n"
        "  private int count;\n"
        "  public Cart(int count) { /* ... */ }\n"
        "  // Adds one.\n"
        "  public int add() { /* ... */ }\n"
        "}\n"
    )


def test_line_form_is_the_header_alone_on_one_line(parse):
    data, scopes = chain(parse, "python", PY)
    method, cls = scopes
    syntax = syntax_for("python")
    assert render(cls.node, data, syntax, "line").text == "class Repo(Base): ...\n"
    snippet = render(method.node, data, syntax, "line")
    assert (snippet.text, snippet.start_line, snippet.end_line, snippet.form) == \
        ("    def save(self, item): ...\n", 13, 15, "line")
    ts, ts_scopes = chain(parse, "typescript", TS)
    assert render(ts_scopes[1].node, ts, syntax_for("typescript"), "line").text == \
        "class Service extends Base\n"


def test_collapse_joins_lines_without_spaces_inside_brackets_and_cuts_long_lines():
    from pruning.snippets import MAX_LINE_CHARS, collapse
    assert collapse("def echo(\n    message=None,\n    err=False,\n) -> None:") == "def echo(message=None, err=False) -> None:"
    long = "def f(" + ", ".join(f"argument_{i}" for i in range(20)) + "):"
    cut = collapse(long)
    assert cut.endswith(" ...") and len(cut) <= MAX_LINE_CHARS and long.startswith(cut[:-4])


def test_collapse_never_cuts_a_long_name_away():
    """A cut at the last space before the limit would leave `function ...`: the name stays."""
    from pruning.snippets import collapse
    header = "export function buildClientInfoFromHomeAccountId(homeAccountId: string): ClientInfo"
    assert collapse(header) == "export function buildClientInfoFromHomeAccountId( ..."
    assert collapse("function addCcsUpn(parameters: Map<string, string>, loginHint: string): void") == \
        "function addCcsUpn(parameters: Map<string, string>, ..."


BROKEN_BODY = '''class Highlighter:
    def __call__(self, text: str) -> str:
        """Highlight a str.

        Args:
            text: what to highlight.
        """
        CURSOR
            highlighted = text.upper()
        else:
            raise TypeError(text)
        return highlighted
'''


def test_python_signature_of_a_body_a_half_written_line_broke(parse):
    # the removed `if isinstance(text, str):` leaves an over-indented block: the docstring and the
    # lines above the break are an ERROR between the header's `:` and the `body` block
    data, scopes = chain(parse, "python", BROKEN_BODY.replace("CURSOR", ""), marker="        \n            highlighted")
    method = next(s for s in scopes if s.name == "__call__")
    syntax = syntax_for("python")
    assert render(method.node, data, syntax, "signature").text == (
        '    def __call__(self, text: str) -> str:\n        """Highlight a str."""\n')
    assert render(method.node, data, syntax, "line").text == "    def __call__(self, text: str) -> str: ...\n"
    assert data[:method.body_start_byte].rstrip().endswith(b"-> str:")
