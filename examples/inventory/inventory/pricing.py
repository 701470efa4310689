"""Pricing rules: volume discounts, coupons and sales tax, all in integer cents."""

from __future__ import annotations

from dataclasses import dataclass

from .models import Product

VOLUME_DISCOUNT_PERCENT = {10: 5, 50: 10, 100: 15}  # minimum quantity -> percent off


def volume_discount_percent(quantity: int) -> int:
    """The largest discount whose threshold `quantity` reaches (0 below every threshold)."""
    best = 0
    for threshold, percent in VOLUME_DISCOUNT_PERCENT.items():
        if quantity >= threshold:
            best = max(best, percent)
    return best


def apply_percent_off(amount_cents: int, percent: int) -> int:
    return amount_cents - (amount_cents * percent) // 100


def line_price_cents(product: Product, quantity: int) -> int:
    """Price of `quantity` units of `product` after the volume discount."""
    gross = product.unit_price_cents * quantity
    return apply_percent_off(gross, volume_discount_percent(quantity))


@dataclass(frozen=True)
class TaxTable:
    """Sales tax in basis points (1/100 of a percent) per region; unknown regions pay `default_bps`."""

    rates_bps: dict[str, int]
    default_bps: int = 0

    def tax_cents(self, region: str, taxable_cents: int) -> int:
        rate = self.rates_bps.get(region, self.default_bps)
        return (taxable_cents * rate + 5_000) // 10_000


COUPONS_PERCENT = {"WELCOME10": 10, "SPRING25": 25}


def coupon_percent(code: str | None) -> int:
    return COUPONS_PERCENT.get((code or "").upper(), 0)
