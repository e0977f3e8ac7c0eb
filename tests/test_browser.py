"""The teaching app driven in the system's headless Chromium (Selenium with chromedriver).

Cast from a date, check the board's header and 課體, click the initial, ask a why-not, switch
the language and a reading, measure a derivation's text, answer the trainer wrongly; assert
what the page shows, and take screenshots at desktop and phone widths (kept where
``LIUREN_SCREENSHOTS`` names a folder, as the README's pictures are made).
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

WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}
SEED = "?at=1998-11-30+12:00&tz=Asia/Shanghai"  # the first seed chart
# the smallest text of a derivation's boxes as drawn, in CSS px: font size times the picture's scale
SMALLEST_NODE_TEXT = """
var svg = document.querySelector('.lr-panel .lr-figure svg');
var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
var sizes = Array.from(svg.querySelectorAll('g > text')).map(function(t){
  return parseFloat(getComputedStyle(t).fontSize) * scale; });
return [sizes.length, Math.min.apply(null, sizes)];
"""


@pytest.fixture(scope="module")
def app():
    from liuren_logic.faces.serve import make_server, url_of

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


# the smallest text presented, in CSS px: each element with text of its own, a picture's scaled
PRESENTED_TEXT = """
var shown = Array.from(document.querySelectorAll('.lr-present *')).filter(function(e){
  return e.getClientRects().length && Array.from(e.childNodes).some(function(n){
    return n.nodeType === 3 && n.textContent.trim(); }); });
var sizes = shown.map(function(e){
  var svg = e.closest('svg'), k = svg ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
  return parseFloat(getComputedStyle(e).fontSize) * k; });
return [sizes.length, Math.min.apply(null, sizes)];
"""


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
    browser.execute_script("document.querySelector('input[name=at]').value = '1998-11-30T12:00:00';"
                           "document.querySelector('input[name=tz]').value = 'Asia/Shanghai'")
    browser.find_element(By.ID, "lr-cast").click()
    head = wait_for(browser, "#lr-board .lr-head", "三傳午寅戌")
    assert "辛巳" in head.text
    board = browser.find_element(By.ID, "lr-board")
    header = board.find_element(By.CSS_SELECTOR, ".lr-header").text
    for field in ("辛巳日 寅將 午時", "晝", "貴人 午 逆行", "旬空 申酉", "四柱 戊寅 癸亥 辛巳 甲午", "節 立冬", "中氣 小雪",
                  "旺相: 水旺", "日祿 酉臨丑"):
        assert field in header, field
    keti = board.find_element(By.CSS_SELECTOR, ".lr-keti").text.split("\n")[-1]
    assert keti.startswith("賊剋 元首 · 全局 · 天網 · 炎上 · ") and keti.endswith("⚠ 天將順逆（晝順夜逆） +魄化")  # and its dispute
    assert "貴雖在獄宜臨干" in board.find_element(By.CSS_SELECTOR, ".lr-bifa").text
    assert "貴人入獄" in board.text and "天目" in board.find_element(By.CSS_SELECTOR, ".lr-spirits").text
    assert "歲墓" in board.find_element(By.CSS_SELECTOR, ".lr-all").get_attribute("textContent")  # 支陰: folded
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
    alert = wait_for(browser, ".lr-error", "無甲丑此干支")  # the Chinese page says it in Chinese
    assert alert.text.startswith("〔日干支〕")
    browser.get(app + "?day=甲丑&offset=3&lang=en")
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


def test_the_other_language_keeps_the_chart_and_what_the_panel_shows(app, browser):
    from selenium.webdriver.common.by import By

    browser.get(app + SEED)
    wait_for(browser, "#lr-board .lr-head", "三傳午寅戌")
    chart = browser.find_element(By.ID, "lr-board").get_attribute("data-chart")
    browser.find_element(By.CSS_SELECTOR, '#lr-board button[data-key="initial"]').click()
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    assert "show=why" in browser.current_url
    browser.find_element(By.ID, "lr-lang").click()
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    assert browser.find_element(By.ID, "lr-board").get_attribute("data-chart") == chart
    assert "kin" in browser.find_element(By.CSS_SELECTOR, ".lr-transmissions").text  # in English
    assert browser.find_element(By.CSS_SELECTOR, "#lr-board button.lr-on").get_attribute("data-key") == "initial"
    browser.find_element(By.ID, "lr-lang").click()  # and back, the same again
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-Hant"
    assert browser.find_element(By.ID, "lr-board").get_attribute("data-chart") == chart


def test_now_in_asia_shanghai_is_the_default_moment_and_the_browsers_zone_is_offered(app, browser):
    from selenium.webdriver.common.by import By

    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    browser.get(app)
    wait_for(browser, "select[data-topic]")
    at, tz, zone, offered = browser.execute_script(
        "var f = document.querySelector('form').elements, b = document.getElementById('lr-browser-zone');"
        "return [f.at.value, f.tz.value, Intl.DateTimeFormat().resolvedOptions().timeZone, b.hidden ? '' : b.textContent];")
    shanghai = datetime.now(ZoneInfo("Asia/Shanghai")).replace(tzinfo=None)
    assert tz == "Asia/Shanghai" and abs(datetime.fromisoformat(at) - shanghai) < timedelta(minutes=1)
    assert offered.endswith(zone) if zone != "Asia/Shanghai" else offered == ""  # the browser's zone, to choose
    assert browser.find_element(By.ID, "lr-lang").get_attribute("href").endswith("?lang=en")


def test_now_casts_the_present_moment(app, browser):
    """「此刻」 casts the present in the chosen zone: today's day pillar (as the command line casts it)."""
    from selenium.webdriver.common.by import By

    from liuren_logic import Session

    browser.get(app)
    wait_for(browser, "select[data-topic]")
    browser.find_element(By.ID, "lr-now").click()
    head = wait_for(browser, "#lr-board .lr-head", "三傳")
    at = browser.execute_script("return document.querySelector('form').elements.at.value")
    chart = Session().cast_at(at.replace("T", " "), "Asia/Shanghai")
    assert head.text.startswith(f"{chart.day}日 {chart.jiang}將 {chart.hour}時")


def test_present_puts_the_derivation_on_the_screen_with_no_text_under_18px(app, browser, tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1366, 768)
    try:
        browser.get(app + SEED + "&show=why:initial")
        wait_for(browser, '.lr-panel[data-showing="initial"] svg')
        browser.find_element(By.CSS_SELECTOR, ".lr-panel button[data-present]").click()
        wait_for(browser, ".lr-present")
        box = browser.execute_script("var r = document.querySelector('.lr-present').getBoundingClientRect();"
                                     "return [r.left, r.top, r.width, document.documentElement.clientWidth];")
        assert box[:2] == [0, 0] and box[2] == box[3]  # the whole screen
        count, smallest = browser.execute_script(PRESENTED_TEXT)
        assert count > 50 and smallest >= 18
        assert screenshot(browser, "present", tmp_path).stat().st_size > 10_000
        browser.find_element(By.CSS_SELECTOR, ".lr-present button[data-present]").click()
        assert not browser.find_elements(By.CSS_SELECTOR, ".lr-present")
    finally:
        browser.set_window_size(*WIDTHS["desktop"])


@pytest.mark.parametrize("where", ["app", "page"])
def test_present_step_by_step_shows_each_step_of_the_lesson_alone_with_no_text_under_18px(app, browser, tmp_path, where):
    """「逐步放映」 (the app's whole lesson, the page's lesson): one step on the whole screen, → and ←
    move, Esc ends; every step reached in turn."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from liuren_logic.faces.cli import main

    browser.set_window_size(1366, 768)
    try:
        if where == "app":
            browser.get(app + SEED + "&show=why:initial")
            wait_for(browser, '.lr-panel[data-showing="initial"] svg')
            browser.find_element(By.CSS_SELECTOR, ".lr-panel details.lr-whole summary").click()
        else:
            page = tmp_path / "chart.html"
            assert main(["page", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--output", str(page)]) == 0
            browser.get(page.as_uri())
        button = [b for b in browser.find_elements(By.CSS_SELECTOR, "button[data-steps]") if b.is_displayed()][0]
        total = len(button.find_elements(By.XPATH, "following-sibling::ol/li"))
        button.click()
        stage = wait_for(browser, ".lr-stepper")
        titles = []
        for n in range(1, total + 1):
            assert stage.find_element(By.CSS_SELECTOR, ".lr-which").text == f"辛巳日 寅將 午時 · 第{n}步，共{total}步"
            assert len(stage.find_elements(By.CSS_SELECTOR, "ol.lr-steps > li")) == 1
            titles.append(stage.find_element(By.CSS_SELECTOR, "ol.lr-steps > li b").text)
            count, smallest = browser.execute_script(PRESENTED_TEXT)
            assert smallest >= 18, (n, smallest)
            browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        assert total > 8 and len(set(titles)) == total  # each step once, in turn
        if where == "app":
            screenshot(browser, "present_step", tmp_path)
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        assert not browser.find_elements(By.CSS_SELECTOR, ".lr-stepper")
    finally:
        browser.set_window_size(*WIDTHS["desktop"])


def test_the_handout_prints_every_step_of_the_lesson_and_a_graph_of_9pt(app, browser, tmp_path):
    import base64
    import subprocess

    browser.get(app + SEED + "&show=why:initial")
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        smallest = browser.execute_script(
            "var svg = document.querySelector('.lr-panel svg'), k = svg.getBoundingClientRect().width"
            " / svg.viewBox.baseVal.width; return Math.min.apply(null, Array.from(svg.querySelectorAll('text'))"
            ".map(function(t){ return parseFloat(getComputedStyle(t).fontSize) * k * 0.75; }));")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert smallest >= 9  # pt
    browser.execute_script("window.dispatchEvent(new Event('beforeprint'))")
    pdf = tmp_path / "handout.pdf"
    pdf.write_bytes(base64.b64decode(browser.print_page()))
    browser.execute_script("window.dispatchEvent(new Event('afterprint'))")
    if not shutil.which("pdftotext"):
        pytest.skip("needs pdftotext (apt-get install poppler-utils)")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    from liuren_logic import Session
    from liuren_logic.explain.lesson import lesson_steps

    steps = lesson_steps(Session().cast_at("1998-11-30 12:00", "Asia/Shanghai"))
    assert all(f"{i}. {s.title}" in text for i, s in enumerate(steps, 1)), text[:400]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_derivation_is_readable(app, browser, tmp_path, width):
    from selenium.webdriver.common.by import By

    browser.set_window_size(*WIDTHS[width])
    browser.get(app + SEED + "&show=why:initial")
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    count, smallest = browser.execute_script(SMALLEST_NODE_TEXT)
    assert count > 5 and smallest >= 12, f"node text {smallest:.1f}px at {width}"
    steps = browser.find_element(By.CSS_SELECTOR, ".lr-panel .lr-which").text
    assert "第5、6、8步" in steps  # numbered as in the lesson, and how many there are
    overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"the page is {overflow}px wider than a {width} window"
    browser.execute_script("document.querySelector('.lr-panel').scrollIntoView()")
    screenshot(browser, f"derivation_{width}", tmp_path)
    browser.find_element(By.CSS_SELECTOR, '.lr-panel button[data-zoom="fit"]').click()  # the whole picture
    fitted = browser.execute_script("var s = document.querySelector('.lr-panel svg');"
                                    "return s.getBoundingClientRect().width - s.parentElement.clientWidth")
    assert abs(fitted) <= 2
    browser.set_window_size(*WIDTHS["desktop"])


def test_a_wrong_answer_in_the_trainer_gets_its_why_not(app, browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(app + SEED)
    wait_for(browser, '#lr-quiz-method option[value="涉害"]')
    Select(browser.find_element(By.ID, "lr-quiz-method")).select_by_value("涉害")
    browser.find_element(By.ID, "lr-quiz").click()
    wait_for(browser, '.lr-panel[data-showing="quiz"] .lr-question button[data-choice="賊剋"]').click()
    verdict = wait_for(browser, ".lr-panel .lr-verdict.lr-wrong")
    assert "不對，是涉害。" in verdict.text and "你選賊剋：" in verdict.text and "講解第" in verdict.text
    assert browser.find_element(By.CSS_SELECTOR, ".lr-panel .lr-score").text == "得分：0／1"
    assert "lr-lessons" in browser.find_element(By.CSS_SELECTOR, ".lr-panel").get_attribute("innerHTML")
    wait_for(browser, ".lr-panel .lr-question", "初傳為何")
    screenshot(browser, "quiz", tmp_path)


def test_an_error_names_the_form_field(app, browser):
    from selenium.webdriver.common.by import By

    browser.get(app + "?day=辛巳&jiang=寅")
    alert = wait_for(browser, ".lr-error", "〔占時〕")
    assert "未填" in alert.text and "--hour" not in alert.text
    assert "lr-bad" in browser.find_element(By.CSS_SELECTOR, "select[name=hour]").get_attribute("class")


def test_the_print_view_is_the_board_and_the_panel_without_the_controls(app, browser, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get(app + SEED + "&show=why:initial")
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        hidden = [browser.find_element(By.CSS_SELECTOR, css).is_displayed()
                  for css in ("form", ".lr-whynot", ".lr-trainer", "#lr-print", ".lr-zoom")]
        shown = [browser.find_element(By.CSS_SELECTOR, css).is_displayed()
                 for css in (".lr-plates", ".lr-lessons", ".lr-transmissions", ".lr-panel svg", ".lr-steps")]
        assert not any(hidden) and all(shown)
        fits = browser.execute_script("var s = document.querySelector('.lr-panel svg');"
                                      "return s.getBoundingClientRect().right <= document.documentElement.clientWidth + 1")
        assert fits  # the picture drawn whole on the page, not cut at the figure's edge
        screenshot(browser, "print", tmp_path)
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def test_a_matter_chosen_ends_the_board_with_its_judgement_and_answers_why(app, browser):
    from urllib.parse import urlencode

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    asked = {"at": "1998-11-30 12:00", "tz": "Asia/Shanghai", "matter": "家宅", "asked": "弟犯邪", "lang": "zh"}
    browser.get(app + "?" + urlencode(asked))
    section = wait_for(browser, "#lr-board .lr-judgement", "凶：所問不成")
    assert "占 家宅 · 問 弟犯邪" in section.text and "用神 午" in section.text and "應期" in section.text
    sections = [s.get_attribute("class") for s in browser.find_elements(By.CSS_SELECTOR, "#lr-board .lr-board > section")]
    assert sections[-1] == "lr-sec lr-judgement"
    matter = Select(browser.find_element(By.CSS_SELECTOR, "select[name=matter]"))
    assert matter.first_selected_option.get_attribute("value") == "家宅" and len(matter.options) == 13
    section.find_element(By.CSS_SELECTOR, 'button[data-q="斷"][data-value="凶"]').click()
    panel = wait_for(browser, '.lr-panel[data-showing="斷:凶"]')
    assert "格凶定當以凶斷：主不成（勝）" in panel.text  # the deciding rule, as `why 斷 凶` names it (test_judgement)
    assert "no such fact" not in panel.text and "no rule" not in panel.text  # a Chinese panel says its reasons in Chinese

    matter.select_by_value("")  # no matter: the board the chart had
    browser.execute_script("document.querySelector('input[name=asked]').value = ''")
    browser.find_element(By.ID, "lr-cast").click()
    WebDriverWait(browser, 60).until(EC.staleness_of(section))  # the board was drawn again
    wait_for(browser, "#lr-board .lr-head", "三傳午寅戌")
    assert not browser.find_elements(By.CSS_SELECTOR, "#lr-board .lr-judgement")


def test_the_chinese_page_with_a_derivation_open_shows_no_internal_id(app, browser):
    """Every text of the page, the derivation's picture and its hover titles included, is names
    (issue 38); the developers' toggle (``ids=1``) shows the rule ids and relations beside them."""
    import re

    found = re.compile(r"(?:^|[^-A-Za-z0-9_])([a-z][a-z_0-9]{2,}(?:\.[a-z_0-9]+)*)", re.M)
    text = ("return document.querySelector('.lr-app').innerText + '\\n' + Array.from(document.querySelectorAll("
            "'.lr-panel svg text, .lr-panel svg title')).map(function(t){ return t.textContent; }).join('\\n')")
    shown = {}
    for ids in ("", "&ids=1"):
        browser.get(app + SEED + "&show=why:initial" + ids)
        wait_for(browser, '.lr-panel[data-showing="initial"] svg')
        shown[ids] = found.findall(browser.execute_script(text))
    assert shown[""] == []
    assert {"zeike.yuanshou", "chosen"} <= set(shown["&ids=1"])


def test_a_click_on_a_page_brings_its_derivation_into_view(browser, tmp_path):
    """``liuren page``: the derivation opens below the board; the click scrolls it into view."""
    from selenium.webdriver.common.by import By

    from liuren_logic.faces.cli import main

    page = tmp_path / "chart.html"
    assert main(["page", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--output", str(page)]) == 0
    browser.get(page.as_uri())
    browser.find_element(By.CSS_SELECTOR, 'button[data-key="initial"]').click()
    wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    top, height = browser.execute_script("return [document.querySelector('.lr-panel').getBoundingClientRect().top,"
                                         " window.innerHeight]")
    assert -1 <= top < height / 2


def test_the_page_in_simplified_characters_keeps_the_chart(app, browser):
    from selenium.webdriver.common.by import By

    browser.get(app + SEED)
    wait_for(browser, "#lr-board .lr-head", "三傳午寅戌")
    browser.find_element(By.ID, "lr-script").click()  # 简体
    wait_for(browser, "#lr-board .lr-head", "三传午寅戌")
    browser.find_element(By.CSS_SELECTOR, '#lr-board button[data-key="initial"]').click()
    panel = wait_for(browser, '.lr-panel[data-showing="initial"] svg')
    text = browser.find_element(By.CSS_SELECTOR, ".lr-app").text
    assert "门派：通行" in text.replace("\n", "") and "何以初传午" in text and "傳" not in text
    assert panel.is_displayed() and browser.find_element(By.ID, "lr-script").text == "繁體"
