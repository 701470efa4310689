from inference.prefill_speed import PrefillSpeed


def test_budget_is_the_ceiling_until_a_speed_is_measured():
    assert PrefillSpeed().budget(2.0, 1024) == 1024


def test_budget_follows_the_measured_speed_within_floor_and_ceiling():
    speed = PrefillSpeed()
    speed.observe(20, 1.0)  # too few tokens to say anything
    assert speed.tokens_per_s is None
    speed.observe(400, 2.0)
    assert speed.tokens_per_s == 200 and speed.budget(2.0, 1024) == 384  # 400 in steps of 128
    assert PrefillSpeed(tokens_per_s=200).budget(0.5, 1024) == 256  # never below the floor
    assert PrefillSpeed(tokens_per_s=200).budget(60.0, 1024) == 1024  # never above the ceiling
    speed.observe(1000, 1.0)  # the machine got faster: followed, smoothed
    assert 200 < speed.tokens_per_s < 1000


def test_budget_stays_put_while_the_speed_wobbles():
    speed = PrefillSpeed(tokens_per_s=150)
    first = speed.budget(3.0, 1024)
    budgets = set()
    for sample in (140, 165, 150, 135, 170, 155):
        speed.observe(sample * 2, 2.0)
        budgets.add(speed.budget(3.0, 1024))
    assert budgets == {first}
    speed.tokens_per_s = 300  # a real change moves it
    assert speed.budget(3.0, 1024) == 896
