"""The simulated phone's settings: mobile data, roaming, data saver, APN, Wi-Fi, Wi-Fi calling and VPN.

Part of the user's toolkit of the τ²-bench telecom domain (``src/tau2/domains/telecom/user_tools.py``), same
outputs and state changes as the reference."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The reference keeps ONE default VPN details object per process (a class attribute of its user toolkit) and hands
# that same object to every phone that connects; ``break_vpn`` then degrades it for every later connection in the
# process, so its results depend on which tasks ran before in that process. Here each phone (each attempt's user
# toolkit) has its own: the reference's behaviour in a fresh process (docs/tau2.md, where we differ).


def _on_off(flag: Any) -> str:
    return "ON" if flag else "OFF"


class SettingsPart:
    """Mobile data, roaming, data saver, APN, Wi-Fi, Wi-Fi calling, VPN."""

    db: Any
    m: Any
    device: Any

    if TYPE_CHECKING:  # provided by the other parts of the user toolkit

        def _check_status_bar(self) -> str: ...
        def simulate_network_search(self) -> None: ...
        def _disconnect_vpn(self) -> bool: ...
        def _can_send_mms(self) -> bool: ...

    def _with_status_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self._check_status_bar()}"

    @property
    def default_vpn_details(self) -> Any:
        details = self.__dict__.get("_default_vpn_details")
        if details is None:
            performance = self.m.PerformanceLevel.EXCELLENT
            vpn = self.m.VpnDetails
            details = vpn(server_address="192.168.1.1", protocol="OpenVPN", server_performance=performance)
            self.__dict__["_default_vpn_details"] = details
        return details

    # --- mobile data ---------------------------------------------------------------------------------------------
    def toggle_data(self) -> str:
        return self._with_status_bar(f"Mobile Data is now {_on_off(self._toggle_data())}.")

    def _toggle_data(self) -> bool:
        new_state = not self.device.data_enabled
        self.device.data_enabled = new_state
        self.simulate_network_search()
        return new_state

    def turn_data_on(self) -> str:
        self.device.data_enabled = True
        return "Data connection restored."

    def turn_data_off(self) -> str:
        if self._toggle_data():
            self._toggle_data()
        return "Data connection broken."

    # --- roaming -------------------------------------------------------------------------------------------------
    def toggle_roaming(self) -> str:
        return self._with_status_bar(f"Data Roaming is now {_on_off(self._toggle_roaming())}.")

    def _toggle_roaming(self) -> bool:
        new_state = not self.device.roaming_enabled
        self.device.roaming_enabled = new_state
        self.simulate_network_search()
        return new_state

    def turn_roaming_on(self) -> str:
        if not self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now ON."

    def turn_roaming_off(self) -> str:
        if self._toggle_roaming():
            self._toggle_roaming()
        return "Data Roaming is now OFF."

    # --- data saver ----------------------------------------------------------------------------------------------
    def check_data_restriction_status(self) -> str:
        if self.device.data_saver_mode:
            return "Data Saver mode is ON (limits data usage)."
        return "Data Saver mode is OFF."

    def toggle_data_saver_mode(self) -> str:
        return self._with_status_bar(f"Data Saver Mode is now {_on_off(self._toggle_data_saver_mode())}.")

    def _toggle_data_saver_mode(self) -> bool:
        new_state = not self.device.data_saver_mode
        self.device.data_saver_mode = new_state
        return new_state

    def turn_data_saver_mode_on(self) -> str:
        if not self._toggle_data_saver_mode():
            self._toggle_data_saver_mode()
        return "Data Saver Mode is now ON."

    def turn_data_saver_mode_off(self) -> str:
        if self._toggle_data_saver_mode():
            self._toggle_data_saver_mode()
        return "Data Saver Mode is now OFF."

    # --- APN -----------------------------------------------------------------------------------------------------
    def check_apn_settings(self) -> str:
        settings = self.device.active_apn_settings.model_copy(deep=True)
        apn_name = settings.apn_name.value or "Not Set"
        mmsc_url = settings.mmsc_url or "Not Set"
        return (
            f"Current APN Name: {apn_name}\nMMSC URL (for picture messages): {mmsc_url}"
            "\n(These are technical settings, usually best left unchanged.)"
        )

    def set_apn_settings(self, apn_settings: Any) -> str:
        if isinstance(apn_settings, dict):
            apn_settings = self.m.APNSettings(**apn_settings)
        self.device.active_apn_settings = apn_settings
        status_update = f"APN settings set to: {apn_settings.apn_name.value}"
        self.simulate_network_search()
        return self._with_status_bar(status_update)

    def reset_apn_settings(self) -> str:
        self.device.active_apn_settings.reset_at_reboot = True
        self.simulate_network_search()
        return self._with_status_bar("APN settings will reset at reboot.")

    def break_apn_settings(self) -> str:
        self.device.active_apn_settings.apn_name = self.m.APNNames.BROKEN
        self.simulate_network_search()
        assert self.device.network_connection_status == self.m.NetworkStatus.NO_SERVICE
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        self.device.active_apn_settings.mmsc_url = None
        assert not self._can_send_mms()
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    # --- Wi-Fi ---------------------------------------------------------------------------------------------------
    def check_wifi_status(self) -> str:
        d = self.device
        if not d.wifi_enabled:
            return "Wi-Fi is turned OFF."
        if d.wifi_connected:
            return f"Wi-Fi is ON and connected to '{d.wifi_ssid}'. Signal strength: {d.wifi_signal_strength.value}."
        return "Wi-Fi is ON but not connected to any network."

    def toggle_wifi(self) -> str:
        new_state = self._toggle_wifi()
        if new_state is None:
            return self._with_status_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
        return self._with_status_bar(f"Wi-Fi is now {_on_off(new_state)}.")

    def _toggle_wifi(self) -> bool | None:
        if self.device.airplane_mode:
            return None
        new_state = not self.device.wifi_enabled
        self.device.wifi_enabled = new_state
        if not new_state:
            self.device.wifi_connected = False
            self.device.wifi_ssid = None
            self.device.wifi_signal_strength = self.m.SignalStrength.NONE
        return new_state

    # --- Wi-Fi calling -------------------------------------------------------------------------------------------
    def check_wifi_calling_status(self) -> str:
        return f"Wi-Fi Calling is currently turned {_on_off(self.device.wifi_calling_enabled)}."

    def toggle_wifi_calling(self) -> str:
        return self._with_status_bar(f"Wi-Fi Calling is now {_on_off(self._toggle_wifi_calling())}.")

    def _toggle_wifi_calling(self) -> bool:
        new_state = not self.device.wifi_calling_enabled
        self.device.wifi_calling_enabled = new_state
        return new_state

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        if self.device.wifi_calling_enabled != enabled:
            self._toggle_wifi_calling()
        msg = f"Wi-Fi Calling is now {_on_off(enabled)}."
        if mms_over_wifi is not None:
            self.device.wifi_calling_mms_over_wifi = mms_over_wifi
            msg += f"\nMMS over Wi-Fi is now {_on_off(mms_over_wifi)}."
        return msg

    # --- VPN -----------------------------------------------------------------------------------------------------
    def check_vpn_status(self) -> str:
        d = self.device
        if d.vpn_connected:
            details = d.vpn_details.model_dump() if d.vpn_details and d.vpn_connected else None
            if details:
                return f"VPN is ON and connected. Details: {details}"
            return "VPN is ON and connected (no specific details available)."
        if d.vpn_enabled_setting:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    def connect_vpn(self) -> str:
        if self.device.vpn_connected:
            return "VPN already connected."
        self.device.vpn_connected = True
        self.device.vpn_details = self.default_vpn_details
        return self._with_status_bar("VPN connected successfully.")

    def disconnect_vpn(self) -> str:
        if self._disconnect_vpn():
            return self._with_status_bar("VPN disconnected successfully.")
        return self._with_status_bar("No active VPN connection to disconnect.")

    def break_vpn(self) -> str:
        self.connect_vpn()
        self.device.vpn_details.server_performance = self.m.PerformanceLevel.POOR
        return "VPN connection broken."
