"""Terminal-Bench task format: task.toml (both forms), the task-directory loader, the verifier contract."""

from __future__ import annotations

import json
import logging
import textwrap
from pathlib import Path

import pytest

from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark, TerminalBenchConfig
from agentcompass.benchmarks.terminal_bench.loader import dockerfile_workdir
from agentcompass.benchmarks.terminal_bench.task_toml import parse_size_mb, parse_task_toml
from agentcompass.errors import ConfigError, DatasetError
from tests.benchmarks.tb_fixtures import (  # noqa: F401  (local_provider is a fixture)
    NORMALIZED_TOML,
    PUBLISHED_TOML,
    attempt,
    local_provider,
    make_task,
    run,
)


def toml_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "task.toml"
    path.write_text(textwrap.dedent(text))
    return path


def bench(path: Path, **kw) -> TerminalBenchBenchmark:
    return TerminalBenchBenchmark(TerminalBenchConfig(dataset_path=str(path), **kw), None)


# --------------------------------------------------------------------------- task.toml


def test_published_form(tmp_path):
    spec = parse_task_toml(toml_file(tmp_path, PUBLISHED_TOML))
    assert spec.schema_version == "1.0" and spec.metadata["tags"] == ["a", "b"]
    assert (spec.agent_timeout_s, spec.verifier_timeout_s, spec.build_timeout_s) == (45.0, 30.0, 120.0)
    assert (spec.cpus, spec.memory_mb, spec.storage_mb) == (2.0, 2048, 10240)
    assert spec.network is None and spec.docker_image is None and spec.extra == {}


def test_normalized_form(tmp_path):
    spec = parse_task_toml(toml_file(tmp_path, NORMALIZED_TOML))
    assert spec.schema_version == "1.3" and spec.name == "terminal-bench/norm"
    assert spec.metadata["difficulty"] == "hard" and spec.metadata["keywords"] == ["k1"]
    assert spec.metadata["authors"] == [{"name": "Someone"}]
    assert (spec.memory_mb, spec.storage_mb, spec.gpus) == (4096, 20480, 0)
    assert spec.allow_internet is False and spec.network == "none"
    assert spec.verifier_env == {"CHECK_MODE": "strict"} and spec.environment_env == {"APP_MODE": "test"}
    assert spec.solution_env == {"SOLUTION_FLAG": "1"}
    assert spec.extra == {"environment.mcp_servers": []}


def test_defaults_when_tables_are_absent(tmp_path):
    spec = parse_task_toml(toml_file(tmp_path, 'version = "1.0"\n'))
    assert (spec.agent_timeout_s, spec.verifier_timeout_s, spec.build_timeout_s) == (600.0, 600.0, 600.0)
    assert spec.memory_mb is None and spec.cpus is None


@pytest.mark.parametrize(
    "value, mb",
    [
        ("2G", 2048),
        ("512M", 512),
        ("1024K", 1),
        ("1.5G", 1536),
        ("4Gi", 4096),
        ("10GB", 10240),
        ("256mb", 256),
        (" 3g ", 3072),
        ("1T", 1048576),
        (2048, 2048),
    ],
)
def test_size_suffixes(value, mb):
    assert parse_size_mb(value, "memory") == mb


@pytest.mark.parametrize("value", ["2X", "lots", "", "G", "-1G", True, "2 G B"])
def test_bad_sizes(value):
    with pytest.raises(DatasetError, match="memory"):
        parse_size_mb(value, "memory")


def test_memory_conflict_is_reported_with_file_and_fields(tmp_path):
    path = toml_file(tmp_path, '[environment]\nmemory = "2G"\nmemory_mb = 1024\n')
    with pytest.raises(DatasetError) as info:
        parse_task_toml(path)
    message = str(info.value)
    assert str(path) in message and "memory='2G'" in message and "memory_mb=1024" in message
    assert parse_task_toml(toml_file(tmp_path, '[environment]\nmemory = "1G"\nmemory_mb = 1024\n')).memory_mb == 1024
    with pytest.raises(DatasetError, match="storage"):
        parse_task_toml(toml_file(tmp_path, '[environment]\nstorage = "1G"\nstorage_mb = 5\n'))


def test_network_mode_and_allow_internet(tmp_path):
    assert parse_task_toml(toml_file(tmp_path, '[environment]\nnetwork_mode = "public"\n')).network == "bridge"
    assert parse_task_toml(toml_file(tmp_path, '[environment]\nnetwork_mode = "no-network"\n')).network == "none"
    with pytest.raises(DatasetError, match="conflicts"):
        parse_task_toml(toml_file(tmp_path, '[environment]\nnetwork_mode = "public"\nallow_internet = false\n'))
    with pytest.raises(DatasetError, match="network_mode='lan'.*public, no-network, allowlist"):
        parse_task_toml(toml_file(tmp_path, '[environment]\nnetwork_mode = "lan"\n'))


def test_unknown_keys_are_allowed_and_kept(tmp_path):
    spec = parse_task_toml(
        toml_file(
            tmp_path,
            """\
        version = "1.0"
        future_top = 3
        [metadata]
        anything_goes = {nested = true}
        [verifier]
        timeout_sec = 10
        retries = 2
        [environment]
        gpu_types = ["h100"]
        [brand_new_table]
        x = 1
    """,
        )
    )
    assert spec.metadata["anything_goes"] == {"nested": True}
    assert spec.extra == {
        "future_top": 3,
        "brand_new_table": {"x": 1},
        "verifier.retries": 2,
        "environment.gpu_types": ["h100"],
    }


@pytest.mark.parametrize(
    "text, field",
    [
        ('[verifier]\ntimeout_sec = "abc"\n', "verifier.timeout_sec"),
        ("[agent]\ntimeout_sec = 0\n", "agent.timeout_sec"),
        ('[environment]\ncpus = "two"\n', "environment.cpus"),
        ("[environment]\nmemory_mb = 1.5\n", "environment.memory_mb"),
        ("[environment]\ndocker_image = 5\n", "environment.docker_image"),
        ('[environment]\nallow_internet = "yes"\n', "environment.allow_internet"),
        ('[environment]\nworkdir = "app"\n', "environment.workdir"),
        ("environment = 3\n", "[environment] must be a table"),
        ("[verifier]\nenv = 3\n", "verifier.env"),
        ("version = \n", "not valid TOML"),
    ],
)
def test_bad_values_name_file_and_field(tmp_path, text, field):
    path = toml_file(tmp_path, text)
    with pytest.raises(DatasetError) as info:
        parse_task_toml(path)
    assert str(path) in str(info.value) and field in str(info.value)


# --------------------------------------------------------------------------- loader


def test_dockerfile_workdir(tmp_path):
    df = tmp_path / "Dockerfile"
    df.write_text("FROM a AS build\nWORKDIR /build\nFROM b\nWORKDIR /srv\nWORKDIR app\nRUN true\n")
    assert dockerfile_workdir(df) == "/srv/app"
    df.write_text("FROM a\nWORKDIR /x\nFROM b\nRUN true\n")
    assert dockerfile_workdir(df) == "/app"


def test_docker_image_without_dockerfile(tmp_path):
    toml = PUBLISHED_TOML + 'docker_image = "example/task:20251031"\n'
    make_task(tmp_path, "prebuilt", toml=toml, dockerfile=None)
    b = bench(tmp_path)
    [task] = b.load()
    spec = b.env_spec(task)
    assert (spec.image, spec.dockerfile_dir, spec.workdir) == ("example/task:20251031", None, "/app")
    assert (spec.cpus, spec.memory_mb, spec.build_args) == (2.0, 2048, {"BASE_IMAGE": "python:3.12-bookworm"})


def test_env_spec_from_dockerfile_and_normalized_toml(tmp_path):
    make_task(tmp_path, "norm", toml=NORMALIZED_TOML, dockerfile="ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nWORKDIR /work\n")
    b = bench(tmp_path, base_image="local/base:1", agent_timeout_s=5)
    [task] = b.load()
    spec = b.env_spec(task)
    assert spec.dockerfile_dir == tmp_path / "norm/environment" and spec.image is None
    assert (spec.workdir, spec.memory_mb, spec.network, spec.env) == ("/work", 4096, "none", {"APP_MODE": "test"})
    assert spec.build_args == {"BASE_IMAGE": "local/base:1"}
    assert (task.agent_timeout_s, task.verifier_timeout_s) == (5, 20.0)
    assert task.metadata["name"] == "terminal-bench/norm"
    solution = b.reference_solution(task)
    assert solution.files == {"/solution": tmp_path / "norm/solution"}
    assert solution.command == 'bash "${AGENTCOMPASS_SOLUTION_DIR:-/solution}/solve.sh"'
    assert solution.env == {"SOLUTION_FLAG": "1"}


def test_malformed_task_reported_while_others_load(tmp_path, caplog):
    make_task(tmp_path, "good-1")
    make_task(tmp_path, "good-2", toml=NORMALIZED_TOML)
    make_task(tmp_path, "bad-toml", toml='[environment]\nmemory = "lots"\n')
    make_task(tmp_path, "no-tests", test_sh=None)
    make_task(tmp_path, "no-image", dockerfile=None)
    make_task(tmp_path, "no-instruction", instruction=None)
    (tmp_path / "not-a-task").mkdir()
    (tmp_path / "not-a-task/notes.txt").write_text("ignored")
    b = bench(tmp_path)
    with caplog.at_level(logging.WARNING, logger="agentcompass.benchmarks.terminal_bench"):
        tasks = b.load()
    assert [t.id for t in tasks] == ["good-1", "good-2"]
    problems = {p.task_id: p for p in b.problems}
    assert sorted(problems) == ["bad-toml", "no-image", "no-instruction", "no-tests"]
    assert problems["bad-toml"].field == "task.toml" and "memory='lots'" in problems["bad-toml"].message
    assert problems["no-tests"].field == "tests/test.sh"
    assert problems["no-image"].field == "environment/Dockerfile" and "docker_image" in problems["no-image"].message
    assert problems["no-instruction"].field == "instruction.md"
    (logged,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]  # one line for all
    assert str(tmp_path / "bad-toml" / "task.toml") in logged and "4 of 6 task directories malformed" in logged
    assert "(and 3 more)" in logged and logged.endswith("skipped_tasks.json in the run directory")
    (tmp_path / "run").mkdir()
    paths = b.finalize(tmp_path / "run", [])
    written = json.loads(Path(paths["skipped_tasks"]).read_text())
    assert {p["task_id"] for p in written} == set(problems)
    assert all(p["path"] and p["field"] and p["reason"] for p in written)


def test_sample_ids_keep_order_and_limit_applies_after(tmp_path):
    for name in ("a", "b", "c", "d"):
        make_task(tmp_path, name)
    assert [t.id for t in bench(tmp_path, sample_ids=["c", "a"]).load()] == ["c", "a"]
    assert [t.id for t in bench(tmp_path, sample_ids="d, b").load()] == ["d", "b"]
    assert [t.id for t in bench(tmp_path, limit=2).load()] == ["a", "b"]
    assert [t.id for t in bench(tmp_path, sample_ids=["d", "c", "b"], limit=1).load()] == ["d"]
    assert bench(tmp_path, limit=0).load() == []


def test_unknown_sample_id_lists_valid_ones(tmp_path):
    for name in ("alpha", "beta"):
        make_task(tmp_path, name)
    make_task(tmp_path, "broken", test_sh=None)
    with pytest.raises(DatasetError, match=r"unknown sample id 'gamma'.*valid ids include: alpha, beta"):
        bench(tmp_path, sample_ids=["alpha", "gamma"]).load()
    with pytest.raises(DatasetError, match=r"'broken' is a malformed task.*tests/test.sh"):
        bench(tmp_path, sample_ids=["broken"]).load()


def test_dataset_path_errors_and_single_task_dir(tmp_path):
    with pytest.raises(ConfigError, match="dataset_path is required"):
        TerminalBenchBenchmark(TerminalBenchConfig(), None).load()
    with pytest.raises(DatasetError, match="not a directory"):
        bench(tmp_path / "missing").load()
    single = make_task(tmp_path, "solo")
    assert [t.id for t in bench(single).load()] == ["solo"]


def test_missing_solution_is_a_dataset_error(tmp_path):
    make_task(tmp_path, "nosol", solve_sh=None)
    b = bench(tmp_path)
    [task] = b.load()
    with pytest.raises(DatasetError, match="solve.sh"):
        b.reference_solution(task)


# --------------------------------------------------------------------------- environment contract (local env)


def test_setup_leaves_tests_and_solution_absent(tmp_path, local_provider):  # noqa: F811
    make_task(tmp_path / "ds", "t", files={"environment/files/input.txt": "data"})

    async def body(workdir_files):
        b = bench(tmp_path / "ds", workdir_files=workdir_files)
        [task] = b.load()
        env = await local_provider.open(b.env_spec(task))
        try:
            await env.exec(["mkdir", "-p", env.path("/tests"), env.path("/solution")])
            await b.setup(task, env, None)
            ws = Path(env.describe()["workspace"])
            assert (ws / "logs/agent").is_dir() and (ws / "logs/verifier").is_dir()
            assert not (ws / "tests").exists() and not (ws / "solution").exists()
            return (ws / "app/input.txt").exists()
        finally:
            await env.close()

    assert run(body("files")) is True
    assert run(body(None)) is False


VERIFIER_CASES = {
    # test.sh: what it does                                        -> expected (reward, error fragment)
    "exit code ignored": ("echo 1 > $OUT/reward.txt; exit 3", 1.0, None),
    "writes nothing": ("echo no reward", None, "no reward file"),
    "non-numeric": ("echo PASSED > $OUT/reward.txt", None, "not a number"),
    "json wins": ('echo 0 > $OUT/reward.txt; echo \'{"reward": 0.5, "style": 1}\' > $OUT/reward.json', 0.5, None),
    "verifier env": ('[ "$CHECK_MODE" = strict ] && echo 1 > $OUT/reward.txt', 1.0, None),
    "timeout": ("sleep 30; echo 1 > $OUT/reward.txt", None, "timed out after 1s"),
    "no shebang needed": ("[[ -n $BASH_VERSION ]] && echo 1 > $OUT/reward.txt", 1.0, None),
}


@pytest.mark.parametrize("case", sorted(VERIFIER_CASES))
def test_verifier_contract(tmp_path, local_provider, case):  # noqa: F811
    body_sh, reward, error = VERIFIER_CASES[case]
    script = 'OUT="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"\necho "cwd=$PWD"\n' + body_sh + "\n"
    if case != "no shebang needed":
        script = "#!/bin/bash\n" + script
    make_task(tmp_path / "ds", "t", toml=NORMALIZED_TOML, test_sh=script)
    b = bench(tmp_path / "ds", verifier_timeout_s=1 if case == "timeout" else None)
    [task] = b.load()

    async def body():
        env = await local_provider.open(b.env_spec(task))
        try:
            await b.setup(task, env, None)
            # an agent that leaves a stale reward and a fake test behind must not be rewarded for it
            await env.write_file("/logs/verifier/reward.txt", "1")
            await env.write_file("/tests/extra_fake.sh", "echo 1")
            grade = await b.grade(task, env, None, None)
            ws = Path(env.describe()["workspace"])
            assert not (ws / "tests/extra_fake.sh").exists()
            return grade, ws
        finally:
            await env.close()

    grade, ws = run(body())
    assert grade.reward == reward
    if error is None:
        assert grade.error is None and grade.resolved == (reward >= 1)
    else:
        assert grade.error.startswith("VerifierError:") and error in grade.error and grade.resolved is False
    if case != "timeout":
        assert f"cwd={ws}/app" in grade.log  # test.sh runs from the workdir
    if case == "json wins":
        assert grade.rewards == {"reward": 0.5, "style": 1.0} and grade.details["reward_file"] == "reward.json"


# --------------------------------------------------------------------------- compose tasks


def test_compose_tasks_load_and_only_docker_runs_them(tmp_path):
    from agentcompass.environments.local import LocalConfig, LocalProvider
    from agentcompass.errors import NotSupportedYetError
    from tests.benchmarks.terminal_bench.compose_fixtures import compose_tasks

    b = bench(compose_tasks(tmp_path / "ds"))
    tasks = {t.id: t for t in b.load()}
    assert sorted(tasks) == ["kv-record", "web-secret"] and b.problems == []
    web, kv = b.env_spec(tasks["web-secret"]), b.env_spec(tasks["kv-record"])
    assert web.compose_file == tmp_path / "ds/web-secret/environment/docker-compose.yaml"
    assert web.dockerfile_dir == tmp_path / "ds/web-secret/environment" and web.image is None
    assert kv.compose_file.is_file() and kv.dockerfile_dir is None and kv.image == "agentcompass/base:bookworm"
    assert (web.cpus, web.memory_mb, web.env) == (1.0, 512, {"APP_MODE": "compose"})
    provider = LocalProvider(LocalConfig(root_dir=str(tmp_path / "ws")), None)
    with pytest.raises(NotSupportedYetError, match=r"task web-secret: docker-compose.yaml .*\(--env docker\)"):
        run(provider.open(web))


def test_a_compose_file_alone_defines_the_environment(tmp_path):
    make_task(
        tmp_path,
        "only-compose",
        dockerfile=None,
        files={"environment/docker-compose.yaml": "services:\n  main:\n    image: x\n"},
    )
    make_task(tmp_path, "nothing", dockerfile=None)
    b = bench(tmp_path)
    assert [t.id for t in b.load()] == ["only-compose"]
    [problem] = b.problems
    assert problem.task_id == "nothing" and "environment/docker-compose.yaml" in problem.message


def test_a_symlink_leading_out_of_a_task_directory_is_refused(tmp_path):
    host = tmp_path / "host-secrets"
    host.mkdir()
    (host / "id_rsa").write_text("PRIVATE")
    root = tmp_path / "ds"
    root.mkdir()
    make_task(root, "linked-files")
    files = root / "linked-files" / "environment" / "files"
    files.symlink_to(host, target_is_directory=True)  # the whole files/ directory is a link out
    make_task(root, "inner-link")
    (root / "inner-link" / "tests" / "key").symlink_to(host / "id_rsa")
    make_task(root, "fine")
    (root / "fine" / "tests" / "alias.sh").symlink_to("test.sh")  # a link that stays inside is fine
    b = bench(root)
    assert [t.id for t in b.load()] == ["fine"]
    problems = {p.task_id: p for p in b.problems}
    assert problems["linked-files"].field == "environment/files"
    assert "outside the task directory" in problems["linked-files"].message
    assert problems["inner-link"].field == "tests/key"
    with pytest.raises(DatasetError, match=r"'linked-files' is a malformed task.*symlink"):
        bench(root, sample_ids=["linked-files"]).load()


def test_a_dataset_of_only_malformed_tasks_is_an_error(tmp_path):
    make_task(tmp_path, "bad-1", toml='[environment]\nmemory = "lots"\n')
    make_task(tmp_path, "bad-2", test_sh=None)
    with pytest.raises(
        DatasetError,
        match=r"none of its 2 task directories is valid: .*bad-1.*\(and 1 more; --log-level DEBUG lists them all\)",
    ):
        bench(tmp_path).load()


def test_a_malformed_task_named_in_sample_ids_is_one_line(tmp_path):
    make_task(tmp_path, "ok")
    make_task(tmp_path, "multi", toml='version = "1.0"\n[agent]\ntimeout_sec = [\n1,\n')
    with pytest.raises(DatasetError) as info:
        bench(tmp_path, sample_ids=["multi"]).load()
    assert "\n" not in str(info.value) and "'multi' is a malformed task" in str(info.value)
