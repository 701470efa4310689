"""Calls of the function at the cursor in other files as snippets (pruning.callers)."""

from __future__ import annotations

from pruning.context import build_context

CART = """
def shipping_cost(parcel, zone):
    
"""


def callers(parts):
    return [(s.path, s.text, s.reason) for s in parts.snippets if s.kind == "caller"]


def in_body(text: str) -> int:
    return text.index("    \n") + 4


def caller_pieces_of(index, root, name="shop/cart.py"):
    """The candidates `caller_pieces` offers at the body of CART's function in file `name`."""
    from indexer import parse, syntax_for
    from pruning.callers import caller_pieces
    from pruning.index_lookup import IndexLookup
    from pruning.scopes import scope_chain

    path, source = str(root / name), CART.lstrip("\n").encode()
    scopes = scope_chain(parse("python", source).root_node, source, in_body(CART.lstrip("\n")), syntax_for("python"))
    return caller_pieces(IndexLookup(index.snapshot_for(path), path), scopes, in_body(CART.lstrip("\n")))


def test_a_test_and_a_caller_of_the_function_being_written_are_snippets_test_first(tmp_path, write_workspace,
                                                                                   without_similar_windows):
    steps = "".join(f"    step_{i} = order.steps[{i}]\n" for i in range(14))  # bodies too long to be shown whole
    index = write_workspace(tmp_path, {
        "shop/cart.py": CART,
        "shop/checkout.py": "from shop.cart import shipping_cost\n\n\ndef pay(order):\n" + steps
        + "    parcel = order.parcel\n    fee = shipping_cost(parcel, order.address.zone)\n    return order.total + fee\n",
        "tests/test_cart.py": "from shop.cart import shipping_cost\n\n\ndef test_shipping_to_zone_two():\n" + steps
        + "    parcel = Parcel(weight=2)\n    assert shipping_cost(parcel, zone=2) == 7.5\n",
    })
    text = CART.lstrip("\n")
    parts = build_context(str(tmp_path / "shop/cart.py"), text, in_body(text), index=index,
                          workspace_root=str(tmp_path))
    assert callers(parts) == [
        ("shop/checkout.py", "    step_13 = order.steps[13]\n    parcel = order.parcel\n"
         "    fee = shipping_cost(parcel, order.address.zone)\n", "a caller of shipping_cost, the function at the cursor"),
        ("tests/test_cart.py", "    step_13 = order.steps[13]\n    parcel = Parcel(weight=2)\n"
         "    assert shipping_cost(parcel, zone=2) == 7.5\n", "a test of shipping_cost, the function at the cursor"),
    ]  # in the prompt's path order; the test came first among the calls found (worth more)
    values = {p.path: p.value for p in caller_pieces_of(index, tmp_path)}
    assert values[str(tmp_path / "tests/test_cart.py")] > values[str(tmp_path / "shop/checkout.py")]


def test_a_go_function_is_called_from_its_package_without_an_import(tmp_path, write_workspace, without_similar_windows):
    source = "package shop\n\nfunc ShippingCost(weight float64, zone int) float64 {\n\t\n}\n"
    index = write_workspace(tmp_path, {
        "shop/cost.go": source,
        "shop/order.go": """
            package shop

            func (o *Order) Total() float64 {
            	return o.Sum + ShippingCost(o.Weight, o.Zone)
            }
            """,
    })
    parts = build_context(str(tmp_path / "shop/cost.go"), source, source.index("\t\n") + 1, index=index,
                          workspace_root=str(tmp_path))
    assert [(p, t) for p, t, _ in callers(parts)] == [
        ("shop/order.go", "\nfunc (o *Order) Total() float64 {\n\treturn o.Sum + ShippingCost(o.Weight, o.Zone)\n")]


def test_no_calls_outside_a_body_nor_for_a_name_defined_in_many_places(tmp_path, write_workspace, without_similar_windows):
    files = {"shop/cart.py": CART,
             "shop/checkout.py": "from shop.cart import shipping_cost\n\nfee = shipping_cost(1, 2)\n"}
    index = write_workspace(tmp_path, files)
    text = CART.lstrip("\n")
    on_header = build_context(str(tmp_path / "shop/cart.py"), text, text.index("(parcel"), index=index,
                              workspace_root=str(tmp_path))
    assert callers(on_header) == []

    files.update({f"other/m{i}.py": "def shipping_cost(x):\n    return x\n" for i in range(3)})
    index = write_workspace(tmp_path, files)
    parts = build_context(str(tmp_path / "shop/cart.py"), text, in_body(text), index=index,
                          workspace_root=str(tmp_path))
    assert callers(parts) == []  # four definitions: the calls cannot be told apart


def test_a_workspace_inside_a_tests_directory_does_not_make_every_caller_a_test(tmp_path, write_workspace,
                                                                                 without_similar_windows):
    root = tmp_path / "tests" / "shop"
    steps = "".join(f"    step_{i} = order.steps[{i}]\n" for i in range(14))
    index = write_workspace(root, {
        "cart.py": CART,
        "checkout.py": "from cart import shipping_cost\n\n\ndef pay(order):\n" + steps
        + "    fee = shipping_cost(order.parcel, 2)\n    return fee\n",
    })
    assert [p.reason for p in caller_pieces_of(index, root, "cart.py")] == [
        "a caller of shipping_cost, the function at the cursor"]


def test_a_call_no_longer_at_its_offset_on_disk_is_skipped(tmp_path, write_workspace, without_similar_windows):
    index = write_workspace(tmp_path, {
        "shop/cart.py": CART,
        "shop/checkout.py": "from shop.cart import shipping_cost\n\nfee = shipping_cost(1, 2)\n",
    })
    assert len(caller_pieces_of(index, tmp_path)) == 1
    # changed on disk after it was indexed (no watcher event yet): the offsets point elsewhere
    (tmp_path / "shop/checkout.py").write_text("from shop.cart import shipping_cost\n# moved down\nfee = shipping_cost(1, 2)\n")
    assert caller_pieces_of(index, tmp_path) == []
