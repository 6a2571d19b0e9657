"""Tricky Terminus-2 replies for the parser agreement test: each one a (name, reply text) pair."""

from __future__ import annotations

import json

C = [{"keystrokes": "ls -la\n", "duration": 0.1}]


def obj(**fields: object) -> str:
    """A reply object with the fields in the given order (``None`` values included as JSON null)."""
    return json.dumps(fields)


def base(**over: object) -> str:
    fields: dict[str, object] = {"analysis": "a", "plan": "p", "commands": C}
    fields.update(over)
    return json.dumps({k: v for k, v in fields.items() if v is not _DROP})


_DROP = object()
VALID = base()

REPLIES: list[tuple[str, str]] = [
    ("valid", VALID),
    ("valid_complete", base(task_complete=True)),
    ("empty_commands", base(commands=[])),
    ("prose_before", "Sure, here is my answer:\n" + VALID),
    ("prose_after", VALID + "\nHope this helps."),
    ("prose_both", "Thinking...\n" + VALID + "\nDone."),
    ("markdown_fence", "```json\n" + VALID + "\n```"),
    ("missing_closing_brace", VALID[:-1]),
    ("missing_two_braces", base(commands=[{"keystrokes": "ls\n", "duration": 1}])[:-3]),
    ("analysis_list", base(analysis=["one", "two"])),
    ("plan_null", base(plan=None)),
    ("analysis_number", base(analysis=3)),
    ("plan_object", base(plan={"step": 1})),
    ("complete_str_padded_True", base(task_complete=" True ")),
    ("complete_str_true", base(task_complete="true")),
    ("complete_str_TRUE", base(task_complete="TRUE")),
    ("complete_str_yes", base(task_complete="yes")),
    ("complete_str_1", base(task_complete="1")),
    ("complete_str_no", base(task_complete="no")),
    ("complete_str_false", base(task_complete="false")),
    ("complete_int_2", base(task_complete=2)),
    ("complete_int_0", base(task_complete=0)),
    ("complete_list_true", base(task_complete=[True])),
    ("complete_empty_list", base(task_complete=[])),
    ("complete_null", base(task_complete=None)),
    ("complete_object", base(task_complete={})),
    ("complete_float", base(task_complete=0.5)),
    ("duration_negative", base(commands=[{"keystrokes": "ls\n", "duration": -5}])),
    ("duration_nan", base(commands=[{"keystrokes": "ls\n", "duration": float("nan")}])),
    ("duration_infinity", base(commands=[{"keystrokes": "ls\n", "duration": float("inf")}])),
    ("duration_string", base(commands=[{"keystrokes": "ls\n", "duration": "5"}])),
    ("duration_bool", base(commands=[{"keystrokes": "ls\n", "duration": True}])),
    ("duration_null", base(commands=[{"keystrokes": "ls\n", "duration": None}])),
    ("duration_missing", base(commands=[{"keystrokes": "ls\n"}])),
    ("duration_over_cap", base(commands=[{"keystrokes": "sleep 100\n", "duration": 120}])),
    (
        "duration_huge_exponent",
        ('{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "x\\n", "duration": 1e400}]}'),
    ),
    ("keys_trailing_semicolon", base(commands=[{"keystrokes": "cd /app;", "duration": 0.1}])),
    ("keys_missing", base(commands=[{"duration": 1}])),
    ("keys_list", base(commands=[{"keystrokes": ["ls", "\n"], "duration": 1}])),
    ("keys_null", base(commands=[{"keystrokes": None, "duration": 1}])),
    ("command_string", base(commands=["ls -la\n"])),
    ("second_command_string", base(commands=[C[0], "pwd\n"])),
    ("commands_string", base(commands="ls -la\n")),
    ("commands_object", base(commands={"keystrokes": "ls\n"})),
    ("commands_missing", base(commands=_DROP)),
    ("analysis_missing", base(analysis=_DROP)),
    ("all_missing", obj(task_complete=True)),
    ("empty_reply", ""),
    ("no_json", "I will list the files now."),
    ("json_array", json.dumps([{"analysis": "a"}])),
    ("json_string", json.dumps("hello")),
    ("two_objects", VALID + "\n" + base(commands=[{"keystrokes": "pwd\n", "duration": 1}])),
    ("decoy_object_first", '{"note": "x"} ' + VALID),
    ("unknown_top_field", base(extra="x")),
    ("unknown_command_field", base(commands=[{"keystrokes": "ls\n", "duration": 1, "cwd": "/"}])),
    ("unknown_command_fields_two", base(commands=[{"keystrokes": "ls\n", "duration": 1, "cwd": "/", "timeout": 3}])),
    ("wrong_field_order", obj(commands=C, plan="p", analysis="a")),
    ("plan_before_analysis", obj(plan="p", analysis="a", commands=C)),
    (
        "no_newline_non_final",
        base(commands=[{"keystrokes": "ls", "duration": 1}, {"keystrokes": "pwd\n", "duration": 1}]),
    ),
    ("no_newline_final", base(commands=[{"keystrokes": "ls\n", "duration": 1}, {"keystrokes": "pwd", "duration": 1}])),
    (
        "empty_keys_non_final",
        base(commands=[{"keystrokes": "", "duration": 5}, {"keystrokes": "pwd\n", "duration": 1}]),
    ),
    ("complete_with_bad_command", base(commands=[{"duration": 1}], task_complete=True)),
    ("complete_with_commands_string", base(commands="ls", task_complete=True)),
    ("braces_in_strings", base(commands=[{"keystrokes": "echo '{}' '}{' && awk '{print $1}' f\n", "duration": 0.1}])),
    ("prose_with_brace_before", "Use {braces} carefully.\n" + VALID),
    ("escaped_quotes", base(commands=[{"keystrokes": 'echo "hi \\"there\\""\n', "duration": 0.1}])),
    ("unicode_keys", base(commands=[{"keystrokes": "echo 'héllo 😀 €'\n", "duration": 0.1}])),
    ("ctrl_c", base(commands=[{"keystrokes": "C-c", "duration": 0.1}])),
    (
        "carriage_return",
        base(commands=[{"keystrokes": "ls\r", "duration": 0.1}, {"keystrokes": "pwd\n", "duration": 0.1}]),
    ),
    ("trailing_comma", VALID[:-1] + ",}"),
    ("single_quotes", "{'analysis': 'a', 'plan': 'p', 'commands': []}"),
    ("js_comment", '{"analysis": "a", // note\n "plan": "p", "commands": []}'),
    ("unterminated_string", '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls'),
    ("extra_closing_brace", VALID + "}"),
    ("python_true", VALID[:-1] + ', "task_complete": True}'),
    ("unquoted_keys", '{analysis: "a", plan: "p", commands: []}'),
    ("field_named_ERROR", base(commands=[{"keystrokes": "ls\n", "duration": 1, "ERROR:": 1}])),
    ("nested_missing_brace_with_prose", "Here:\n" + base(task_complete=True)[:-1]),
]
