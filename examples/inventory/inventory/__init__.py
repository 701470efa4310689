"""A small stock-keeping library: products, a catalog, pricing rules and checkout."""
