"""Where the terminus2 harness reads Harbor's Terminus-2 files from (its prompts and its reply parser).

agentcompass ships none of Harbor's text. At run time the harness reads these files of Harbor's
``harbor/agents/terminus_2/`` package directory, from the first place that has them:

1. ``harness_params.templates_dir``: a copy of that directory (or of its ``templates/`` folder next to the
   ``.py`` files, a site-packages directory holding ``harbor/``, or Harbor's wheel file);
2. the installed ``harbor`` distribution (``pip install harbor==0.26.0``, Python 3.12+), read as files, never
   imported (importing Harbor needs its whole dependency tree);
3. Harbor's published wheel in ``<data_dir>/harbor/`` (read as a zip, never installed); with
   ``--auto-install-dependencies`` it is fetched there first with ``pip download harbor==0.26.0 --no-deps``.

Otherwise a :class:`DependencyError` names the three options. The SHA-256 of every file is recorded, and compared
with Harbor 0.26.0's (the version this harness reproduces), so two runs can be compared.
"""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
import threading
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agentcompass.errors import ConfigError, DependencyError

HARBOR_VERSION = "0.26.0"
PACKAGE_DIR = "harbor/agents/terminus_2"
WHEEL_NAME = f"harbor-{HARBOR_VERSION}-py3-none-any.whl"
PIP_TIMEOUT_S = 600.0
# The files read, and their SHA-256 in Harbor 0.26.0's wheel (facts about that release, used to tell whether
# a copy is unchanged).
FILES: dict[str, str] = {
    "templates/terminus-json-plain.txt": "89a3dc3a15752b748a99fb907c9251ab31a464e13386583fb48476b078b54a34",
    "templates/timeout.txt": "32bf9aa7b157a6a0e0ba0d33b81e59dd67204276f158afc1fe6cb684ced68872",
    "terminus_2.py": "34ab46005280c50dd63fc075a3fdbb224421d88751bff6f514d23f5e4b2eaf35",
    "terminus_json_plain_parser.py": "ba7eeaeb28e2f72ecdc5850617c77cc571692c68698306637cc2cfed41130688",
    "tmux_session.py": "d5937cf4330ccf49bdb8709fe341609fe986d30b25826a1145f31de23cf11599",
}
log = logging.getLogger("agentcompass.harnesses.terminus2")
_lock = threading.Lock()  # one download at a time (requests may be built in threads)


@dataclass(frozen=True)
class HarborSource:
    """Harbor's Terminus-2 files as text, and where they came from."""

    kind: str  # directory | installed | wheel
    origin: str  # the path read
    version: str | None  # Harbor's version when known (installed / wheel / unchanged copy)
    files: dict[str, str] = field(repr=False)

    def text(self, name: str) -> str:
        return self.files[name]

    @property
    def sha256(self) -> dict[str, str]:
        return {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in self.files.items()}

    @property
    def matches_reference(self) -> bool:
        """True when every file is byte-identical to Harbor 0.26.0's."""
        return self.sha256 == FILES

    def describe(self) -> dict[str, object]:
        """What a run records about the prompts and parser it used."""
        return {
            "source": self.kind,
            "origin": self.origin,
            "harbor_version": self.version,
            "matches_harbor": HARBOR_VERSION if self.matches_reference else None,
            "sha256": self.sha256,
        }


def _read_dir(root: Path, what: str) -> dict[str, str]:
    missing = [name for name in FILES if not (root / name).is_file()]
    if missing:
        raise ConfigError(
            f"{what}: {', '.join(missing)} not found under {root}; expected a copy of Harbor "
            f"{HARBOR_VERSION}'s {PACKAGE_DIR}/ directory ({', '.join(FILES)}) or Harbor's wheel"
        )
    return {name: (root / name).read_text(encoding="utf-8") for name in FILES}


def _read_wheel(path: Path, what: str) -> dict[str, str]:
    try:
        with zipfile.ZipFile(path) as wheel:
            names = set(wheel.namelist())
            missing = [n for n in FILES if f"{PACKAGE_DIR}/{n}" not in names]
            if missing:
                raise ConfigError(
                    f"{what}: the wheel {path} has no {PACKAGE_DIR}/{missing[0]}; expected "
                    f"Harbor's wheel ({WHEEL_NAME})"
                )
            return {n: wheel.read(f"{PACKAGE_DIR}/{n}").decode("utf-8") for n in FILES}
    except (OSError, zipfile.BadZipFile) as exc:
        raise ConfigError(f"{what}: cannot read the wheel {path}: {exc}") from None


def _package_root(path: Path) -> Path:
    """The terminus_2 package directory for any of the accepted forms of ``templates_dir``."""
    for candidate in (path, path.parent, path / PACKAGE_DIR):
        if (candidate / "terminus_2.py").is_file() or (candidate / "templates").is_dir():
            return candidate
    return path


def from_templates_dir(value: str) -> HarborSource:
    """``harness_params.templates_dir``: a directory (see the module docstring) or Harbor's wheel file."""
    what = f"harness_params.templates_dir={value!r}"
    path = Path(value).expanduser()
    if not path.exists():
        raise ConfigError(f"{what}: no such file or directory")
    if path.is_file():
        files = _read_wheel(path, what)
        kind = "wheel"
    else:
        path = _package_root(path)
        files = _read_dir(path, what)
        kind = "directory"
    digests = {n: hashlib.sha256(t.encode("utf-8")).hexdigest() for n, t in files.items()}
    return HarborSource(kind, str(path), HARBOR_VERSION if digests == FILES else None, files)


def from_installed() -> HarborSource | None:
    """The installed ``harbor`` distribution's files, or None when Harbor is not installed."""
    from importlib import metadata

    try:
        dist = metadata.distribution("harbor")
    except metadata.PackageNotFoundError:
        return None
    root = Path(str(dist.locate_file(PACKAGE_DIR)))
    files = _read_dir(root, f"the installed harbor {dist.version}")
    if dist.version != HARBOR_VERSION:
        log.warning(
            "terminus2: the installed harbor is %s; this harness reproduces Harbor %s (its prompts and "
            "parser are read from the installed copy)",
            dist.version,
            HARBOR_VERSION,
        )
    return HarborSource("installed", str(root), dist.version, files)


def wheel_path(data_dir: Path) -> Path:
    return Path(data_dir).expanduser() / "harbor" / WHEEL_NAME


def download_wheel(data_dir: Path) -> Path:
    """``pip download harbor==0.26.0 --no-deps`` into ``<data_dir>/harbor/`` (nothing is installed)."""
    dest = wheel_path(data_dir).parent
    dest.mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "pip",
        "download",
        f"harbor=={HARBOR_VERSION}",
        "--no-deps",
        "--only-binary=:all:",
        "--python-version",
        "3.12",
        "--disable-pip-version-check",
        "-q",
        "-d",
        str(dest),
    ]
    log.warning("terminus2: downloading Harbor %s's wheel (its Terminus-2 prompts) into %s", HARBOR_VERSION, dest)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DependencyError(f"terminus2: pip download harbor=={HARBOR_VERSION} failed: {exc}") from None
    if proc.returncode != 0 or not wheel_path(data_dir).is_file():
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise DependencyError(
            f"terminus2: pip download harbor=={HARBOR_VERSION} into {dest} failed (exit {proc.returncode}): {tail}"
        )
    return wheel_path(data_dir)


def missing_message(data_dir: Path | None) -> str:
    where = str(wheel_path(data_dir)) if data_dir else f"<data_dir>/harbor/{WHEEL_NAME}"
    return (
        f"terminus2 reads its prompts and reply parser from Harbor {HARBOR_VERSION}'s Terminus-2 files, which "
        f"were not found: pass --auto-install-dependencies (SDK: auto_install_dependencies=True) to download "
        f"Harbor's wheel into {where} (read, not installed), or pip install harbor=={HARBOR_VERSION} "
        f"(Python 3.12+), or set harness_params.templates_dir to a copy of {PACKAGE_DIR}/ or to the wheel"
    )


@lru_cache(maxsize=8)
def _cached(templates_dir: str | None, data_dir: str | None, auto_install: bool) -> HarborSource:
    if templates_dir:
        return from_templates_dir(templates_dir)
    installed = from_installed()
    if installed is not None:
        return installed
    data = Path(data_dir) if data_dir else None
    if data is not None and wheel_path(data).is_file():
        return HarborSource(
            "wheel", str(wheel_path(data)), HARBOR_VERSION, _read_wheel(wheel_path(data), "the cached Harbor wheel")
        )
    if data is not None and auto_install:
        path = download_wheel(data)
        return HarborSource("wheel", str(path), HARBOR_VERSION, _read_wheel(path, "the downloaded Harbor wheel"))
    raise DependencyError(missing_message(data))


def load_source(templates_dir: str | None, data_dir: Path | None, auto_install: bool) -> HarborSource:
    """Harbor's Terminus-2 files from the first place that has them (see the module docstring)."""
    with _lock:
        return _cached(templates_dir, str(data_dir) if data_dir else None, bool(auto_install))
