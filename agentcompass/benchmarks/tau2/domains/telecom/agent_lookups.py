"""Lookups and billing helpers of the telecom agent toolkit (helpers of the reference's ``TelecomTools``, not tools).

Same order of checks, same error texts as ``src/tau2/domains/telecom/tools.py``."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from agentcompass.benchmarks.tau2.domains.telecom._common import get_today


class Lookups:
    """Lookups by id (helpers of the reference's toolkit, not tools)."""

    db: Any
    m: Any

    def _get_line_by_phone(self, phone_number: str) -> Any:
        for line in self.db.lines:
            if line.phone_number == phone_number:
                return line
        raise ValueError(f"Line with phone number {phone_number} not found")

    def _get_line_by_id(self, line_id: str) -> Any:
        for line in self.db.lines:
            if line.line_id == line_id:
                return line
        raise ValueError(f"Line with ID {line_id} not found")

    def _get_plan_by_id(self, plan_id: str) -> Any:
        for plan in self.db.plans:
            if plan.plan_id == plan_id:
                return plan
        raise ValueError(f"Plan with ID {plan_id} not found")

    def _get_device_by_id(self, device_id: str) -> Any:
        for device in self.db.devices:
            if device.device_id == device_id:
                return device
        raise ValueError(f"Device with ID {device_id} not found")

    def _get_bill_by_id(self, bill_id: str) -> Any:
        for bill in self.db.bills:
            if bill.bill_id == bill_id:
                return bill
        raise ValueError(f"Bill with ID {bill_id} not found")

    def get_customer_by_id(self, customer_id: str) -> Any:
        for customer in self.db.customers:
            if customer.customer_id == customer_id:
                return customer
        raise ValueError(f"Customer with ID {customer_id} not found")

    def _get_target_line(self, customer_id: str, line_id: str) -> Any:
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer.line_ids:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._get_line_by_id(line_id)

    def get_available_plan_ids(self) -> list[str]:
        return [plan.plan_id for plan in self.db.plans]

    def _get_bills_awaiting_payment(self, customer: Any) -> list[Any]:
        bills = []
        for bill_id in customer.bill_ids:
            bill = self._get_bill_by_id(bill_id)
            if bill and bill.status == self.m.BillStatus.AWAITING_PAYMENT:
                bills.append(bill)
        return bills

    def _set_bill_to_paid(self, bill_id: str) -> str:
        bill = self._get_bill_by_id(bill_id)
        bill.status = self.m.BillStatus.PAID
        return f"Bill {bill_id} set to paid"

    def _new_draft_bill(self, customer: Any, customer_id: str) -> Any:
        """A draft bill for the next cycle, appended to the DB and the customer (as the reference creates it)."""
        next_month = get_today().replace(day=1) + timedelta(days=32)
        next_month = next_month.replace(day=1)
        new_bill_id = f"B{uuid.uuid4().hex[:8]}"
        end = next_month.replace(
            month=next_month.month + 1 if next_month.month < 12 else 1,
            year=next_month.year if next_month.month < 12 else next_month.year + 1,
        )
        draft_bill = self.m.Bill(
            bill_id=new_bill_id,
            customer_id=customer_id,
            period_start=next_month,
            period_end=end - timedelta(days=1),
            issue_date=next_month,
            total_due=0,
            due_date=next_month + timedelta(days=14),
            status=self.m.BillStatus.DRAFT,
        )
        self.db.bills.append(draft_bill)
        customer.bill_ids.append(new_bill_id)
        return draft_bill

    def _apply_one_time_charge(self, customer_id: str, amount: float, description: str) -> None:
        customer = self.get_customer_by_id(customer_id)
        draft_bill = None
        for bill_id in customer.bill_ids:
            bill = self._get_bill_by_id(bill_id)
            if bill and bill.status == self.m.BillStatus.DRAFT:
                draft_bill = bill
                break
        if not draft_bill:
            draft_bill = self._new_draft_bill(customer, customer_id)
        line_item = self.m.LineItem(
            description=description, amount=amount, date=get_today(), item_type="Credit" if amount < 0 else "Charge"
        )
        draft_bill.line_items.append(line_item)
        draft_bill.total_due += amount
