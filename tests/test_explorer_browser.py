"""The explorer's page in a real browser: headless Chromium driven by Selenium.

Opens the chair model, clicks A = T and reads C's bar (EXAMPLES.md §1: 0.8867), clicks
S = T and reads the new value (0.8000: given S=T, B's table no longer depends on C),
uploads the Monty Hall model and enters impossible evidence (the message shows, the bars
stay), and shows a model whose names are markup as plain text. Without Graphviz on the
server the page lays the network out itself (dagre): parents above children, no box over
another, an arrow per arc.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package; skipped
with the reason when they are absent, except under CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import os
import shutil

import pytest

import bbn
from bbn.apps.explorer import serve

#: what the explorer's page sets when an update is drawn (tests and the benchmark wait on it)
UPDATES = "return Number(document.body.dataset.updates || 0)"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--window-size=1280,800")


def _missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the browser test: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """Headless Chromium with a fresh profile."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed: pip install selenium")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (binary and driver):
        _missing("headless Chromium is absent: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.set_page_load_timeout(60)
    yield chrome
    chrome.quit()


def state(browser, variable: str, state: str):
    from selenium.webdriver.common.by import By

    return browser.find_element(
        By.CSS_SELECTOR, f'[data-variable="{variable}"][data-state="{state}"]')


def probability(browser, variable: str, name: str) -> str:
    from selenium.webdriver.common.by import By

    return state(browser, variable, name).find_element(By.CLASS_NAME, "prob").text


def wait_for_update(browser, before: int) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(lambda b: b.execute_script(UPDATES) > before)


def click(browser, variable: str, name: str) -> None:
    """Click a state and wait until the page has drawn the answer."""
    before = browser.execute_script(UPDATES)
    state(browser, variable, name).click()
    wait_for_update(browser, before)


def upload(browser, path) -> None:
    from selenium.webdriver.common.by import By

    before = browser.execute_script(UPDATES)
    browser.find_element(By.ID, "upload").send_keys(str(path))
    wait_for_update(browser, before)


def message(browser) -> str:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, "message").text


def test_clicks_update_every_bar_and_impossible_evidence_is_a_message(browser, models,
                                                                      tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with serve(bbn.load(models / "chair.bn"), port=0, block=False) as server:
        browser.get(server.url)
        wait_for_update(browser, 0)
        assert probability(browser, "C", "T") == "0.8000"           # the prior
        assert probability(browser, "B", "T") == "0.1768"           # P(B=T) = 0.17676
        click(browser, "A", "T")
        assert probability(browser, "C", "T") == "0.8867"           # 22840/25757
        assert probability(browser, "S", "T") == "0.0621"
        assert probability(browser, "A", "T") == "1.0000"
        click(browser, "S", "T")
        assert probability(browser, "C", "T") == "0.8000"
        assert probability(browser, "B", "T") == "0.9844"           # 0.63 / 0.64
        findings = browser.find_element(By.ID, "findings").text
        assert findings.splitlines() == ["A = T ×", "S = T ×"]
        assert browser.find_element(By.ID, "p-evidence").text == "0.0128000"
        assert "observed" in browser.find_element(
            By.CSS_SELECTOR, '[data-node="A"]').get_attribute("class")
        browser.save_screenshot(str(tmp_path / "explorer.png"))
        assert (tmp_path / "explorer.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        before = browser.execute_script(UPDATES)                     # again: cleared,
        state(browser, "A", "T").send_keys(Keys.ENTER)               # from the keyboard
        wait_for_update(browser, before)
        assert probability(browser, "A", "T") == "0.6400"           # P(A=T | S=T)
        assert browser.find_element(By.ID, "findings").text == "S = T ×"

        upload(browser, models / "monty_hall.bn")
        assert browser.find_element(By.ID, "model-name").text == "The prince and the king"
        click(browser, "King", "B")
        assert probability(browser, "Princess", "C") == "0.6667"     # EXAMPLES.md §2
        click(browser, "King", "A")                                  # the prince picked A
        assert message(browser) == str(bbn.ImpossibleEvidenceError({"King": "A"}))
        assert probability(browser, "Princess", "C") == "0.6667"     # the bars stay
        assert browser.find_element(By.ID, "findings").text == "King = B ×"
        click(browser, "King", "C")                                  # the message goes
        assert not browser.find_element(By.ID, "message").is_displayed()
        assert probability(browser, "Princess", "B") == "0.6667"


def test_the_query_box_and_a_bad_upload(browser, models, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with serve(bbn.load(models / "chair.bn"), port=0, block=False) as server:
        browser.get(server.url)
        wait_for_update(browser, 0)
        box = browser.find_element(By.ID, "query")
        box.send_keys("MAP(C, S | A=T)\n")
        answer = browser.find_element(By.ID, "answer")
        WebDriverWait(browser, 30).until(lambda b: answer.text)
        expected = bbn.apps.explorer.app.Explorer(bbn.load(models / "chair.bn")).query(
            "MAP(C, S | A=T)")["text"]
        assert answer.text == expected
        bad = tmp_path / "bad.bn"
        bad.write_text("variable C { T, F\n")
        browser.find_element(By.ID, "upload").send_keys(str(bad))
        WebDriverWait(browser, 30).until(lambda b: message(b))
        assert message(browser).startswith("bad.bn:2:1: expected ',' or '}'")
        assert browser.find_element(By.ID, "model-name").text == "Back ache"


def test_names_that_look_like_markup_are_shown_as_text(browser, tmp_path):
    from selenium.webdriver.common.by import By

    name, states = "<img src=x onerror=alert(1)>", ("<b>T</b>", "a&b")
    model = tmp_path / "markup.bn"
    model.write_text(f'network "<script>alert(2)</script>"\n'
                     f'variable "{name}" {{ "{states[0]}", "{states[1]}" }}\n'
                     f'P("{name}") = 0.25, 0.75\n')
    with serve(bbn.load(model), port=0, block=False) as server:
        browser.get(server.url)
        wait_for_update(browser, 0)
        assert browser.find_element(By.ID, "model-name").text == "<script>alert(2)</script>"
        assert probability(browser, name, states[0]) == "0.2500"
        label = state(browser, name, states[1]).find_element(By.CLASS_NAME, "label")
        assert label.get_attribute("textContent") == "a&b"
        assert browser.find_elements(By.CSS_SELECTOR, "img, b, script:not([src])") == []
        click(browser, name, states[1])
        assert probability(browser, name, states[1]) == "1.0000"


def test_per_state_weights_on_a_node(browser, models):
    """A likelihood entered on the page: W weighed T 0.8, F 0.4 with A = T gives
    P(C=T | A=T, λ) = 0.173584 / 0.185369 = 0.9364 (the virtual child's sum, see
    bbn explain --likelihood), and P(e, λ) = 0.185369."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with serve(bbn.load(models / "chair.bn"), port=0, block=False) as server:
        browser.get(server.url)
        wait_for_update(browser, 0)
        click(browser, "A", "T")
        Select(browser.find_element(By.ID, "weights-variable")).select_by_value("W")
        for name, weight in (("T", "0.8"), ("F", "0.4")):
            box = browser.find_element(By.CSS_SELECTOR,
                                       f'#weights-states input[data-state="{name}"]')
            box.clear()
            box.send_keys(weight)
        before = browser.execute_script(UPDATES)
        browser.find_element(By.CSS_SELECTOR, "#weights-form button").click()
        wait_for_update(browser, before)
        assert probability(browser, "C", "T") == "0.9364"
        assert browser.find_element(By.ID, "p-evidence").text == "0.185369"
        assert browser.find_element(By.ID, "findings").text.splitlines() == [
            "A = T ×", "W = T:0.8,F:0.4 ×"]
        assert not browser.find_element(By.ID, "message").is_displayed()
        click(browser, "W", "T")                                     # a hard finding again
        assert probability(browser, "C", "T") == "0.9986"


def test_without_dot_the_page_lays_the_network_out(browser, models, monkeypatch):
    from selenium.webdriver.common.by import By

    monkeypatch.setattr("bbn.apps.rendering.output.shutil.which", lambda name: None)
    for name in ("chair.bn", "clusters.bn", "oil.bn"):
        net = bbn.load(models / name)
        with serve(net, port=0, block=False) as server:
            browser.get(server.url)
            wait_for_update(browser, 0)
            boxes = browser.execute_script(
                "return Object.fromEntries(Object.entries(explorer.model.layout.nodes))")
            assert browser.execute_script("return explorer.model.layout.engine") == "page"
            assert set(boxes) == set(net.variables)
            for v in net.variables:                          # parents above their children
                for p in net.parents(v):
                    assert boxes[p]["y"] + boxes[p]["height"] < boxes[v]["y"], (p, v)
            names = list(boxes)
            for i, a in enumerate(names):                    # no box over another
                for b in names[i + 1:]:
                    A, B = boxes[a], boxes[b]
                    assert (A["x"] + A["width"] <= B["x"] or B["x"] + B["width"] <= A["x"]
                            or A["y"] + A["height"] <= B["y"]
                            or B["y"] + B["height"] <= A["y"]), (a, b)
            arcs = sum(len(net.parents(v)) for v in net.variables)
            assert len(browser.find_elements(By.CSS_SELECTOR, "path.arc")) == arcs
            assert len(browser.find_elements(By.CSS_SELECTOR, "polygon.arrow")) == arcs
            node = browser.find_element(By.CSS_SELECTOR, f'[data-node="{names[0]}"]')
            x, y = (float(n) for n in node.get_attribute("transform")[10:-1].split(","))
            assert (x, y) == (boxes[names[0]]["x"], boxes[names[0]]["y"])
            if name == "chair.bn":                           # and it answers as ever
                click(browser, "A", "T")
                assert probability(browser, "C", "T") == "0.8867"
