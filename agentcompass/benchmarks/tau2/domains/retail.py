"""τ²-bench retail domain: the tools of ``tau2/domains/retail/tools.py`` over the retail DB, reimplemented with the
same results, error messages and DB mutations (the reference's quirks included: ``modify_pending_order_items``
gives every modified item the price and options of the last new item). Tool names, types and descriptions are read
from the reference's source; the policy from ``data/tau2/domains/retail/policy.md``."""

from __future__ import annotations

import json
from typing import Any

from agentcompass.benchmarks.tau2.domains import DomainSpec, KitSource
from agentcompass.benchmarks.tau2.domains._base import ToolKit

CANCEL_REASONS = {"no longer needed", "ordered by mistake"}


class RetailTools(ToolKit):
    """The retail toolkit (``RetailTools`` of the reference)."""

    def _get_order(self, order_id: str) -> Any:
        if order_id not in self.db.orders:
            raise ValueError("Order not found")
        return self.db.orders[order_id]

    def _get_user(self, user_id: str) -> Any:
        if user_id not in self.db.users:
            raise ValueError("User not found")
        return self.db.users[user_id]

    def _get_product(self, product_id: str) -> Any:
        if product_id not in self.db.products:
            raise ValueError("Product not found")
        return self.db.products[product_id]

    def _get_item(self, item_id: str) -> Any:
        for _, product in self.db.products.items():
            if item_id in product.variants:
                return product.variants[item_id]
        raise ValueError("Item not found")

    def _get_variant(self, product_id: str, variant_id: str) -> Any:
        product = self._get_product(product_id)
        if variant_id not in product.variants:
            raise ValueError("Variant not found")
        return product.variants[variant_id]

    def _get_payment_method(self, user_id: str, payment_method_id: str) -> Any:
        user = self._get_user(user_id)
        if payment_method_id not in user.payment_methods:
            raise ValueError("Payment method not found")
        return user.payment_methods[payment_method_id]

    def _is_gift_card(self, payment_method: Any) -> bool:
        return isinstance(payment_method, self.models["GiftCard"])

    def _payment(self, transaction_type: str, amount: Any, payment_method_id: str) -> Any:
        return self.models["OrderPayment"](
            transaction_type=transaction_type, amount=amount, payment_method_id=payment_method_id
        )

    @staticmethod
    def _check_items_exist(order: Any, item_ids: Any, message: Any) -> None:
        """Raise ``message(item_id)`` for an item asked more times than the order holds it."""
        all_item_ids = [item.item_id for item in order.items]
        for item_id in item_ids:
            if item_ids.count(item_id) > all_item_ids.count(item_id):
                raise ValueError(message(item_id))

    def _price_difference(self, order: Any, item_ids: Any, new_item_ids: Any, same_id_check: bool) -> Any:
        """Sum of new minus old prices, checking each pair; returns ``(difference, last variant)``."""
        diff_price, variant = 0, None
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            if same_id_check and item_id == new_item_id:
                raise ValueError("The new item id should be different from the old item id")
            item = next((item for item in order.items if item.item_id == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            variant = self._get_variant(item.product_id, new_item_id)
            if not variant.available:
                raise ValueError(f"New item {new_item_id} not found or available")
            diff_price += variant.price - item.price
        return diff_price, variant

    def calculate(self, expression: str) -> str:
        if not all(char in "0123456789+-*/(). " for char in expression):
            raise ValueError("Invalid characters in expression")
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))

    def cancel_pending_order(self, order_id: str, reason: str) -> Any:
        order = self._get_order(order_id)
        if order.status != "pending":
            raise ValueError("Non-pending order cannot be cancelled")
        if reason not in CANCEL_REASONS:
            raise ValueError("Invalid reason")
        refunds = []
        for payment in order.payment_history:
            payment_id = payment.payment_method_id
            refunds.append(self._payment("refund", payment.amount, payment_id))
            user = self._get_user(order.user_id)
            payment_method = self._get_payment_method(user.user_id, payment_id)
            if self._is_gift_card(payment_method):
                payment_method.balance += payment.amount
                payment_method.balance = round(payment_method.balance, 2)
        order.status = "cancelled"
        order.cancel_reason = reason
        order.payment_history.extend(refunds)
        return order

    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Any:
        order = self._get_order(order_id)
        if order.status != "delivered":
            raise ValueError("Non-delivered order cannot be exchanged")
        self._check_items_exist(order, item_ids, lambda item_id: f"Number of {item_id} not found.")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match.")
        diff_price, _ = self._price_difference(order, item_ids, new_item_ids, same_id_check=False)
        diff_price = round(diff_price, 2)
        payment_method = self._get_payment_method(order.user_id, payment_method_id)
        if self._is_gift_card(payment_method) and payment_method.balance < diff_price:
            raise ValueError("Insufficient gift card balance to pay for the price difference")
        order.status = "exchange requested"
        order.exchange_items = sorted(item_ids)
        order.exchange_new_items = sorted(new_item_ids)
        order.exchange_payment_method_id = payment_method_id
        order.exchange_price_difference = diff_price
        return order

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        for user_id, user in self.db.users.items():
            if (
                user.name.first_name.lower() == first_name.lower()
                and user.name.last_name.lower() == last_name.lower()
                and user.address.zip == zip
            ):
                return str(user_id)
        raise ValueError("User not found")

    def find_user_id_by_email(self, email: str) -> str:
        for user_id, user in self.db.users.items():
            if user.email.lower() == email.lower():
                return str(user_id)
        raise ValueError("User not found")

    def get_order_details(self, order_id: str) -> Any:
        return self._get_order(order_id)

    def get_product_details(self, product_id: str) -> Any:
        return self._get_product(product_id)

    def get_item_details(self, item_id: str) -> Any:
        return self._get_item(item_id)

    def get_user_details(self, user_id: str) -> Any:
        return self._get_user(user_id)

    def list_all_product_types(self) -> str:
        product_dict = {product.name: product.product_id for product in self.db.products.values()}
        return json.dumps(product_dict, sort_keys=True)

    def _new_address(self, address1: str, address2: str, city: str, state: str, country: str, zip: str) -> Any:
        return self.models["UserAddress"](
            address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )

    def modify_pending_order_address(
        self, order_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
    ) -> Any:
        order = self._get_order(order_id)
        if "pending" not in order.status:
            raise ValueError("Non-pending order cannot be modified")
        order.address = self._new_address(address1, address2, city, state, country, zip)
        return order

    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Any:
        order = self._get_order(order_id)
        if order.status != "pending":
            raise ValueError("Non-pending order cannot be modified")
        self._check_items_exist(order, item_ids, lambda item_id: f"{item_id} not found")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match")
        diff_price, variant = self._price_difference(order, item_ids, new_item_ids, same_id_check=True)
        payment_method = self._get_payment_method(order.user_id, payment_method_id)
        if self._is_gift_card(payment_method) and payment_method.balance < diff_price:
            raise ValueError("Insufficient gift card balance to pay for the new item")
        kind = "payment" if diff_price > 0 else "refund"
        order.payment_history.append(self._payment(kind, abs(diff_price), payment_method_id))
        if self._is_gift_card(payment_method):
            payment_method.balance -= diff_price
            payment_method.balance = round(payment_method.balance, 2)
        for item_id, new_item_id in zip(item_ids, new_item_ids, strict=False):
            item = next((item for item in order.items if item.item_id == item_id), None)
            if item is None:
                raise ValueError(f"Item {item_id} not found")
            item.item_id = new_item_id
            item.price = variant.price  # the last new item's, as in the reference
            item.options = variant.options
        order.status = "pending (item modified)"
        return order

    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Any:
        order = self._get_order(order_id)
        if "pending" not in order.status:
            raise ValueError("Non-pending order cannot be modified")
        payment_method = self._get_payment_method(order.user_id, payment_method_id)
        if len(order.payment_history) != 1 or order.payment_history[0].transaction_type != "payment":
            raise ValueError("There should be exactly one payment for a pending order")
        if order.payment_history[0].payment_method_id == payment_method_id:
            raise ValueError("The new payment method should be different from the current one")
        amount = order.payment_history[0].amount
        if self._is_gift_card(payment_method) and payment_method.balance < amount:
            raise ValueError("Insufficient gift card balance to pay for the order")
        old_id = order.payment_history[0].payment_method_id
        order.payment_history.extend(
            [self._payment("payment", amount, payment_method_id), self._payment("refund", amount, old_id)]
        )
        if self._is_gift_card(payment_method):
            payment_method.balance -= amount
            payment_method.balance = round(payment_method.balance, 2)
        old_payment_method = self._get_payment_method(order.user_id, order.payment_history[0].payment_method_id)
        if self._is_gift_card(old_payment_method):
            old_payment_method.balance += amount
            old_payment_method.balance = round(old_payment_method.balance, 2)
        return order

    def modify_user_address(
        self, user_id: str, address1: str, address2: str, city: str, state: str, country: str, zip: str
    ) -> Any:
        user = self._get_user(user_id)
        user.address = self._new_address(address1, address2, city, state, country, zip)
        return user

    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> Any:
        order = self._get_order(order_id)
        if order.status != "delivered":
            raise ValueError("Non-delivered order cannot be returned")
        user = self._get_user(order.user_id)
        payment_method = self._get_payment_method(user.user_id, payment_method_id)
        if not self._is_gift_card(payment_method) and payment_method_id != order.payment_history[0].payment_method_id:
            raise ValueError("Payment method should be the original payment method")
        self._check_items_exist(order, item_ids, lambda item_id: "Some item not found")
        order.status = "return requested"
        order.return_items = sorted(item_ids)
        order.return_payment_method_id = payment_method_id
        return order

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"


DOMAIN = DomainSpec(
    name="retail",
    toolkit=RetailTools,
    source=KitSource(
        "tau2.domains.retail.tools", "RetailTools", "tau2.domains.retail.data_model", "RetailDB", "db.json"
    ),
)
