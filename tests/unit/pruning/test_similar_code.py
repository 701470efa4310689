"""Code like the code at the cursor (pruning.code_windows): its windows as snippets, and the names
they use as likely next names (pruning.similar_code)."""

from pruning.code_windows import TOP_FILES, _around, cursor_query, similar_windows, vocabulary_of, windows_of
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
                                  "other/far.go": "package other\n\nvar unrelated = 1\n"})


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
    query = cursor_query(source, source.index(b"\n\tif err")).words
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


def _set_query(index, tmp_path):
    path = str(tmp_path / "flags/int_slice.go")
    index.did_open(path, INT_SLICE, "go")
    source = INT_SLICE.encode()
    return IndexLookup(index.snapshot_for(path), path), cursor_query(source, source.index(b"\n\tif err")).words


def test_like_code_in_a_directory_this_file_does_not_import_is_found(tmp_path, write_files):
    """The other `Set` lives in a sibling directory that nothing imports; a file of another
    language there with the same words is not compared."""
    index = write_files(tmp_path, {"flags/int_slice.go": INT_SLICE, "values/string_slice.go": STRING_SLICE,
                                   "scripts/string_slice.py": STRING_SLICE.replace("package flags", "")})
    lookup, query = _set_query(index, tmp_path)
    found = [(w.path, w.start_line) for w in similar_windows(lookup, query, 3)]
    assert found[0] == (str(tmp_path / "values/string_slice.go"), 0)
    assert not any(path.endswith(".py") for path, _ in found)


def test_a_small_file_like_the_query_outranks_large_files_that_merely_contain_its_words(tmp_path, write_files):
    """Each large file holds every identifier of the query (more than the small file shares)
    among a thousand others; the files compared are chosen by how well they cover the query for
    their size, so the small file's window is compared and found."""
    words = sorted(w.decode() for w in cursor_query(INT_SLICE.encode(), INT_SLICE.index("\n\tif err")).words)
    large = "package flags\n\n" + "".join(f"var filler{i} = {i} // {words[i // 40] if i % 40 == 0 else ''}\n"
                                            for i in range(40 * len(words)))
    files = {f"flags/large{i}.go": large for i in range(TOP_FILES + 1)}
    index = write_files(tmp_path, files | {"flags/int_slice.go": INT_SLICE, "flags/string_slice.go": STRING_SLICE})
    lookup, query = _set_query(index, tmp_path)
    assert similar_windows(lookup, query, 1)[0].path == str(tmp_path / "flags/string_slice.go")


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
    assert [s.path for s in shared.snippets if s.kind == "window"].count("flags/string_slice.go") == 1
    assert len(shared.prefix) < len(unshared.prefix) and shared.tokens <= 128


OWN_FILE = """class Handlers:
    def on_open(self, event):
        self.log.write("open", event.id)
        self.state = State.OPEN
        self.listeners.notify(self, event)

""" + "".join(f"    def helper{i}(self, value):\n        return value * {i}\n\n" for i in range(120)) + """
    def on_close(self, event):
        self.log.write("close", event.id)
        self.state = State.CLOSED
        
"""


def test_this_files_like_code_outside_the_windows_is_a_snippet(tmp_path, write_files):
    """`on_open`, 360 lines up, shows how `on_close` goes on; it is shown when the prefix window
    does not reach it, and not twice when it does."""
    index = write_files(tmp_path, {"handlers.py": OWN_FILE})
    path = str(tmp_path / "handlers.py")
    index.did_open(path, OWN_FILE, "python")
    offset = OWN_FILE.rindex("CLOSED\n") + len("CLOSED\n        ")

    def own(budget):
        parts = build_context(path, OWN_FILE, offset, language="python", index=index,
                              workspace_root=str(tmp_path), budget_tokens=budget)
        return parts, [s for s in parts.snippets if s.kind == "window" and s.path == "handlers.py"]

    parts, windows = own(256)
    assert len(windows) == 1 and "self.listeners.notify(self, event)" in windows[0].text
    assert "on_open" not in parts.prefix
    whole, windows = own(8192)
    assert "on_open" in whole.prefix and not windows
