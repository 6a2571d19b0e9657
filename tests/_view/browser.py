"""Headless Chromium (Debian's chromium + chromium-driver) driven by Selenium, for the viewer's browser tests.

Without Chromium, ChromeDriver or Selenium the tests skip, and FAIL under ``CI=true`` (scripts/test.sh installs
them). Chromium starts with a fresh profile and without background networking (this machine has no internet).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER = ("/usr/bin/chromedriver",)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


def _first(paths: tuple[str, ...], name: str) -> str | None:
    return next((p for p in paths if Path(p).is_file()), None) or shutil.which(name)


def missing() -> str | None:
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install 'agentcompass[test]')"
    if not _first(CHROMIUM, "chromium"):
        return "chromium is not installed (apt-get install chromium chromium-driver)"
    if not _first(DRIVER, "chromedriver"):
        return "chromedriver is not installed (apt-get install chromium-driver)"
    return None


def require() -> None:
    reason = missing()
    if reason:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests need Chromium: {reason}")
        pytest.skip(reason)


def start() -> Any:
    """A new headless Chromium session with its own empty profile."""
    require()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = _first(CHROMIUM, "chromium")
    for flag in FLAGS:
        opts.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="ac-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(_first(DRIVER, "chromedriver")), options=opts)
    driver.ac_profile = profile
    return driver


def stop(driver: Any) -> None:
    try:
        driver.quit()
    finally:
        shutil.rmtree(driver.ac_profile, ignore_errors=True)


def wait(driver: Any, cond: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    """Poll ``cond`` until it returns a truthy value; a page error in the console fails at once."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = cond()
            if value:
                return value
        except Exception as exc:
            last = exc
        time.sleep(0.05)
    errors = [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    raise AssertionError(f"timed out waiting for {what}; last error: {last}; console: {errors}")


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def shoot(driver: Any, folder: Path, name: str, max_height: int = 6000) -> Path:
    """A full-page screenshot (kept as a CI artifact under the test's tmp dir)."""
    import base64

    folder.mkdir(parents=True, exist_ok=True)
    driver.execute_script("const t = document.getElementById('top'); if (t) t.style.position = 'static'")
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height), "scale": 1}
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    driver.execute_script("const t = document.getElementById('top'); if (t) t.style.position = ''")
    path = folder / f"{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    return path
