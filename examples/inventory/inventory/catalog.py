"""The catalog: every product the shop sells, looked up by SKU or by tag."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Product


class UnknownSkuError(KeyError):
    """Raised when an order names a SKU the catalog does not list."""


class Catalog:
    def __init__(self, products: Iterable[Product] = ()):
        self._by_sku: dict[str, Product] = {}
        for product in products:
            self.register(product)

    def register(self, product: Product) -> None:
        self._by_sku[product.sku] = product

    def find_by_sku(self, sku: str) -> Product:
        """The product with this SKU; raises UnknownSkuError if there is none."""
        try:
            return self._by_sku[sku]
        except KeyError:
            raise UnknownSkuError(sku) from None

    def with_tag(self, tag: str) -> list[Product]:
        return sorted((p for p in self._by_sku.values() if tag in p.tags), key=lambda p: p.sku)

    def __len__(self) -> int:
        return len(self._by_sku)
