"""Checkout: turning an order into a priced receipt."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import Catalog
from .models import Order
from .pricing import TaxTable, apply_percent_off, coupon_percent, line_price_cents


@dataclass(frozen=True)
class Receipt:
    order_id: str
    subtotal_cents: int
    discount_cents: int
    tax_cents: int

    @property
    def total_cents(self) -> int:
        return self.subtotal_cents - self.discount_cents + self.tax_cents


def price_order(order: Order, catalog: Catalog, taxes: TaxTable, region: str) -> Receipt:
    """Price every line, apply the order's coupon, then tax the taxable part."""
    subtotal = 0
    taxable = 0
    for line in order.lines:
        product = catalog.
        price = line_price_cents(product, line.quantity)
        subtotal += price
        if product.taxable:
            taxable += price
    percent = coupon_percent(order.coupon_code)
    discount = subtotal - apply_percent_off(subtotal, percent)
    taxable = apply_percent_off(taxable, percent)
    return Receipt(order.order_id, subtotal, discount, taxes.tax_cents(region, taxable))
