"""The part of a similar window shown as a snippet (pruning.code_windows.window_parts): the lines
around the one that stands where the cursor's line stands, so the line the user is about to
write has its counterpart in the prompt."""

from pruning.code_windows import Query, SimilarWindow, aligned_line, cursor_query, similar_windows, window_parts
from pruning.index_lookup import IndexLookup

SIBLING = """import type {CodeKeywordDefinition, KeywordCxt} from "../../types"

const def: CodeKeywordDefinition = {
  keyword: ["maxProperties", "minProperties"],
  type: "object",
  schemaType: "number",
  $data: true,
  error,
  code(cxt: KeywordCxt) {
    const {keyword, data, schemaCode} = cxt
    const op = keyword === "maxProperties" ? operators.GT : operators.LT
    cxt.fail$data(_`Object.keys(${data}).length ${op} ${schemaCode}`)
  },
}

export default def
"""

CURRENT = """import type {CodeKeywordDefinition, KeywordCxt} from "../../types"

const def: CodeKeywordDefinition = {
  keyword: ["maxItems", "minItems"],
  type: "array",
  schemaType: "number",
  $data: true,
  error,
  
    const {keyword, data, schemaCode} = cxt
    const op = keyword === "maxItems" ? operators.GT : operators.LT
    cxt.fail$data(_`${data}.length ${op} ${schemaCode}`)
  },
}

export default def
"""


def _lookup_and_query(tmp_path, write_files):
    index = write_files(tmp_path, {"rules/limitProperties.ts": SIBLING, "rules/limitItems.ts": CURRENT})
    path = str(tmp_path / "rules/limitItems.ts")
    index.did_open(path, CURRENT, "typescript")
    index.flush(path)
    offset = CURRENT.index("error,\n  ") + len("error,\n  ")
    return IndexLookup(index.snapshot_for(path), path), cursor_query(CURRENT.encode(), offset)


def test_the_shown_part_holds_the_line_where_the_cursors_line_stands(tmp_path, write_files):
    """The lines most like the query are the ones below the cursor (`const op = ...`); the line
    the user is about to write is `code(cxt: KeywordCxt) {`, whose counterpart lies above them."""
    lookup, query = _lookup_and_query(tmp_path, write_files)
    window = similar_windows(lookup, query.words, 1)[0]
    assert window.path.endswith("limitProperties.ts")
    lines = SIBLING.split("\n")
    assert aligned_line([line.encode() for line in lines], 0, len(lines), query) == lines.index("  code(cxt: KeywordCxt) {")
    first, last, text = window_parts(lookup, window, query, (6, 12, 20))[0]
    assert "  code(cxt: KeywordCxt) {\n" in text and text.count("\n") == 6
    assert text.startswith('  type: "object",')  # four lines above, one below


def test_larger_parts_hold_the_smaller_ones(tmp_path, write_files):
    lookup, query = _lookup_and_query(tmp_path, write_files)
    window = similar_windows(lookup, query.words, 1)[0]
    parts = window_parts(lookup, window, query, (6, 12, 20))
    assert len(parts) >= 2
    for (inner_first, inner_last, _), (outer_first, outer_last, _) in zip(parts, parts[1:]):
        assert outer_first <= inner_first and inner_last <= outer_last


def test_the_query_knows_the_cursors_line_among_its_neighbours():
    source = b"a = 1\nb = 2\nc = d\n"
    query = cursor_query(source, source.index(b"c = d"))
    assert query.cursor == 2 and query.lines[2] == frozenset({b"c", b"d"})
    assert query.words == frozenset({b"a", b"b", b"c", b"d"})


def test_no_line_aligns_when_no_neighbour_shares_an_identifier():
    query = Query(frozenset({b"x"}), (frozenset({b"x"}), frozenset()), 1)
    assert aligned_line([b"y = 1", b"z = 2"], 0, 2, query) is None


def test_a_part_of_this_files_own_window_stays_out_of_the_lines_the_prompt_shows(tmp_path, write_files):
    """The counterpart of the cursor's line is the last line of an own window just above the
    prefix window (from line 40 on); the block around it would reach into that window, and is
    kept above it."""
    body = [f"item{i} = make{i}()" for i in range(80)]
    body[37:40] = ["a = read(source)", "b = parse(a)", "c = check(b)"]
    body[57:60] = ["a = read(source)", "b = parse(a)", "c = check(b)"]
    text = "\n".join(body) + "\n"
    index = write_files(tmp_path, {"steps.py": text})
    path = str(tmp_path / "steps.py")
    lookup = IndexLookup(index.snapshot_for(path), path)
    query = cursor_query(text.encode(), text.index("c = check(b)\nitem60") + len("c = check(b)\n"))
    window = SimilarWindow(0.5, path, 20, ())
    unbounded = window_parts(lookup, window, query, (6, 12, 20))
    assert any(last >= 40 for _, last, _ in unbounded)
    parts = window_parts(lookup, window, query, (6, 12, 20), (0, 40))
    assert parts and all(last < 40 for _, last, _ in parts)
    assert "c = check(b)" in parts[0][2]
