"""The held-out corpora (benchmarks/context/heldout.py) cover every language of the dev corpora
with two libraries each in each set, none of them a dev library nor one of the other set."""

import pytest

from benchmarks.context import corpora, heldout

DEV = {"click", "httpx", "rxjs", "@azure/msal-common", "spf13-pflag", "spf13-cobra", "itertools", "regex-syntax"}


@pytest.mark.parametrize("name", sorted(heldout.SETS))
def test_two_held_out_libraries_per_language_and_none_is_a_dev_library(name):
    names = heldout.SETS[name].names()
    assert set(names) == set(corpora.LANGUAGES)
    for language, libraries in names.items():
        assert len(set(libraries)) == 2, language
        assert not any(dev in library for library in libraries for dev in DEV), language
    assert not set(names["rust"]) & {crate for _, crate in corpora.RUST_CRATES}


def test_the_sets_share_no_library():
    first, second = (heldout.SETS[name].names() for name in sorted(heldout.SETS))
    for language in corpora.LANGUAGES:
        assert not set(first[language]) & set(second[language]), language
