"""The scope ladder's outline (pruning.ladder): the top-level definitions above the prefix window,
one line each, but the one enclosing the cursor, whose header the ladder shows by itself."""

from pruning.context import build_context

SOURCE = ("export function first(a: number): number {\n    return a;\n}\n\n"
          "export function second(b: string): string {\n    return b;\n}\n\n"
          "export function enclosing(options: Options): Map<string, string> {\n"
          + "".join(f"    const value{i} = options.field{i} ?? {i};\n" for i in range(300))
          + "    \n    return new Map();\n}\n")
CURSOR = SOURCE.index("    \n    return new Map()") + 4


def test_the_enclosing_function_is_shown_once_and_the_outline_lists_the_others():
    parts = build_context("/w/params.ts", SOURCE, CURSOR, language="typescript", budget_tokens=1024)
    assert "export function enclosing" not in parts.prefix  # its header lies above the prefix window
    shown = "".join(s.text for s in parts.snippets)
    assert shown.count("export function enclosing(") == 1
    outline = [s.text for s in parts.snippets if s.kind == "outline"]
    assert outline and "export function first(" in outline[0] and "export function second(" in outline[0]
    assert "enclosing" not in outline[0]
