"""The agent's toolkit of the τ²-bench telecom domain (``src/tau2/domains/telecom/tools.py``), reimplemented.

Every method keeps the reference's name, signature, checks, mutations, return values and error texts; the
reference's own descriptions of the tools are read from its source at run time, never copied here. The data models
(``TelecomDB``, ``Bill``, ``LineStatus``...) come from the reference's ``data_model.py``, built at run time, and are
passed in as ``models`` (a namespace with one attribute per class)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from agentcompass.benchmarks.tau2._models import DomainModels
from agentcompass.benchmarks.tau2._tools import ToolSpec
from agentcompass.benchmarks.tau2.domains._base import ToolKit
from agentcompass.benchmarks.tau2.domains.telecom._common import ModelNames, fix_qualnames, get_today
from agentcompass.benchmarks.tau2.domains.telecom.agent_lookups import Lookups


class TelecomTools(Lookups, ToolKit):
    """The agent's tools, the scenario set-up functions and the env assertions of the telecom domain."""

    def __init__(self, db: Any, specs: list[ToolSpec], models: DomainModels) -> None:
        super().__init__(db, specs, models)
        self.m = ModelNames(models)

    # --- tools -------------------------------------------------------------------------------------------------
    def get_customer_by_phone(self, phone_number: str) -> Any:
        for customer in self.db.customers:
            if customer.phone_number == phone_number:
                return customer
            for line_id in customer.line_ids:
                line = self._get_line_by_id(line_id)
                if line and line.phone_number == phone_number:
                    return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    def get_customer_by_name(self, full_name: str, dob: str) -> list[Any]:
        return [c for c in self.db.customers if c.full_name.lower() == full_name.lower() and c.date_of_birth == dob]

    def get_details_by_id(self, id: str) -> Any:
        if id.startswith("L"):
            return self._get_line_by_id(id)
        elif id.startswith("D"):
            return self._get_device_by_id(id)
        elif id.startswith("B"):
            return self._get_bill_by_id(id)
        elif id.startswith("C"):
            return self.get_customer_by_id(id)
        elif id.startswith("P"):
            return self._get_plan_by_id(id)
        raise ValueError(f"Unknown ID format or type: {id}")

    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> dict[str, object]:
        target_line = self._get_target_line(customer_id, line_id)
        if target_line.status != self.m.LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend")
        target_line.status = self.m.LineStatus.SUSPENDED
        target_line.suspension_start_date = get_today()
        return {"message": "Line suspended successfully. $5/month holding fee will apply.", "line": target_line}

    def resume_line(self, customer_id: str, line_id: str) -> dict[str, object]:
        target_line = self._get_target_line(customer_id, line_id)
        if target_line.status not in [self.m.LineStatus.SUSPENDED, self.m.LineStatus.PENDING_ACTIVATION]:
            raise ValueError("Line must be suspended to resume")
        target_line.status = self.m.LineStatus.ACTIVE
        target_line.suspension_start_date = None
        return {"message": "Line resumed successfully", "line": target_line}

    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list[Any]:
        customer = self.get_customer_by_id(customer_id)
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        return sorted(bills, key=lambda bill: bill.issue_date, reverse=True)[:limit]

    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        customer = self.get_customer_by_id(customer_id)
        if not customer:
            raise ValueError(f"Customer {customer_id} not found")
        if len(self._get_bills_awaiting_payment(customer)) != 0:
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer.bill_ids:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._get_bill_by_id(bill_id)
        bill.status = self.m.BillStatus.AWAITING_PAYMENT
        return f"Payment request sent to the customer for bill {bill.bill_id}"

    def get_data_usage(self, customer_id: str, line_id: str) -> dict[str, object]:
        target_line = self._get_target_line(customer_id, line_id)
        plan = self._get_plan_by_id(target_line.plan_id)
        today = get_today()
        cycle_end_date = date(today.year, today.month + 1 if today.month < 12 else 1, 1) - timedelta(days=1)
        return {
            "line_id": line_id,
            "data_used_gb": target_line.data_used_gb,
            "data_limit_gb": plan.data_limit_gb,
            "data_refueling_gb": target_line.data_refueling_gb,
            "cycle_end_date": cycle_end_date,
        }

    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        target_line = self._get_target_line(customer_id, line_id)
        if target_line.roaming_enabled:
            return "Roaming was already enabled"
        target_line.roaming_enabled = True
        return "Roaming enabled successfully"

    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        target_line = self._get_target_line(customer_id, line_id)
        if not target_line.roaming_enabled:
            return "Roaming was already disabled"
        target_line.roaming_enabled = False
        return "Roaming disabled successfully"

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict[str, object]:
        target_line = self._get_target_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._get_plan_by_id(target_line.plan_id)
        if not plan:
            raise ValueError("Plan not found for this line")
        charge_amount = gb_amount * plan.data_refueling_price_per_gb
        target_line.data_refueling_gb += gb_amount
        self._apply_one_time_charge(
            customer_id, charge_amount, f"Data refueling: {gb_amount} GB at ${plan.data_refueling_price_per_gb}/GB"
        )
        return {
            "message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge_amount:.2f}",
            "new_data_refueling_gb": target_line.data_refueling_gb,
            "charge": charge_amount,
        }

    # --- scenario set-up (initialization actions) ----------------------------------------------------------------
    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        target_line = self._get_target_line(customer_id, line_id)
        target_line.data_used_gb = data_used_gb
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(
        self, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
    ) -> str:
        line = self._get_line_by_id(line_id)
        if line.status != self.m.LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self._get_plan_by_id(line.plan_id).price_per_month
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self.get_customer_by_id(customer_id)
        if not customer:
            raise ValueError(f"Customer {customer_id} not found")
        statuses = [self._get_bill_by_id(bill_id).status for bill_id in customer.bill_ids]
        if any(status == self.m.BillStatus.OVERDUE for status in statuses):
            raise ValueError("Customer already has an overdue bill")
        overdue_bill = self._overdue_bill(customer_id, new_bill_id, amount, f"Charge for line {line.line_id}")
        self.db.bills.append(overdue_bill)
        customer.bill_ids.append(new_bill_id)
        line.status = self.m.LineStatus.SUSPENDED
        line.suspension_start_date = get_today()
        if contract_ended:
            line.contract_end_date = overdue_bill.period_end
        return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"

    def _overdue_bill(self, customer_id: str, bill_id: str, amount: float, description: str) -> Any:
        """Last month's bill, overdue, charging ``amount`` (built as ``suspend_line_for_overdue_bill`` builds it)."""
        last_day_of_last_month = get_today().replace(day=1) - timedelta(days=1)
        first_day_of_last_month = last_day_of_last_month.replace(day=1)
        overdue_bill = self.m.Bill(
            bill_id=bill_id,
            customer_id=customer_id,
            period_start=first_day_of_last_month,
            period_end=last_day_of_last_month,
            issue_date=first_day_of_last_month,
            total_due=0,
            due_date=first_day_of_last_month + timedelta(days=14),
            status=self.m.BillStatus.OVERDUE,
        )
        item_type = "Charge" if amount > 0 else "Credit"
        line_item = self.m.LineItem(description=description, amount=amount, date=get_today(), item_type=item_type)
        overdue_bill.line_items.append(line_item)
        overdue_bill.total_due += amount
        return overdue_bill

    # --- env assertions ------------------------------------------------------------------------------------------
    def assert_data_refueling_amount(self, customer_id: str, line_id: str, expected_amount: float) -> bool:
        target_line = self._get_target_line(customer_id, line_id)
        return bool(abs(target_line.data_refueling_gb - expected_amount) < 1e-6)

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: Any) -> bool:
        return bool(self._get_target_line(customer_id, line_id).status == expected_status)

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        customer = self.get_customer_by_id(customer_id)
        if not customer:
            raise ValueError(f"Customer {customer_id} not found")
        if overdue_bill_id not in customer.bill_ids:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self._get_bill_by_id(overdue_bill_id).status != self.m.BillStatus.OVERDUE:
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        try:
            bill = self._get_bill_by_id(overdue_bill_id)
            if bill.status == self.m.BillStatus.PAID:
                return True
        except ValueError:
            return True
        return False


fix_qualnames(TelecomTools, Lookups)
