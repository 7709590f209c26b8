"""A headless Chromium for the HTML pages: open one offline, see every request it makes, screenshot it.

Driven through Selenium and the distribution's chromedriver (``.ci/system-deps`` installs both), so
the browser and its driver are one matched pair and nothing is downloaded at test time. The browser
runs with no route to any network (a dead proxy, every host name unresolvable), and Chrome's
performance log lists every request the page made: a page that reaches for the network is caught
even when the request fails.

``python -m eval.cli.browser REPORT.html OUT.png`` writes a screenshot (the README's comes from here).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["BrowserMissing", "find_browser", "network_requests", "open_page", "screenshot"]

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_OFFLINE_URLS = ("file:", "data:", "about:", "chrome:", "devtools:")


class BrowserMissing(RuntimeError):
    """No Chromium or chromedriver on PATH."""


def find_browser() -> tuple[str, str]:
    """(Chromium, chromedriver) paths, or :class:`BrowserMissing` naming what to install."""
    browser = next((p for p in map(shutil.which, _BROWSERS) if p), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        missing = [n for n, p in (("chromium", browser), ("chromium-driver", driver)) if p is None]
        raise BrowserMissing(f"not installed: {', '.join(missing)} (make test installs them: .ci/system-deps)")
    return browser, driver


@contextmanager
def open_page(page: Path, width: int = 1280, height: int = 1600) -> Iterator[Any]:
    """A Selenium driver with ``page`` loaded, offline, its performance log on."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = find_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--no-first-run",
        "--disable-background-networking",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(Path(page).resolve().as_uri())
        yield driver
    finally:
        driver.quit()


def network_requests(driver: Any) -> list[str]:
    """Every URL the page asked for that is not the file itself or inline data."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if not url.startswith(_OFFLINE_URLS):
                urls.append(url)
    return urls


def screenshot(page: Path, out: Path, width: int = 1280, height: int = 1600) -> Path:
    """The page as it first shows, ``width`` x ``height``, as PNG."""
    with open_page(page, width, height) as driver:
        out.parent.mkdir(parents=True, exist_ok=True)
        if not driver.save_screenshot(str(out)):
            raise RuntimeError(f"{out}: the browser wrote no screenshot")
    return out
