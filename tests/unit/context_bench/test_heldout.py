"""The held-out corpora (benchmarks/context/heldout.py) cover every language of the dev corpora
with two libraries each, none of them a dev library."""

from benchmarks.context import corpora, heldout

DEV = {"click", "httpx", "rxjs", "@azure/msal-common", "spf13-pflag", "spf13-cobra", "itertools", "regex-syntax"}


def _held_out_names() -> dict[str, list[str]]:
    return {
        "python": [name for name, _ in heldout.WHEELS],
        "typescript": [name for name, _, _ in heldout.NPM],
        "go": [debian for debian, _ in heldout.DEBIAN_GO],
        "rust": [crate for _, crate in heldout.DEBIAN_RUST],
    }


def test_two_held_out_libraries_per_language_and_none_is_a_dev_library():
    names = _held_out_names()
    assert set(names) == set(corpora.LANGUAGES)
    for language, libraries in names.items():
        assert len(set(libraries)) == 2, language
        assert not any(dev in library for library in libraries for dev in DEV), language
    assert not {crate for _, crate in heldout.DEBIAN_RUST} & {crate for _, crate in corpora.RUST_CRATES}
