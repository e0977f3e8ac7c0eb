"""The teaching app driven in the system's headless Chromium (Selenium with chromedriver).

Cast from a date, click the initial, ask a why-not, switch a reading; assert what the page
shows, and take screenshots at desktop and phone widths (kept where ``LIUREN_SCREENSHOTS``
names a folder, as the README's pictures are made).
"""
from __future__ import annotations

import os
import shutil
import struct
import threading
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Chromium and chromedriver (apt-get install chromium chromium-driver)")

WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def app():
    from liuren_logic.serve import make_server, url_of

    server = make_server("127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield url_of(server)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    driver.set_window_size(*WIDTHS["desktop"])
    yield driver
    driver.quit()


def wait_for(driver, css: str, text: str = "", timeout: float = 60):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    located = (By.CSS_SELECTOR, css)
    condition = EC.text_to_be_present_in_element(located, text) if text else EC.presence_of_element_located(located)
    WebDriverWait(driver, timeout).until(condition)
    return driver.find_element(*located)


def screenshot(driver, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("LIUREN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"serve_{name}.png"
    driver.save_screenshot(str(path))
    return path


def png_width(path: Path) -> int:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">I", header[16:20])[0]


def test_cast_from_a_date_click_the_initial_and_ask_why_not(app, browser, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get(app)
    wait_for(browser, "select[data-topic]")  # the readings arrived: the script runs
    browser.execute_script("document.querySelector('input[name=at]').value = '1998-11-30T12:00:00'")
    browser.find_element(By.ID, "lr-cast").click()
    head = wait_for(browser, "#lr-board .lr-head", "三傳午寅戌")
    assert "辛巳" in head.text
    board = browser.find_element(By.ID, "lr-board")
    assert "貴人入獄" in board.text and "天目" in board.get_attribute("textContent")  # spirits folded
    assert screenshot(browser, "board", tmp_path).stat().st_size > 10_000

    browser.find_element(By.CSS_SELECTOR, '#lr-board button[data-key="initial"]').click()
    panel = wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    assert "午" in browser.find_element(By.CSS_SELECTOR, ".lr-panel").text
    assert screenshot(browser, "derivation", tmp_path).stat().st_size > 10_000
    assert panel.is_displayed()

    browser.find_element(By.ID, "lr-whynot-value").send_keys("丑")
    browser.find_element(By.ID, "lr-whynot").click()
    wait_for(browser, '.lr-panel[data-showing="whynot"]')
    short = [p.text for p in browser.find_elements(By.CSS_SELECTOR, ".lr-panel .lr-short")]
    assert len(short) <= 3 and "賊剋" in short[0] and "丑" in short[1]


def test_switching_a_reading_shows_what_changes(app, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from liuren_logic import Session

    browser.get(app + "?day=庚午&offset=0&lang=zh")
    wait_for(browser, "#lr-board .lr-head", "庚午")
    browser.find_element(By.CSS_SELECTOR, "details summary").click()
    Select(browser.find_element(By.CSS_SELECTOR, 'select[data-topic="punishment"]')).select_by_value("seed000")
    table = wait_for(browser, ".lr-panel .lr-changes")
    before = Session().cast_offset("庚午", 0).sanchuan
    after = Session(readings={"punishment": "seed000"}).cast_offset("庚午", 0).sanchuan
    assert before in table.text and after in table.text
    assert len(browser.find_elements(By.CSS_SELECTOR, ".lr-panel .lr-side svg")) == 2

    browser.find_element(By.ID, "lr-use").click()
    wait_for(browser, "#lr-board .lr-head", "三傳" + after)


def test_bad_input_shows_the_one_line_error(app, browser):
    browser.get(app + "?day=甲丑&offset=3")
    alert = wait_for(browser, ".lr-error", "impossible pillar")
    assert "甲丑" in alert.text


@pytest.mark.parametrize("width", WIDTHS)
def test_the_board_fits_desktop_and_phone_widths(app, browser, tmp_path, width):
    browser.set_window_size(*WIDTHS[width])
    browser.get(app + "?day=辛巳&jiang=寅&hour=午&lang=en")
    wait_for(browser, "#lr-board .lr-head", "辛巳")
    overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than a {width} window"
    path = screenshot(browser, f"board_{width}", tmp_path)
    assert png_width(path) >= WIDTHS[width][0] // 2
    browser.set_window_size(*WIDTHS["desktop"])
