"""The type a literal at the cursor builds (pruning.literal_types), and its fields in the context."""

import pytest

from pruning.context import build_context
from pruning.literal_types import literal_type

CASES = [
    ("typescript", "const filter: CredentialFilter = {\n  homeAccountId: x,\n  |\n};\n", "CredentialFilter"),
    ("typescript", "function make(): Options {\n  return {\n    a: 1,\n    |\n  };\n}\n", "Options"),
    ("typescript", "const filter: ns.Filter<T> = {\n  |\n};\n", "Filter"),
    ("typescript", "const plain = {\n  |\n};\n", None),
    ("typescript", "function f(): Options {\n  const inner = () => {\n    |\n  };\n}\n", None),
    ("go", "package p\n\nfunc f() {\n\tc := &Command{\n\t\tUse: \"x\",\n\t\t|\n\t}\n}\n", "Command"),
    ("go", "package p\n\nfunc f() {\n\td := pkg.Opts{\n\t\t|\n\t}\n}\n", "Opts"),
    ("rust", "fn f() {\n    let c = Config {\n        name: x,\n        |\n    };\n}\n", "Config"),
    ("rust", "fn f() {\n    let d = m::Opts {\n        |\n    };\n}\n", "Opts"),
    ("rust", "fn f() {\n    let v = vec![\n        |\n    ];\n}\n", None),
]


@pytest.mark.parametrize("language, marked, expected", CASES)
def test_the_type_of_the_literal_around_the_cursor(parse, language, marked, expected):
    source = marked.replace("|", "").encode()
    tree = parse(language, source)
    assert literal_type(tree.root_node, source, marked.index("|")) == expected


FILTER = "export type CredentialFilter = {\n" + "".join(
    f"    field{i}?: string;\n" for i in range(10)) + "};\n"


def test_the_fields_of_the_type_a_literal_builds_are_shown(tmp_path, write_files, without_similar_windows):
    """`field7` is not set yet: the type's whole body (a TypeScript object type lists its fields
    nowhere else) is in the context."""
    user = ("import { CredentialFilter } from './types';\n\nexport function filterFor(id: string) {\n"
            "    const filter: CredentialFilter = {\n        field0: id,\n        \n    };\n    return filter;\n}\n")
    index = write_files(tmp_path, {"types.ts": FILTER, "user.ts": user})
    path = str(tmp_path / "user.ts")
    index.did_open(path, user, "typescript")
    offset = user.index("field0: id,\n        ") + len("field0: id,\n        ")
    parts = build_context(path, user, offset, language="typescript", index=index, workspace_root=str(tmp_path))
    [shown] = [s for s in parts.snippets if s.symbol == "CredentialFilter"]
    assert "field7?: string;" in shown.text


def test_on_a_tight_budget_the_filled_type_outranks_names_used_further_up(tmp_path, write_files,
                                                                         without_similar_windows):
    helpers = "".join(f"export function helper{i}(value: string, count: number): string {{\n"
                      f"    return value.repeat(count + {i});\n}}\n\n" for i in range(8))
    user = ("import { CredentialFilter } from './types';\nimport { "
            + ", ".join(f"helper{i}" for i in range(8)) + " } from './helpers';\n\n"
            "export function filterFor(id: string) {\n"
            + "".join(f"    const v{i} = helper{i}(id, {i});\n" for i in range(8))
            + "    const filter: CredentialFilter = {\n        field0: v0,\n        \n    };\n    return filter;\n}\n")
    index = write_files(tmp_path, {"types.ts": FILTER, "helpers.ts": helpers, "user.ts": user})
    path = str(tmp_path / "user.ts")
    index.did_open(path, user, "typescript")
    offset = user.index("field0: v0,\n        ") + len("field0: v0,\n        ")
    parts = build_context(path, user, offset, language="typescript", index=index, workspace_root=str(tmp_path),
                          budget_tokens=160)
    assert "CredentialFilter" in {s.symbol for s in parts.snippets}
