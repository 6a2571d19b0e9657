"""Edge cases of the Terminus-2 reply parser (FORMATS.md D2, E-D)."""

from __future__ import annotations

import json

import pytest

from agentcompass.harnesses.terminus2.parser import find_object, parse_response


def reply(**fields) -> str:
    base = {"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls -la\n", "duration": 0.1}]}
    base.update(fields)
    return json.dumps(base)


def test_valid_reply_has_no_warnings():
    r = parse_response(reply())
    assert r.error == "" and r.warnings == []
    assert [(c.keystrokes, c.duration) for c in r.commands] == [("ls -la\n", 0.1)]
    assert r.task_complete is False and r.analysis == "a" and r.plan == "p"


def test_prose_around_json_is_a_warning():
    r = parse_response("Sure! Here's what I'll do:\n" + reply() + "\nHope that helps.")
    assert r.error == ""
    assert any("before the JSON" in w for w in r.warnings)
    assert any("after the JSON" in w for w in r.warnings)
    assert r.commands[0].keystrokes == "ls -la\n"


def test_braces_and_quotes_inside_strings_do_not_confuse_extraction():
    text = json.dumps({"analysis": "a } tricky \" {", "plan": "p", "commands": [
        {"keystrokes": "echo '{\"x\": 1}' }\n", "duration": 1}]})
    r = parse_response("Don't worry, it's \"fine\": " + text)
    assert r.error == ""
    assert r.commands[0].keystrokes == "echo '{\"x\": 1}' }\n"


def test_missing_closing_brace_is_auto_corrected():
    r = parse_response(reply()[:-1])
    assert r.error == ""
    assert r.warnings[0].startswith("AUTO-CORRECTED")
    assert r.commands[0].keystrokes == "ls -la\n"


def test_embedded_object_after_other_braces_is_auto_corrected():
    r = parse_response("I will set ${HOME} first. " + reply())
    assert r.error == ""
    assert any(w.startswith("AUTO-CORRECTED") and "embedded" in w for w in r.warnings)


@pytest.mark.parametrize("missing", ["analysis", "plan", "commands"])
def test_missing_required_field_is_an_error(missing):
    data = json.loads(reply())
    del data[missing]
    r = parse_response(json.dumps(data))
    assert missing in r.error and "Missing required fields" in r.error
    assert r.commands == []


def test_broken_json_is_an_error():
    r = parse_response('{"analysis": "a", "plan": p, "commands": []}')
    assert r.error.startswith("Invalid JSON")
    assert parse_response("no json at all").error.startswith("No valid JSON")


@pytest.mark.parametrize("fields,needle", [
    ({"commands": "ls\n"}, "'commands' must be an array"),
    ({"commands": ["ls\n"]}, "Command 1 must be an object"),
    ({"commands": [{"duration": 1}]}, "missing the required 'keystrokes'"),
    ({"commands": [{"keystrokes": ["ls"]}]}, "'keystrokes' must be a string"),
    ({"analysis": 3}, "'analysis' must be a string"),
    ({"plan": None}, "'plan' must be a string"),
])
def test_wrong_types_are_errors(fields, needle):
    r = parse_response(reply(**fields))
    assert needle in r.error
    assert r.commands == []


def test_top_level_array_is_an_error():
    r = parse_response('Here: [{"analysis": "a"}]')
    assert r.error.startswith("Missing required fields")
    assert parse_response('"just a string"').error.startswith("No valid JSON")


@pytest.mark.parametrize("value,expected", [
    (True, True), (False, False), ("true", True), ("True", True), ("1", True), ("yes", True),
    ("false", False), ("no", False), ("0", False), (1, True), (0, False),
])
def test_task_complete_values(value, expected):
    r = parse_response(reply(task_complete=value))
    assert r.error == "" and r.task_complete is expected
    assert r.warnings == []


def test_task_complete_odd_value_warns_and_is_false():
    r = parse_response(reply(task_complete="maybe"))
    assert r.task_complete is False and any("task_complete" in w for w in r.warnings)


def test_unknown_keys_warn():
    data = json.loads(reply())
    data["confidence"] = 0.9
    data["commands"][0]["timeout"] = 3
    r = parse_response(json.dumps(data))
    assert r.error == ""
    assert any("Unknown fields: confidence" in w for w in r.warnings)
    assert any("Command 1: unknown fields: timeout" in w for w in r.warnings)


def test_field_order_warns():
    text = '{"plan": "p", "analysis": "a", "commands": []}'
    r = parse_response(text)
    assert r.error == "" and any("out of order" in w for w in r.warnings)


@pytest.mark.parametrize("cmd,needle,duration", [
    ({"keystrokes": "ls\n"}, "missing 'duration'", 1.0),
    ({"keystrokes": "ls\n", "duration": "5"}, "invalid 'duration'", 1.0),
    ({"keystrokes": "ls\n", "duration": -2}, "invalid 'duration'", 1.0),
    ({"keystrokes": "ls\n", "duration": True}, "invalid 'duration'", 1.0),
    ({"keystrokes": "sleep 500\n", "duration": 600}, "capped at 60", 60.0),
])
def test_duration_problems_warn(cmd, needle, duration):
    r = parse_response(reply(commands=[cmd]))
    assert r.error == ""
    assert any(needle in w for w in r.warnings), r.warnings
    assert r.commands[0].duration == duration


def test_duration_cap_is_configurable():
    r = parse_response(reply(commands=[{"keystrokes": "x\n", "duration": 30}]), duration_cap=10)
    assert r.commands[0].duration == 10.0


def test_non_final_command_without_newline_warns():
    r = parse_response(reply(commands=[{"keystrokes": "echo a", "duration": 0.1},
                                       {"keystrokes": "echo b", "duration": 0.1}]))
    assert r.error == ""
    assert any("Command 1 should end with a newline" in w for w in r.warnings)
    assert not any("Command 2 should" in w for w in r.warnings)


def test_task_complete_demotes_command_errors_and_runs_nothing():
    r = parse_response(reply(commands=[{"keystrokes": 42}], task_complete="true"))
    assert r.error == "" and r.task_complete is True and r.commands == []
    assert any("'keystrokes' must be a string" in w and "no commands run" in w for w in r.warnings)


def test_task_complete_does_not_rescue_missing_fields():
    r = parse_response('{"analysis": "a", "task_complete": true}')
    assert "Missing required fields" in r.error


def test_key_names_and_empty_commands_pass_through():
    r = parse_response(reply(commands=[{"keystrokes": "C-c", "duration": 0.1},
                                       {"keystrokes": "", "duration": 5}]))
    assert r.error == "" and [c.keystrokes for c in r.commands] == ["C-c", ""]


def test_find_object_spans():
    assert find_object('x {"a": "}"} y') == (2, 12)
    assert find_object("none") == (-1, -1)
    assert find_object('{"a": 1') == (0, -1)
