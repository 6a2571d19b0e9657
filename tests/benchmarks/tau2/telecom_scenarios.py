"""Scenarios of the telecom agreement test: the gold replay of every task of ``tasks_small.json``, and perturbed
calls (wrong ids, missing or unexpected arguments, unknown tools, tools of the other side, phone tools in every
broken device state) run the same way by the reference and by us.

A scenario is ``{"init_data", "init_actions", "calls", "assertions"}``: ``init_actions`` are env function calls
(``env_type``, ``func_name``, ``arguments``), ``calls`` are tool calls (``requestor``, ``name``, ``arguments``),
``assertions`` are env assertions (an env function call plus ``assert_value``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def user_fn(func_name: str, **arguments: Any) -> dict[str, Any]:
    return {"env_type": "user", "func_name": func_name, "arguments": arguments}


def agent_fn(func_name: str, **arguments: Any) -> dict[str, Any]:
    return {"env_type": "assistant", "func_name": func_name, "arguments": arguments}


def asks(name: str, **arguments: Any) -> dict[str, Any]:
    return {"requestor": "assistant", "name": name, "arguments": arguments}


def does(name: str, **arguments: Any) -> dict[str, Any]:
    return {"requestor": "user", "name": name, "arguments": arguments}


def scenario(init_actions: list, calls: list, assertions: list | None = None, init_data: Any = None) -> dict:
    return {"init_data": init_data, "init_actions": init_actions, "calls": calls, "assertions": assertions or []}


def task_scenarios(tau2_root: Path) -> list[dict[str, Any]]:
    """One scenario per task of telecom's tasks_small.json: its initial state, its gold actions (assistant's and
    user's), its env assertions."""
    tasks = json.loads((tau2_root / "data/tau2/domains/telecom/tasks_small.json").read_text())
    out = []
    for task in tasks:
        initial = task.get("initial_state") or {}
        criteria = task.get("evaluation_criteria") or {}
        calls = [{k: a[k] for k in ("requestor", "name", "arguments")} for a in criteria.get("actions") or []]
        init = initial.get("initialization_actions") or []
        out.append(scenario(init, calls, criteria.get("env_assertions") or [], initial.get("initialization_data")))
    return out


JOHN = user_fn("set_user_info", name="John Smith", phone_number="555-123-2002")
READS = [
    "check_status_bar",
    "check_network_status",
    "check_network_mode_preference",
    "run_speed_test",
    "check_sim_status",
    "check_data_restriction_status",
    "check_apn_settings",
    "check_wifi_status",
    "check_wifi_calling_status",
    "check_vpn_status",
    "check_installed_apps",
    "can_send_mms",
    "check_payment_request",
]
USER_ASSERTS = [
    user_fn("assert_airplane_mode_status", expected_status=False),
    user_fn("assert_service_status", expected_status="connected"),
    user_fn("assert_mobile_data_status", expected_status=True),
    user_fn("assert_mobile_roaming_status", expected_status=False),
    user_fn("assert_mobile_data_saver_mode_status", expected_status=False),
    user_fn("assert_internet_speed", expected_speed=100),
    user_fn("assert_internet_speed", expected_speed=1, expected_desc="good"),
    user_fn("assert_internet_not_excellent"),
    user_fn("assert_can_send_mms", expected_status=True),
    user_fn("assert_mobile_data_usage_exceeded", expected_status=False),
]
BROKEN_STATES = [
    [user_fn("turn_airplane_mode_on")],
    [user_fn("unseat_sim_card")],
    [user_fn("lock_sim_card", mode="pin")],
    [user_fn("lock_sim_card", mode="puk")],
    [user_fn("break_apn_settings")],
    [user_fn("break_apn_mms_setting")],
    [user_fn("turn_data_off")],
    [user_fn("turn_data_saver_mode_on")],
    [user_fn("set_network_mode_preference", mode="2g_only")],
    [user_fn("set_network_mode_preference", mode="3g_only")],
    [user_fn("set_user_location", abroad=True), user_fn("turn_roaming_off")],
    [
        user_fn("set_user_location", abroad=True),
        user_fn("turn_roaming_on"),
        agent_fn("disable_roaming", customer_id="C1001", line_id="L1002"),
    ],
    [agent_fn("set_data_usage", customer_id="C1001", line_id="L1002", data_used_gb=20.0)],
    [user_fn("set_wifi_calling", enabled=True, mms_over_wifi=True)],
    [user_fn("remove_app_permission", app_name="messaging", permission="sms")],
    [user_fn("remove_app_permission", app_name="messaging", permission="storage"), user_fn("break_vpn")],
    [
        agent_fn(
            "suspend_line_for_overdue_bill",
            customer_id="C1001",
            line_id="L1002",
            new_bill_id="B77",
            contract_ended=True,
        )
    ],
]


def _with_assert_values(functions: list[dict]) -> list[dict]:
    return [{**f, "assert_value": True} for f in functions]


def _device_state_scenarios() -> list[dict[str, Any]]:
    """Every read tool and every env assertion of the phone in each broken state, then each fix tool once."""
    fixes = [
        "toggle_airplane_mode", "reseat_sim_card", "toggle_data", "toggle_roaming", "toggle_data_saver_mode",
        "reset_apn_settings", "reboot_device", "toggle_wifi", "toggle_wifi_calling", "disconnect_vpn", "connect_vpn",
    ]  # fmt: skip
    out = []
    for state in BROKEN_STATES:
        calls = [does(name) for name in READS]
        calls += [c for name in fixes for c in (does(name), does("run_speed_test"), does("can_send_mms"))]
        calls += [does("check_network_status"), does("check_vpn_status")]
        out.append(scenario([JOHN, *state], calls, _with_assert_values(USER_ASSERTS)))
    return out


AGENT_CALLS = [
    asks("get_customer_by_phone", phone_number="555-123-2003"),
    asks("get_customer_by_phone", phone_number="555-123-1002"),
    asks("get_customer_by_phone", phone_number="000"),
    asks("get_customer_by_id", customer_id="C9999"),
    asks("get_customer_by_id"),
    asks("get_customer_by_id", customer_id="C1001", extra=1),
    asks("get_customer_by_name", full_name="john SMITH", dob="1985-06-15"),
    asks("get_customer_by_name", full_name="John Smith", dob="1985-06-16"),
    *[asks("get_details_by_id", id=i) for i in ("L1003", "D1002", "B1005", "C1002", "P1003", "X1", "L9", "B9")],
    asks("get_details_by_id", id=5),
    asks("suspend_line", customer_id="C1001", line_id="L1003", reason="travel"),
    asks("suspend_line", customer_id="C1001", line_id="L1004", reason="travel"),
    asks("suspend_line", customer_id="C1001", line_id="L1001"),
    asks("suspend_line", customer_id="C1001", line_id="L1001", reason="travel"),
    asks("resume_line", customer_id="C1001", line_id="L1002"),
    asks("resume_line", customer_id="C1001", line_id="L1001"),
    asks("get_bills_for_customer", customer_id="C1001"),
    asks("get_bills_for_customer", customer_id="C1002", limit=1),
    asks("get_bills_for_customer", customer_id="C1004"),
    asks("send_payment_request", customer_id="C1001", bill_id="B1005"),
    asks("send_payment_request", customer_id="C1001", bill_id="B1002"),
    asks("send_payment_request", customer_id="C1001", bill_id="B1001"),
    does("check_payment_request"),
    does("make_payment"),
    does("make_payment"),
    asks("get_bills_for_customer", customer_id="C1001", limit=2),
    asks("get_data_usage", customer_id="C1001", line_id="L1002"),
    asks("get_data_usage", customer_id="C1002", line_id="L1002"),
    asks("enable_roaming", customer_id="C1001", line_id="L1002"),
    asks("disable_roaming", customer_id="C1001", line_id="L1002"),
    asks("disable_roaming", customer_id="C1001", line_id="L1002"),
    asks("enable_roaming", customer_id="C1001", line_id="L1001"),
    asks("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=-1),
    asks("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=2),
    asks("refuel_data", customer_id="C1002", line_id="L1004", gb_amount=1.5),
    asks("refuel_data", customer_id="C1002", line_id="L1005", gb_amount=3),
    asks("get_bills_for_customer", customer_id="C1002"),
    asks("transfer_to_human_agents", summary="help"),
    asks("transfer_to_human_agents"),
    asks("no_such_tool"),
    asks("toggle_data"),
    does("get_customer_by_id", customer_id="C1001"),
    does("nothing"),
]


def _agent_error_scenarios() -> list[dict[str, Any]]:
    calls = AGENT_CALLS
    agent_asserts = [
        agent_fn("assert_data_refueling_amount", customer_id="C1001", line_id="L1002", expected_amount=2.0),
        agent_fn("assert_line_status", customer_id="C1001", line_id="L1001", expected_status="Active"),
        agent_fn("assert_overdue_bill_exists", customer_id="C1002", overdue_bill_id="B1005"),
        agent_fn("assert_overdue_bill_exists", customer_id="C1002", overdue_bill_id="B1004"),
        agent_fn("assert_no_overdue_bill", overdue_bill_id="B1005"),
        agent_fn("assert_no_overdue_bill", overdue_bill_id="B404"),
        user_fn("assert_service_status", expected_status="bogus"),
        user_fn("set_user_location", abroad=False),
    ]
    return [scenario([JOHN], calls, _with_assert_values(agent_asserts)), scenario([], calls[:12])]


def _user_error_scenarios() -> list[dict[str, Any]]:
    calls = [
        does("set_network_mode_preference", mode="6g"),
        does("set_network_mode_preference", mode="4g_only"),
        does("set_network_mode_preference"),
        does("grant_app_permission", app_name="camera", permission="sms"),
        does("grant_app_permission", app_name="browser", permission="SMS"),
        does("grant_app_permission", app_name="browser", permission="camera"),
        does("grant_app_permission", app_name="browser"),
        does("check_app_status", app_name="browser"),
        does("check_app_status", app_name="messaging"),
        does("check_app_status", app_name="camera"),
        does("check_app_permissions", app_name="browser"),
        does("check_app_permissions", app_name="camera"),
        does("set_apn_settings", apn_settings={"apn_name": "internet", "mmsc_url": None}),
        does("can_send_mms"),
        does("set_apn_settings", apn_settings={"apn_name": "broken"}),
        does("check_apn_settings"),
        does("reset_apn_settings"),
        does("reboot_device"),
        does("toggle_airplane_mode"),
        does("toggle_wifi"),
        does("toggle_airplane_mode"),
        does("toggle_wifi"),
        does("check_wifi_status"),
        does("toggle_wifi"),
        does("connect_vpn"),
        does("connect_vpn"),
        does("check_vpn_status"),
        does("run_speed_test"),
        does("toggle_airplane_mode"),
        does("check_vpn_status"),
        does("toggle_airplane_mode"),
        does("check_payment_request"),
        does("make_payment"),
        does("toggle_data", now=True),
        does("suspend_line", customer_id="C1001", line_id="L1002", reason="x"),
    ]
    return [scenario([JOHN], calls), scenario([], [does("check_status_bar"), does("run_speed_test")])]


def _init_scenarios() -> list[dict[str, Any]]:
    """Initialization data (the reference's ``set_state`` then points both toolkits at the one DB it updated, which
    breaks telecom's sync: compared as an error path), and initialization actions that fail."""
    data = {"agent_data": {"customers": []}}
    user_only = {"user_data": {"device": {"battery_level": 15, "wifi_enabled": True, "wifi_connected": True,
                                           "wifi_ssid": "Home", "wifi_signal_strength": "fair"},
                               "surroundings": {"is_abroad": True}}}  # fmt: skip
    return [
        scenario(
            [JOHN],
            [does("check_status_bar"), does("check_wifi_status"), does("check_network_status")],
            init_data=user_only,
        ),  # fmt: skip
        scenario([JOHN], [does("check_status_bar")], init_data=data),
        scenario([user_fn("set_user_info", name="Nobody", phone_number="555-000-0000")], [does("check_status_bar")]),
        scenario(
            [
                JOHN,
                agent_fn(
                    "suspend_line_for_overdue_bill",
                    customer_id="C1001",
                    line_id="L1003",
                    new_bill_id="B8",
                    contract_ended=False,
                ),
            ],
            [],
        ),  # fmt: skip
        scenario([JOHN, user_fn("no_such_function")], []),
        scenario([JOHN, user_fn("break_vpn")], [does("disconnect_vpn"), does("connect_vpn"), does("run_speed_test")]),
    ]


def perturbed_scenarios() -> list[dict[str, Any]]:
    return [*_device_state_scenarios(), *_agent_error_scenarios(), *_user_error_scenarios(), *_init_scenarios()]
