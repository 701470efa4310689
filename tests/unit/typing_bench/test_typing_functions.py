"""Function finding per language and the suitability filter."""

from benchmarks.typing.functions import find_functions, suitable

PY = """class A:
    def m(self, x):
        y = x
        return y

    async def n(
        self,
    ) -> int:
        return 1
top = 1
"""

GO = """package p

func (f *FlagSet) Visit(fn func(*Flag)) {
\tfor _, x := range f.all {
\t\tfn(x)
\t}
}

func short() int { return 1 }
"""

TS = """export function map<T>(project: (v: T) => T): Op<T> {
  return operate((source) => {
    source.subscribe();
  });
}
class C {
  private static sort(a: A, b: B) {
    if (a) {
      return 0;
    }
  }
}
"""


def test_python_functions_include_multiline_headers():
    found = find_functions(PY, "python")
    assert [(f.name, f.header_start, f.body_start, f.body_end) for f in found] == [("m", 1, 2, 4), ("n", 5, 8, 9)]


def test_go_functions_keep_the_closing_brace_out_of_the_body():
    (visit,) = find_functions(GO, "go")
    assert (visit.name, visit.body_start, visit.body_end, visit.length) == ("Visit", 3, 6, 5)


def test_typescript_functions_and_methods_but_not_control_statements():
    found = find_functions(TS, "typescript")
    assert [(f.name, f.body_start, f.body_end) for f in found] == [("map", 1, 4), ("sort", 7, 10)]


def test_suitable_bounds_length():
    lines = ["def f():"] + [f"    x{i} = {i}" for i in range(10)]
    (f,) = find_functions("\n".join(lines), "python")
    assert suitable(f, lines)
    assert not suitable(f, lines, max_lines=5)
    lines[3] = "    s = 'caf\u00e9'"
    assert not suitable(f, lines)
