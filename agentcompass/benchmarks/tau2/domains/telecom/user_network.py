"""The simulated phone's radio: status bar, network status and search, speed test, airplane mode and SIM card.

Part of the user's toolkit of the τ²-bench telecom domain (``src/tau2/domains/telecom/user_tools.py``), same
outputs and state changes as the reference; ``self.m`` holds the reference's user data models (enums included)."""

from __future__ import annotations

from typing import Any

# Speed test: technology -> (min, max) Mbps, signal -> share of the potential speed, as the reference sets them.
_TECH_SPEED = {"2G": (0.1, 0.4), "3G": (1.0, 5.0), "4G": (10.0, 100.0), "5G": (50.0, 500.0), "none": (0.0, 0.0)}
_SIGNAL_FACTOR = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0, "none": 0.0}
_SIGNAL_ICON = {
    "none": "📵 No Signal",
    "poor": "📶¹ Poor",
    "fair": "📶² Fair",
    "good": "📶³ Good",
    "excellent": "📶⁴ Excellent",
}
_SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}
_SIM_TEXT = {
    "active": "Your SIM card is active and working.",
    "missing": "No SIM card detected in the phone.",
    "locked_pin": "The SIM card is locked with a PIN code.",
    "locked_puk": "The SIM card is locked with a PUK code.",
}


def _on_off(flag: Any) -> str:
    return "ON" if flag else "OFF"


def _yes_no(flag: Any) -> str:
    return "Yes" if flag else "No"


class NetworkPart:
    """Status bar, network, speed test, airplane mode, SIM card."""

    db: Any
    m: Any

    @property
    def device(self) -> Any:
        return self.db.device

    @property
    def surroundings(self) -> Any:
        return self.db.surroundings

    # --- status bar ----------------------------------------------------------------------------------------------
    def check_status_bar(self) -> str:
        return f"Status Bar: {self._check_status_bar()}"

    def _check_status_bar(self) -> str:
        device = self.device
        none = self.m.NetworkTechnology.NONE
        indicators = []
        if device.airplane_mode:
            indicators.append("✈️ Airplane Mode")
        else:
            indicators.append(_SIGNAL_ICON.get(device.network_signal_strength, "📵 No Signal"))
            if device.network_technology_connected != none:
                indicators.append(device.network_technology_connected.value)
            if device.data_enabled and device.network_technology_connected != none:
                indicators.append("📱 Data Enabled")
                if device.data_saver_mode:
                    indicators.append("🔽 Data Saver")
            else:
                indicators.append("📵 Data Disabled")
        if device.wifi_enabled and device.wifi_connected:
            indicators.append(f"📡 Connected to {device.wifi_ssid}" if device.wifi_ssid else "📡 Enabled")
        if device.vpn_connected:
            indicators.append("🔒 VPN Connected")
        indicators.append(f"🔋 {device.battery_level}%")
        return " | ".join(indicators)

    # --- network -------------------------------------------------------------------------------------------------
    def check_network_status(self) -> str:
        d = self.device
        lines = [
            f"Airplane Mode: {_on_off(d.airplane_mode)}",
            f"SIM Card Status: {self._check_sim_status().value}",
            f"Cellular Connection: {d.network_connection_status.value}",
            f"Cellular Signal: {d.network_signal_strength.value}",
            f"Cellular Network Type: {d.network_technology_connected.value}",
            f"Mobile Data Enabled: {_yes_no(d.data_enabled)}",
            f"Data Roaming Enabled: {_yes_no(d.roaming_enabled)}",
            f"Wi-Fi Radio: {_on_off(d.wifi_enabled)}",
            f"Wi-Fi Connected: {_yes_no(d.wifi_connected)}",
        ]
        if d.wifi_connected:
            lines.append(f"Connected Wi-Fi Network: {d.wifi_ssid}")
        return "\n".join(lines)

    def check_network_mode_preference(self) -> str:
        return f"Network Mode Preference: {self.device.network_mode_preference.value}"

    def set_network_mode_preference(self, mode: Any) -> str:
        valid_mode = self._set_network_mode_preference(mode)
        if valid_mode is None:
            options = ", ".join([m.value for m in self.m.NetworkModePreference])
            return (
                f"Failed to set network mode: '{mode}' is not a valid option. Please use one of: {options}"
                f"\nStatus Bar: {self._check_status_bar()}"
            )
        return f"Preferred Network Mode set to: {valid_mode.value}\nStatus Bar: {self._check_status_bar()}"

    def _set_network_mode_preference(self, mode: Any) -> Any:
        try:
            if isinstance(mode, str):
                mode = self.m.NetworkModePreference(mode)
            self.device.network_mode_preference = mode
            self.simulate_network_search()
            return mode
        except ValueError:
            return None

    def _get_mobile_data_working(self) -> bool:
        d, s = self.device, self.surroundings
        if d.airplane_mode or d.network_signal_strength == self.m.SignalStrength.NONE:
            return False
        if d.network_connection_status == self.m.NetworkStatus.NO_SERVICE:
            return False
        if s.is_abroad and (not d.roaming_enabled or not s.roaming_allowed):
            return False
        return bool(d.data_enabled and not s.mobile_data_usage_exceeded)

    def run_speed_test(self) -> str:
        speed_mbps, description = self._run_speed_test()
        if speed_mbps is None:
            return f"Speed test failed: {description or 'Could not determine speed'}."
        advice = _SPEED_ADVICE.get(description or "", "")
        return f"Speed Test Result: {speed_mbps:.2f} Mbps ({description}). {advice}"

    def _run_speed_test(self) -> tuple[float | None, str | None]:
        if not self._get_mobile_data_working():
            return None, "No Connection"
        d = self.device
        poor = self.m.PerformanceLevel.POOR
        factor = 0.1 if d.vpn_connected and d.vpn_details and d.vpn_details.server_performance == poor else 1.0
        if d.data_saver_mode:
            factor *= 0.2
        min_speed, max_speed = _TECH_SPEED.get(d.network_technology_connected, (0.0, 0.0))
        signal_factor = _SIGNAL_FACTOR.get(d.network_signal_strength, 0.0)
        speed = round((min_speed + max_speed) / 2.0 * signal_factor * factor, 2)
        if speed < 1:
            return speed, "Very Poor"
        if speed < 5:
            return speed, "Poor"
        if speed < 25:
            return speed, "Fair"
        return speed, "Good" if speed < 100 else "Excellent"

    def simulate_network_search(self) -> None:
        d, m = self.device, self.m
        tech = m.NetworkTechnology
        if self._check_sim_status() == m.SimStatus.ACTIVE:
            d.network_connection_status = m.NetworkStatus.CONNECTED
            pref, prefs = d.network_mode_preference, m.NetworkModePreference
            signals = self.surroundings.signal_strength
            if pref == prefs.FOUR_G_5G_PREFERRED:
                five_g_signal = signals.get(tech.FIVE_G, m.SignalStrength.NONE)
                chosen = tech.FOUR_G if five_g_signal == m.SignalStrength.NONE else tech.FIVE_G
            else:
                only = (
                    (prefs.FOUR_G_ONLY, tech.FOUR_G),
                    (prefs.THREE_G_ONLY, tech.THREE_G),
                    (prefs.TWO_G_ONLY, tech.TWO_G),
                )
                chosen = next((t for p, t in only if pref == p), tech.FOUR_G)
            d.network_technology_connected = chosen
            d.network_signal_strength = signals.get(chosen, m.SignalStrength.NONE)
        else:
            self._no_service()
        if d.airplane_mode or d.active_apn_settings.apn_name == m.APNNames.BROKEN:
            self._no_service()
        if not self.surroundings.line_active:
            self._no_service()

    def _no_service(self) -> None:
        self.device.network_connection_status = self.m.NetworkStatus.NO_SERVICE
        self.device.network_technology_connected = self.m.NetworkTechnology.NONE
        self.device.network_signal_strength = self.m.SignalStrength.NONE

    # --- airplane mode -------------------------------------------------------------------------------------------
    def toggle_airplane_mode(self) -> str:
        new_state = self._toggle_airplane_mode()
        return f"Airplane Mode is now {_on_off(new_state)}.\nStatus Bar: {self._check_status_bar()}"

    def _toggle_airplane_mode(self) -> bool:
        d = self.device
        was_on = d.airplane_mode
        d.airplane_mode = not was_on
        if was_on:
            d.network_connection_status = self.m.NetworkStatus.SEARCHING
        if not was_on or d.wifi_enabled:
            d.wifi_connected = False
            d.wifi_ssid = None
            d.wifi_signal_strength = self.m.SignalStrength.NONE
        if not was_on and d.vpn_connected:
            self._disconnect_vpn()
        self.simulate_network_search()
        return bool(d.airplane_mode)

    def turn_airplane_mode_on(self) -> str:
        if not self._toggle_airplane_mode():
            self._toggle_airplane_mode()
        return "Airplane Mode is now ON."

    def turn_airplane_mode_off(self) -> str:
        if self._toggle_airplane_mode():
            self._toggle_airplane_mode()
        return "Airplane Mode is now OFF."

    def _disconnect_vpn(self) -> bool:
        if not self.device.vpn_connected:
            return False
        self.device.vpn_connected = False
        self.device.vpn_details = None
        return True

    # --- SIM card ------------------------------------------------------------------------------------------------
    def check_sim_status(self) -> str:
        status = self._check_sim_status()
        return _SIM_TEXT.get(status, f"Unknown SIM status: {status.value}")

    def _check_sim_status(self) -> Any:
        if self.device.sim_card_missing:
            return self.m.SimStatus.MISSING
        return self.device.sim_card_status

    def reseat_sim_card(self) -> str:
        self.device.sim_card_missing = False
        self.simulate_network_search()
        assert not self.device.sim_card_missing
        assert self._check_sim_status() != self.m.SimStatus.MISSING
        return f"SIM card re-seated successfully.\nStatus Bar: {self._check_status_bar()}"

    def unseat_sim_card(self) -> str:
        self.device.sim_card_missing = True
        self.simulate_network_search()
        assert self.device.sim_card_missing
        assert self._check_sim_status() == self.m.SimStatus.MISSING
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: str) -> str:
        if mode == "pin":
            self.device.sim_card_status = self.m.SimStatus.LOCKED_PIN
        elif mode == "puk":
            self.device.sim_card_status = self.m.SimStatus.LOCKED_PUK
        self.simulate_network_search()
        if mode == "pin":
            assert self.device.sim_card_status == self.m.SimStatus.LOCKED_PIN
        elif mode == "puk":
            assert self.device.sim_card_status == self.m.SimStatus.LOCKED_PUK
        return f"SIM card locked successfully in {mode} mode."
