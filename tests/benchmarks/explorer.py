"""Workload 9: the explorer (``bbn serve``) — from a click on a state to updated bars.

A student adds findings one at a time: one sampled case restricted to 5 variables, entered
click by click (findings 1, 1–2, ..., 1–5). Per click, medians:

* bbn http: ``GET /api/posteriors?...`` on a keep-alive connection to ``bbn.serve`` in a
  thread of this process, reply read and parsed — everything but the browser (warm: the
  junction tree of each set of observed variables compiled by an earlier round);
* bbn http cold: the same on a fresh copy of the network (every tree compiled on the
  click, as the first time a student observes that set of variables);
* pyAgrum: a new ``LazyPropagation``, ``setEvidence``, ``makeInference`` and every
  posterior for the same findings — the engine alone, what a pyAgrum app would pay per
  click before any HTTP (no Python peer has such an app);
* browser: headless Chromium on the page, the time the page itself measures from the
  click event to the animation frame after every bar changed (``data-last-update-ms``):
  the request, the JSON, the DOM update and the layout; rounds of 5 clicks that add the
  findings and 5 that clear them (an n/a with the reason when Chromium is absent).

The issue's target: under 100 ms per click.
"""

from __future__ import annotations

import http.client
import json
import resource
import shutil
import statistics
import tempfile
from urllib.parse import urlencode, urlsplit

from .all_posteriors import pyagrum_all
from .harness import NA, Row, Section, Settings, Timing, attempt, measure_side_by_side
from .models import bbn_network, evidence_cases, pyagrum_network

TITLE = "explorer: a click to updated bars (5 findings added one by one)"
NETWORKS = ["alarm", "hailfinder", "pathfinder"]
CLICKS = 5
TARGET_MS = 100


class Client:
    """Keep-alive HTTP to one explorer, as the page's fetch uses it."""

    def __init__(self, url: str) -> None:
        address = urlsplit(url)
        self.connection = http.client.HTTPConnection(address.hostname, address.port,
                                                     timeout=60)

    def posteriors(self, findings: dict[str, str]) -> dict:
        self.connection.request("GET", "/api/posteriors?" + urlencode(findings))
        reply = self.connection.getresponse()
        body = reply.read()
        if reply.status != 200:
            raise RuntimeError(f"HTTP {reply.status}: {body[:200]!r}")
        return json.loads(body)

    def close(self) -> None:
        self.connection.close()


def clicks(evidence: dict[str, str]) -> list[dict[str, str]]:
    """The findings after each click: the first, the first two, ... all of them."""
    items = list(evidence.items())
    return [dict(items[:n]) for n in range(1, len(items) + 1)]


def run(settings: Settings, networks: list[str] | None = None) -> Section:
    section = Section("9", TITLE, ["bbn http", "bbn http cold", "pyAgrum", "browser"],
                      [("bbn http", "pyAgrum"), ("bbn http cold", "pyAgrum")])
    section.comment = (f"per click; bbn http: request to parsed JSON reply; pyAgrum: its "
                       f"engine alone (no app); browser: click event to painted bars in "
                       f"headless Chromium; target < {TARGET_MS} ms")
    browser, failed = attempt(chromium, "browser: ")
    for name in networks or NETWORKS:
        section.add(_row(settings, name, browser, failed))
    if browser is not None:
        browser.quit()
    return section


def _row(settings: Settings, name: str, browser, browser_failed: NA | None) -> Row:
    from bbn.apps.explorer import Explorer, serve

    row = Row("explorer", name)
    cases, failed = attempt(lambda: evidence_cases(name, CLICKS, 1))
    if failed:
        row.cells["bbn http"] = failed
        return row
    steps = clicks(cases[0][1])
    net = bbn_network(name)
    server = serve(net, port=0, block=False)
    client = Client(server.url)
    try:
        for findings in steps:  # once untimed: the warm cell's trees are compiled
            client.posteriors(findings)
        runs = {"bbn http": lambda: [client.posteriors(f) for f in steps],
                "bbn http cold": lambda _: [client.posteriors(f) for f in steps]}

        def fresh_network():  # untimed: the app now shows a copy with empty caches
            server.httpd.app = Explorer(net.copy())

        setups = {"bbn http cold": fresh_network}
        bn, failed = attempt(lambda: pyagrum_network(name), "pyAgrum: ")
        if failed:
            row.cells["pyAgrum"] = failed
        else:
            runs["pyAgrum"] = lambda: [pyagrum_all(bn, f) for f in steps]
        row.cells.update(measure_side_by_side(settings, runs, setups, per=len(steps)))
        server.httpd.app = Explorer(net)
        row.cells["browser"] = (browser_failed if browser is None
                                else attempt(lambda: browser_clicks(settings, browser,
                                                                    server.url, steps))[0]
                                or NA("browser failed"))
    finally:
        client.close()
        server.close()
    slowest = max((c.median for c in row.cells.values() if isinstance(c, Timing)
                   and c is not row.cells.get("pyAgrum")), default=None)
    if slowest is not None:
        row.notes.append(f"target < {TARGET_MS} ms: "
                         + ("met" if slowest * 1000 < TARGET_MS else "missed"))
    row.extra.update(evidence=cases[0][1])
    return row


# ----------------------------------------------------------------- browser
def chromium():
    """Headless Chromium driven by Selenium, a fresh profile (None with an NA when absent)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (binary and driver):
        raise RuntimeError("chromium or chromedriver is not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,800",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='bbn-bench-chromium-')}"):
        options.add_argument(flag)
    # run.py caps the address space at half the RAM; Chromium reserves far more address
    # space than it uses and dies under the cap (chromedriver exits with -5): lift it for
    # the browser's processes only.
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    try:
        return webdriver.Chrome(service=Service(driver), options=options)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


UPDATES = "return Number(document.body.dataset.updates || 0)"
LAST = "return Number(document.body.dataset.lastUpdateMs)"


def browser_clicks(settings: Settings, browser, url: str, steps: list[dict]) -> Timing:
    """In-page times of rounds of clicks that add the findings, then clear them."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(UPDATES) >= 1)
    order = [next(iter(f.items() - (steps[i - 1].items() if i else set())))
             for i, f in enumerate(steps)]
    order += order[::-1]  # the same states again: each click clears a finding
    times: list[float] = []
    spent = 0.0
    while len(times) < settings.min_reps * len(order) or spent < settings.budget:
        for variable, state in order:
            before = browser.execute_script(UPDATES)
            element = browser.find_element(
                By.CSS_SELECTOR, f'[data-variable="{variable}"][data-state="{state}"]')
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            WebDriverWait(browser, 60).until(lambda b, n=before: b.execute_script(UPDATES) > n)
            times.append(browser.execute_script(LAST) / 1000)
            spent += times[-1]
        if spent > 5 * settings.budget or len(times) >= settings.max_reps:
            break
    return Timing(statistics.median(times), len(times), min(times), max(times),
                  note="in-page: click event to painted bars")
