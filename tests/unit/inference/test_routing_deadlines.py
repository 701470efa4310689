"""Route deadlines: 0 (the default) means the longest `timeoutMs` among the mode's backends."""

from __future__ import annotations

import pytest

from inference.routing import RouteSettings


def test_zero_means_the_longest_backend_timeout():
    assert RouteSettings().deadline_ms(False, 120_000) == 120_000
    assert RouteSettings(single_deadline_ms=300).deadline_ms(False, 120_000) == 300
    assert RouteSettings(multi_deadline_ms=900).deadline_ms(True, 5000) == 900
    with pytest.raises(ValueError):
        RouteSettings(single_deadline_ms=-1)
