"""Where terminus2's prompts come from (Harbor's own files, read at run time) and the first prompt it sends,
compared with Harbor 0.26.0's own rendering in the harbor reference venv."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from t2_support import harbor_dir

from agentcompass.errors import ConfigError, DependencyError
from agentcompass.harnesses.terminus2 import harbor_source
from agentcompass.harnesses.terminus2.harbor_source import FILES, PACKAGE_DIR, WHEEL_NAME, load_source
from agentcompass.harnesses.terminus2.harbor_text import HarborPrompts
from agentcompass.harnesses.terminus2.tmux import TmuxSession, limit_output
from agentcompass.interfaces import ExecResult
from agentcompass.testing.reference import run_reference

REPO = Path(__file__).resolve().parents[3]


def make_wheel(path: Path) -> Path:
    """A zip laid out as Harbor's wheel, from the reference venv's files (built here, never committed)."""
    with zipfile.ZipFile(path, "w") as wheel:
        for name in FILES:
            wheel.write(Path(harbor_dir()) / name, f"{PACKAGE_DIR}/{name}")
    return path


@pytest.fixture(autouse=True)
def _fresh_cache():
    harbor_source._cached.cache_clear()
    yield
    harbor_source._cached.cache_clear()


@pytest.mark.parametrize("form", ["package", "templates", "site-packages", "wheel"])
def test_templates_dir_accepts_every_documented_form(form, tmp_path):
    root = Path(harbor_dir())
    value = {
        "package": root,
        "templates": root / "templates",
        "site-packages": root.parents[2],
        "wheel": make_wheel(tmp_path / WHEEL_NAME),
    }[form]
    source = load_source(str(value), None, False)
    assert source.matches_reference and source.version == "0.26.0"
    assert source.describe()["sha256"] == FILES and source.describe()["matches_harbor"] == "0.26.0"


def test_a_changed_copy_is_used_and_recorded_as_not_harbors(tmp_path):
    copy = tmp_path / "terminus_2"
    shutil.copytree(harbor_dir(), copy)
    template = copy / "templates" / "terminus-json-plain.txt"
    template.write_text(template.read_text() + "\nLOCAL EDIT\n")
    source = load_source(str(copy), None, False)
    assert source.version is None and source.describe()["matches_harbor"] is None
    assert source.sha256["templates/terminus-json-plain.txt"] != FILES["templates/terminus-json-plain.txt"]
    assert HarborPrompts(source).first_prompt("x", "y").endswith("LOCAL EDIT\n")


def test_a_copy_without_a_needed_text_names_it(tmp_path):
    copy = tmp_path / "terminus_2"
    shutil.copytree(harbor_dir(), copy)
    code = copy / "terminus_2.py"
    code.write_text(code.read_text().replace("question_prompt", "q_prompt"))
    with pytest.raises(ConfigError, match=r"Harbor's questions text from terminus_2.py"):
        HarborPrompts(load_source(str(copy), None, False))


@pytest.mark.parametrize("broken", ["missing", "incomplete"])
def test_a_bad_templates_dir_is_one_clear_error(broken, tmp_path):
    target = tmp_path / "nowhere"
    if broken == "incomplete":
        (target / "templates").mkdir(parents=True)
        (target / "templates" / "terminus-json-plain.txt").write_text("x")
    with pytest.raises(ConfigError) as err:
        load_source(str(target), None, False)
    assert "harness_params.templates_dir" in str(err.value) and str(target.name) in str(err.value)
    if broken == "incomplete":
        assert "terminus_2.py" in str(err.value)


def test_nothing_found_names_every_way_to_provide_the_files(tmp_path):
    if harbor_source.from_installed() is not None:
        pytest.skip("harbor is installed in this interpreter")
    with pytest.raises(DependencyError) as err:
        load_source(None, tmp_path, False)
    text = str(err.value)
    for needle in (
        "--auto-install-dependencies",
        "pip install harbor==0.26.0",
        "harness_params.templates_dir",
        str(tmp_path / "harbor" / WHEEL_NAME),
    ):
        assert needle in text


def test_a_wheel_in_data_dir_is_read_without_installing(tmp_path):
    if harbor_source.from_installed() is not None:
        pytest.skip("harbor is installed in this interpreter")
    (tmp_path / "harbor").mkdir()
    make_wheel(tmp_path / "harbor" / WHEEL_NAME)
    source = load_source(None, tmp_path, False)
    assert source.kind == "wheel" and source.matches_reference


@pytest.mark.slow
def test_auto_install_downloads_harbors_wheel_into_data_dir(tmp_path):
    """``pip download harbor==0.26.0 --no-deps`` (PyPI), then the wheel is read as a zip."""
    if harbor_source.from_installed() is not None:
        pytest.skip("harbor is installed in this interpreter")
    source = load_source(None, tmp_path, True)
    assert source.kind == "wheel" and Path(source.origin) == tmp_path / "harbor" / WHEEL_NAME
    assert source.matches_reference


def test_cli_without_harbor_files_fails_with_one_line_and_exit_2(tmp_path):
    if harbor_source.from_installed() is not None:
        pytest.skip("harbor is installed in this interpreter")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "agentcompass",
            "run",
            "demo",
            "terminus2",
            "scripted",
            "--data-dir",
            str(tmp_path / "data"),
            "--results-dir",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "--auto-install-dependencies" in lines[0] and "templates_dir" in lines[0]


# ---------------------------------------------------------------- the first prompt, against Harbor's rendering

CASES = [
    ("Create /app/hello.txt containing Hello, world!", "root@box:/app# \n" + "\n" * 39),
    ('Use {braces} and {{doubled}} braces; write JSON {"a": 1}.', "$ echo '{x}'\n{x}\n$ "),
    ("Unicode: héllo 😀 €", "root@box:/app# ls\nfichier-é.txt  😀.md\nroot@box:/app# "),
    ("Huge screen", "".join(f"row {i:04d} " + "é" * 60 + "\n" for i in range(200))),
    ("", ""),
]

HARBOR_FIRST = r"""
import asyncio, json, os, sys, tempfile
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from pathlib import Path, PurePosixPath
from harbor.agents.terminus_2.terminus_2 import Terminus2
from harbor.agents.terminus_2.tmux_session import TmuxSession
from harbor.environments.base import ExecResult

agent = Terminus2(logs_dir=Path(tempfile.mkdtemp()), model_name="openai/x", record_terminal_session=False,
                  suppress_max_turns_warning=True)

class Env:
    session_id = "fake"
    def __init__(self, screen):
        self.screen = screen
    async def exec(self, command, **kwargs):
        return ExecResult(stdout=self.screen, stderr="", return_code=0)

async def first(instruction, screen):
    session = TmuxSession("terminus-2", Env(screen), PurePosixPath("/logs/agent/terminus_2.pane"), None, None)
    state = agent._limit_output_length(await session.get_incremental_output())
    return agent._prompt_template.format(instruction=instruction, terminal_state=state)

cases = json.load(sys.stdin)
print(json.dumps([asyncio.run(first(i, s)) for i, s in cases]))
"""


class ScreenEnv:
    """Answers every capture-pane with ``screen``."""

    id, workdir = "fake", "/app"

    def __init__(self, screen: str) -> None:
        self.screen = screen

    def path(self, p: str) -> str:
        return p

    async def exec(self, cmd, **kwargs) -> ExecResult:
        return ExecResult(exit_code=0, stdout=self.screen)


async def our_first(prompts: HarborPrompts, instruction: str, screen: str) -> str:
    session = TmuxSession(ScreenEnv(screen), prompts)
    return prompts.first_prompt(instruction, limit_output(await session.incremental_output(), 10_000, prompts))


@pytest.mark.slow
def test_first_prompt_equals_harbors_rendering():
    prompts = HarborPrompts(load_source(harbor_dir(), None, False))
    theirs = run_reference("harbor", HARBOR_FIRST, CASES, timeout=300)
    ours = [asyncio.run(our_first(prompts, i, s)) for i, s in CASES]
    assert len(theirs) == len(CASES)
    for case, a, b in zip(CASES, ours, theirs, strict=False):
        assert a == b, case[0]
    assert len(ours[3].encode()) < len(CASES[3][1].encode())  # the huge screen was cut (as Harbor cuts it)
