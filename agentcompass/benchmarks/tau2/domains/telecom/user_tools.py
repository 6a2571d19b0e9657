"""The user's toolkit of the τ²-bench telecom domain: the simulated phone (``src/tau2/domains/telecom/user_tools.py``).

``TelecomUserTools`` assembles the radio part (``user_network``), the settings part (``user_settings``) and, here,
apps, MMS, reboot, payments, the scenario set-up functions and the env assertions. Names, signatures, outputs and
state changes are the reference's; ``models`` is the namespace of the reference's user data models."""

from __future__ import annotations

from typing import Any

from agentcompass.benchmarks.tau2._models import DomainModels
from agentcompass.benchmarks.tau2._tools import ToolSpec
from agentcompass.benchmarks.tau2.domains._base import ToolKit
from agentcompass.benchmarks.tau2.domains.telecom._common import ModelNames, fix_qualnames
from agentcompass.benchmarks.tau2.domains.telecom.user_network import NetworkPart
from agentcompass.benchmarks.tau2.domains.telecom.user_settings import SettingsPart


def _granted(permissions: Any) -> list[str]:
    return [name.replace("_", " ").lower() for name, allowed in permissions.model_dump().items() if allowed]


class TelecomUserTools(NetworkPart, SettingsPart, ToolKit):
    """The phone the simulated user operates, its surroundings, and the assertions on them."""

    def __init__(self, db: Any, specs: list[ToolSpec], models: DomainModels) -> None:
        super().__init__(db, specs, models)
        self.m = ModelNames(models)

    # --- user info (scenario set-up) -----------------------------------------------------------------------------
    def set_user_info(self, name: str, phone_number: str) -> None:
        self.db.surroundings.name = name
        self.db.surroundings.phone_number = phone_number

    def set_user_location(self, abroad: bool) -> None:
        self.db.surroundings.is_abroad = abroad

    # --- applications --------------------------------------------------------------------------------------------
    def check_installed_apps(self) -> str:
        app_names = ", ".join(list(self.device.app_statuses.keys()))
        return f"The following apps are installed on the phone: {app_names}"

    def check_app_status(self, app_name: str) -> str:
        app_status = self.device.app_statuses.get(app_name)
        if not app_status:
            return f"App '{app_name}' not found on this phone."
        allowed_perms = _granted(app_status.model_copy(deep=True).permissions)
        lines = [f"Status for App: {app_name}"]
        if not allowed_perms:
            lines.append(" - Permissions: None granted.")
        else:
            lines.append(" - Permissions Granted:")
            lines.extend(f"   - {perm}" for perm in allowed_perms)
        return "\n".join(lines)

    def check_app_permissions(self, app_name: str) -> str:
        app_status = self.device.app_statuses.get(app_name)
        if not app_status:
            return f"App '{app_name}' not found on this phone."
        allowed_perms = _granted(app_status.permissions)
        if not allowed_perms:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(allowed_perms)}."

    def grant_app_permission(self, app_name: str, permission: str) -> str:
        success, message = self._grant_app_permission(app_name, permission)
        return f"{'Success. ' if success else 'Error. '}{message}\nStatus Bar: {self._check_status_bar()}"

    def _grant_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        app_status = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app_status:
            return False, f"App '{app_name}' not found. Cannot grant permission."
        available_permissions = list(app_status.permissions.model_dump().keys())
        if permission not in available_permissions:
            return (
                False,
                f"Permission '{permission}' not tracked for app '{app_name}', "
                f"available permissions: {available_permissions}",
            )
        setattr(app_status.permissions, permission, True)
        return True, f"Permission '{permission}' granted to app '{app_name}'."

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        app_status = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app_status:
            return False, f"App '{app_name}' not found. Cannot remove permission."
        if not hasattr(app_status.permissions, permission):
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        setattr(app_status.permissions, permission, False)
        return True, f"Permission '{permission}' removed from app '{app_name}'."

    # --- MMS -----------------------------------------------------------------------------------------------------
    def can_send_mms(self) -> str:
        if self._can_send_mms():
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    def _can_send_mms(self) -> Any:
        d = self.device
        if not self._get_mobile_data_working():
            return False
        if d.network_technology_connected == self.m.NetworkTechnology.TWO_G:
            return False
        if d.wifi_calling_enabled and d.wifi_calling_mms_over_wifi:
            return False
        if d.active_apn_settings.mmsc_url is None:
            return False
        msg_app = d.app_statuses.get("messaging")
        if msg_app is None:
            return False
        return msg_app.permissions.storage and msg_app.permissions.sms

    # --- device --------------------------------------------------------------------------------------------------
    def reboot_device(self) -> str:
        lines = []
        if self.device.active_apn_settings.reset_at_reboot:
            lines.append("Resetting APN settings...")
            self.device.active_apn_settings = self.m.APNSettings()
        lines.append("Restarting network services...")
        self.device.network_connection_status = self.m.NetworkStatus.SEARCHING
        self.simulate_network_search()
        status_update = "\n".join(lines)
        return f"{status_update}\nStatus Bar: {self._check_status_bar()}"

    # --- payment request -----------------------------------------------------------------------------------------
    def check_payment_request(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request.bill_id} of {request.amount_due} USD."

    def make_payment(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "You do not have a payment request."
        request.paid = True
        return f"Payment of {request.amount_due} USD has been made for bill {request.bill_id}."

    # --- env assertions ------------------------------------------------------------------------------------------
    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        return bool(self.device.airplane_mode == expected_status)

    def assert_service_status(self, expected_status: str) -> bool:
        return bool(self.device.network_connection_status == self.m.NetworkStatus(expected_status))

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        return self._get_mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        return bool(self.device.roaming_enabled == expected_status)

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        return bool(self.device.data_saver_mode == expected_status)

    def assert_internet_speed(self, expected_speed: float, expected_desc: str | None = None) -> bool:
        speed, desc = self._run_speed_test()
        speed = speed or 0.0
        if expected_desc is None:
            return speed >= expected_speed
        return speed >= expected_speed and str(desc).lower() == expected_desc.lower()

    def assert_internet_not_excellent(self) -> bool:
        _speed, desc = self._run_speed_test()
        return str(desc).lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        return bool(self._can_send_mms() == expected_status)

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        return bool(self.surroundings.mobile_data_usage_exceeded == expected_status)


fix_qualnames(TelecomUserTools, NetworkPart, SettingsPart)
