"""Route deadlines: 0 (the default) is the mode's default (5 s / 8 s), raised to the longest
`timeoutMs` among the mode's backends; a value set is kept as it is."""

from __future__ import annotations

import pytest

from inference.routing import RouteSettings


def test_zero_means_the_modes_default_or_a_longer_backend_timeout():
    assert RouteSettings().deadline_ms(False, 120_000) == 120_000
    assert RouteSettings().deadline_ms(False, 2000) == 5000
    assert RouteSettings().deadline_ms(True, 5000) == 8000
    assert RouteSettings(single_deadline_ms=300).deadline_ms(False, 120_000) == 300
    assert RouteSettings(multi_deadline_ms=900).deadline_ms(True, 5000) == 900
    with pytest.raises(ValueError):
        RouteSettings(single_deadline_ms=-1)
