"""Code like the code at the cursor (pruning.code_windows): its windows as snippets, and the names
they use as likely next names (pruning.similar_code)."""

from pruning.code_windows import _around, query_words, similar_windows, vocabulary_of, windows_of
from pruning.context import build_context
from pruning.index_lookup import IndexLookup
from pruning.similar_code import similar_code_uses

STRING_SLICE = """package flags

func readAsCSV(val string) ([]string, error) {
	return nil, nil
}

func writeAsCSV(vals []string) (string, error) {
	return "", nil
}

func (s *stringSliceValue) Set(val string) error {
	v, err := readAsCSV(val)
	if err != nil {
		return err
	}
	s.value = v
	return nil
}
"""

INT_SLICE = """package flags

func (s *intSliceValue) Set(val string) error {
	
	if err != nil {
		return err
	}
	s.value = v
	return nil
}
"""


def _index(write_files, tmp_path):
    return write_files(tmp_path, {"flags/string_slice.go": STRING_SLICE, "flags/int_slice.go": INT_SLICE,
                                  "other/far.go": "package other\n\nfunc unrelated() int {\n\treturn 1\n}\n"})


def test_a_sibling_files_like_code_offers_the_names_it_uses_there(tmp_path, write_files, without_similar_windows):
    """`Set` of another slice type calls `readAsCSV`: the next line of this `Set` likely does too."""
    index = _index(write_files, tmp_path)
    path = str(tmp_path / "flags/int_slice.go")
    text = INT_SLICE
    index.did_open(path, text, "go")
    offset = text.index("error {\n\t") + len("error {\n\t")
    parts = build_context(path, text, offset, language="go", index=index, workspace_root=str(tmp_path))
    assert ("flags/string_slice.go", "readAsCSV") in {(s.path, s.symbol) for s in parts.snippets}


def test_names_already_known_undefined_or_in_unrelated_files_are_not_offered(tmp_path, write_files):
    index = _index(write_files, tmp_path)
    path = str(tmp_path / "flags/int_slice.go")
    lookup = IndexLookup(index.snapshot_for(path), path)
    source = INT_SLICE.encode()
    query = query_words(source, source.index(b"\n\tif err"))
    similar = similar_windows(lookup, query, 3)
    names = [u.name for u in similar_code_uses(lookup, similar, query, 3, set())]
    assert "readAsCSV" in names and "unrelated" not in names
    assert "value" not in names  # used around the cursor already
    assert "stringSliceValue" not in names  # no definition in the index
    assert "readAsCSV" not in [u.name for u in similar_code_uses(lookup, similar, query, 3, {"readAsCSV"})]


def test_the_most_similar_window_is_a_snippet_and_an_unrelated_file_is_not(tmp_path, write_files):
    """The sibling's `Set` shows how this `Set` goes on (`v, err := readAsCSV(val)`)."""
    index = _index(write_files, tmp_path)
    path = str(tmp_path / "flags/int_slice.go")
    index.did_open(path, INT_SLICE, "go")
    offset = INT_SLICE.index("error {\n\t") + len("error {\n\t")
    parts = build_context(path, INT_SLICE, offset, language="go", index=index, workspace_root=str(tmp_path))
    windows = [s for s in parts.snippets if s.kind == "window"]
    assert [(s.path, s.start_line) for s in windows] == [("flags/string_slice.go", 1)]
    assert "v, err := readAsCSV(val)" in windows[0].text and windows[0].reason.startswith("code like")
    assert not any(s.path == "other/far.go" for s in parts.snippets)


def test_dissimilar_code_gives_no_window(tmp_path, write_files):
    index = _index(write_files, tmp_path)
    path = str(tmp_path / "other/far.go")
    text = "package other\n\nfunc unrelated() int {\n\t\n}\n"
    index.did_open(path, text, "go")
    parts = build_context(path, text, text.index("{\n\t") + 3, language="go", index=index,
                          workspace_root=str(tmp_path))
    assert not [s for s in parts.snippets if s.kind == "window"]


def test_a_files_windows_are_kept_on_its_entry(tmp_path, write_files):
    index = _index(write_files, tmp_path)
    path, sibling = str(tmp_path / "flags/int_slice.go"), str(tmp_path / "flags/string_slice.go")
    snapshot = index.snapshot_for(path)
    lookup = IndexLookup(snapshot, path)
    windows = windows_of(lookup, sibling)
    assert windows is windows_of(IndexLookup(snapshot, path), sibling)
    vocabulary = vocabulary_of(lookup, sibling)
    assert vocabulary is vocabulary_of(IndexLookup(snapshot, path), sibling)
    assert [start for start, _, _ in windows] == [0]  # 20 lines: one window
    start, words, ordered = windows[0]
    assert b"readAsCSV" in words and words <= vocabulary and set(ordered) == words
    assert ordered[:3] == (b"package", b"flags", b"func")


def test_the_query_is_the_lines_around_the_cursor():
    text = b"".join(b"line%d\n" % i for i in range(30))
    at = text.index(b"line15")
    assert _around(text, at + 2, 2) == b"line13\nline14\nline15\nline16"
    assert _around(text, 0, 2) == b"line0\nline1"
    assert _around(text, len(text) - 3, 2).startswith(b"line27\nline28\nline29")


def test_a_similar_window_takes_its_room_from_the_prefix_window(tmp_path, write_files, monkeypatch):
    filler = "".join(f"func filler{i}(x int) int {{\n\treturn x + {i}\n}}\n\n" for i in range(300))
    text = INT_SLICE.replace("package flags\n", "package flags\n\n" + filler)
    index = _index(write_files, tmp_path)
    path = str(tmp_path / "flags/int_slice.go")
    index.did_open(path, text, "go")
    offset = text.index("error {\n\t") + len("error {\n\t")

    def context():
        return build_context(path, text, offset, language="go", index=index, workspace_root=str(tmp_path),
                             budget_tokens=128)

    shared = context()
    monkeypatch.setattr("pruning.context.WINDOW_PREFIX_SHARE", 0.0)
    unshared = context()
    assert [s.kind for s in shared.snippets].count("window") == 1
    assert len(shared.prefix) < len(unshared.prefix) and shared.tokens <= 128
