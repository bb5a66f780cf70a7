"""The dashboard in a real browser: headless Chromium driven by Selenium against `mockapns
serve`, with pushes sent by curl. Each test saves a screenshot of its view under
Tests/Interop/artifacts/dashboard/ (gitignored), and any JavaScript console error fails it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import CA, CERTS, REPO, TOPIC, Server, provider_token, run, unique_token

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ARTIFACTS = Path(os.environ.get("MOCKAPNS_ARTIFACTS", REPO / "Tests/Interop/artifacts")) / "dashboard"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def dashboard_server(tmp_path_factory):
    """A server of its own, so the page shows only this module's traffic."""
    instance = Server(tmp_path_factory.mktemp("dashboard")).start()
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def driver():
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip("chromium and chromium-driver are not installed (scripts/install-deps.sh --test installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield browser
    browser.quit()


@pytest.fixture
def page(driver, dashboard_server):
    """The dashboard loaded and subscribed; afterwards the console must hold no error."""
    driver.get(f"http://127.0.0.1:{dashboard_server.ports['control']}/")
    WebDriverWait(driver, 10).until(lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"))
    yield driver
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and not expected(entry)]
    assert not errors, f"JavaScript console errors: {errors}"


def expected(entry) -> bool:
    """Chrome logs every 4xx a fetch gets as a console error; the one the scenario case provokes
    on purpose (a broken scenario refused with 400) is not a fault of the page."""
    message = entry.get("message", "")
    return entry.get("source") == "network" and "/v1/scenario" in message and "status of 400" in message


def snap(driver, name):
    """Saves a screenshot of what the page shows now as a test artefact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def push(server, token, payload, *, headers=(), push_type="alert"):
    """One push over HTTP/2 with curl and the sandbox client certificate; returns the status."""
    args = [
        "curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20",
        "--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem"),
        "-H", f"apns-topic: {TOPIC}", "-H", f"apns-push-type: {push_type}",
        "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@-",
    ]
    for header in headers:
        args += ["-H", header]
    args.append(server.url(token))
    result = run(args, input=payload.encode())
    assert result.returncode == 0, result.stderr.decode()
    return int(result.stdout.decode())


# The page re-renders a view when events arrive, so elements are read and clicked in one
# script call each rather than held across calls (they may have been replaced meanwhile).
def texts(driver, css):
    return driver.execute_script("return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText)", css)


def wait_text(driver, css, *needles, timeout=1.0):
    """Waits until an element matching `css` shows every needle; returns its text."""
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: next((t for t in texts(d, css) if all(n in t for n in needles)), None))


def click_text(driver, css, needle):
    assert driver.execute_script(
        "const e = Array.from(document.querySelectorAll(arguments[0])).find(e => e.innerText.includes(arguments[1]));"
        "if (e) e.click(); return !!e;", css, needle), f"no {css} showing {needle!r}"


def show(driver, view):
    driver.find_element(By.CSS_SELECTOR, f'nav button[data-view="{view}"]').click()
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, f"view-{view}").is_displayed())


def close_detail(driver):
    driver.find_element(By.CSS_SELECTOR, "#detail .close").click()
    WebDriverWait(driver, 5).until(lambda d: not d.find_element(By.ID, "detail").is_displayed())


def test_an_alert_appears_as_a_banner_within_a_second(page, dashboard_server):
    token = unique_token()
    payload = json.dumps({"aps": {
        "alert": {"title": "Order shipped", "subtitle": "Parcel 42", "body": "Arrives tomorrow before noon"},
        "badge": 3, "sound": "chime.caf", "thread-id": "orders"}})
    assert push(dashboard_server, token, payload) == 200
    sent = time.monotonic()
    text = wait_text(page, ".banner", "Order shipped")
    assert time.monotonic() - sent <= 1.0
    snap(page, "notifications")
    for expected in (TOPIC.upper(), "Order shipped", "Parcel 42", "Arrives tomorrow before noon", "3", "sound: chime.caf", "thread: orders"):
        assert expected in text, f"{expected!r} not in {text!r}"
    # A background push is a compact card, not a banner.
    assert push(dashboard_server, token, '{"aps":{"content-available":1}}', push_type="background", headers=["apns-priority: 5"]) == 200
    wait_text(page, ".compact", "BACKGROUND", token[:8])
    # Filters narrow the list; a click shows the pretty payload and the request headers.
    page.find_element(By.CSS_SELECTOR, '#filters input[name="token"]').send_keys(token[:12])
    page.find_element(By.CSS_SELECTOR, '#filters input[name="status"]').send_keys("200")
    WebDriverWait(page, 2).until(lambda d: len(texts(d, "#notifications .card")) == 2)
    click_text(page, ".banner", "Order shipped")
    WebDriverWait(page, 3).until(lambda d: "apns-topic" in d.find_element(By.ID, "detail-body").text)
    detail = page.find_element(By.ID, "detail-body").text
    assert '"title": "Order shipped"' in page.find_element(By.ID, "detail-payload").text  # pretty-printed
    assert "apns-push-type" in detail and ":path" in detail
    close_detail(page)
    for name in ("token", "status"):
        page.find_element(By.CSS_SELECTOR, f'#filters input[name="{name}"]').clear()
    page.execute_script("renderNotifications()")


def test_a_refusal_shows_its_status_reason_and_meaning(page, dashboard_server):
    assert push(dashboard_server, "not-a-hex-token", '{"aps":{"alert":"x"}}') == 400
    text = wait_text(page, ".refusal", "BadDeviceToken")
    assert "400" in text
    assert "The device token is invalid" in text
    snap(page, "refusal")


def test_a_refused_provider_token_says_why(page, dashboard_server):
    """Apple answers only InvalidProviderToken; the card also says which check failed, so a
    token minted with a clock an hour ahead is not mistaken for a bad key."""
    from test_broadcast import curl

    now = dashboard_server.journal.get("/v1/clock")["millisecondsSince1970"] // 1000
    token = unique_token()
    status, _, _ = curl(dashboard_server.http2, f"/3/device/{token}", body='{"aps":{"alert":"x"}}', auth=None,
                        headers=[f"authorization: bearer {provider_token(issued_at=now + 3600)}", f"apns-topic: {TOPIC}"])
    assert status == 403
    card = wait_text(page, ".refusal", "InvalidProviderToken", token[:8], timeout=2)
    assert re.search(r"iat \d+ is 3[56]\d\d s in the future", card), card


def test_a_connection_lists_its_frames_in_order(page, dashboard_server):
    token = unique_token()
    assert push(dashboard_server, token, '{"aps":{"alert":"frames"}}') == 200
    connection = dashboard_server.journal.expect(token)["connection"]
    show(page, "connections")
    row = f'tr.connection[data-connection="{connection}"]'
    # The row fills in as the connection's events stream in: wait for the push it carried.
    newest = WebDriverWait(page, 2).until(lambda d: next((t for t in texts(d, row) if t.endswith("1\t0")), None))
    assert "TLS" in newest and "h2" in newest
    assert "certificate" in newest  # the client certificate's subject names the provider
    snap(page, "connections")
    page.execute_script("document.querySelector(arguments[0]).click()", row)
    WebDriverWait(page, 3).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#detail-body tr.frame"))
    types = [cell.text for cell in page.find_elements(By.CSS_SELECTOR, "#detail-body td.frame-type")]
    assert "HEADERS" in types and "DATA" in types, types
    assert types.index("HEADERS") < types.index("DATA")  # the request's HEADERS come before its DATA
    snap(page, "connection-frames")
    close_detail(page)


def test_diagnoses_explain_provider_mistakes(page, dashboard_server):
    push(dashboard_server, unique_token(), "this is not json")  # answered as Apple would; the journal notes the mistake
    show(page, "diagnoses")
    WebDriverWait(page, 1.0, poll_frequency=0.05).until(
        lambda d: "http2.payloadNotJSON" in d.find_element(By.ID, "diagnoses").text)
    snap(page, "diagnoses")


def test_payload_mistakes_show_as_diagnoses_and_the_codes_come_from_the_server(page, dashboard_server):
    """A background push with an alert: Apple answers 200 and the device shows nothing; the
    page shows why, and its code filter lists every code the server names."""
    token = unique_token()
    assert push(dashboard_server, token, '{"aps":{"alert":"hi"}}', headers=["apns-priority: 5"], push_type="background") == 200
    show(page, "diagnoses")
    WebDriverWait(page, 2.0, poll_frequency=0.05).until(
        lambda d: "payload.backgroundWithAlert" in d.find_element(By.ID, "diagnoses").text)
    served = [entry["code"] for entry in dashboard_server.journal.get("/v1/diagnosis-codes")["codes"]]
    offered = page.execute_script(
        "return Array.from(document.querySelectorAll('#diagnosis-code option'), o => o.value).filter(v => v && v !== 'tlsFailed')")
    assert offered == served
    page.execute_script(
        "const s = document.getElementById('diagnosis-code'); s.value = 'payload.backgroundWithoutContentAvailable';"
        "s.dispatchEvent(new Event('change'));")
    WebDriverWait(page, 2.0, poll_frequency=0.05).until(
        lambda d: texts(d, "#diagnoses .diagnosis") and all("payload.backgroundWithoutContentAvailable" in t for t in texts(d, "#diagnoses .diagnosis")))
    snap(page, "diagnoses-filtered")
    page.execute_script("const s = document.getElementById('diagnosis-code'); s.value = ''; s.dispatchEvent(new Event('change'));")


def test_a_broken_scenario_is_refused_at_its_line(page):
    show(page, "scenario")
    WebDriverWait(page, 3).until(lambda d: "Active scenario" in d.find_element(By.ID, "scenario-summary").text)
    broken = '{\n  "name": "broken",\n  "rules": [ oops ]\n}\n'
    area = page.find_element(By.ID, "scenario-text")
    page.execute_script("arguments[0].value = arguments[1]", area, broken)
    page.find_element(By.ID, "scenario-replace").click()
    error = WebDriverWait(page, 3).until(lambda d: d.find_element(By.ID, "scenario-error") if d.find_element(By.ID, "scenario-error").is_displayed() else None)
    assert error.text.startswith("Line 3, column"), error.text
    marked = page.find_element(By.CSS_SELECTOR, "#scenario-excerpt .at").text
    assert '"rules": [ oops ]' in marked
    snap(page, "scenario-error")


def test_devices_and_the_clock_are_driven_from_the_page(page, dashboard_server):
    token = unique_token()
    show(page, "devices")
    page.find_element(By.CSS_SELECTOR, '#device-form input[name="token"]').send_keys(token)
    page.find_element(By.CSS_SELECTOR, '#device-form button[data-action="unregister"]').click()
    WebDriverWait(page, 3).until(lambda d: "unregisteredSince" in d.find_element(By.ID, "devices-result").text)
    assert push(dashboard_server, token, '{"aps":{"alert":"gone"}}') == 410
    page.find_element(By.CSS_SELECTOR, '#device-form button[data-action="reactivate"]').click()
    WebDriverWait(page, 3).until(lambda d: "reactivated" in d.find_element(By.ID, "devices-result").text)
    assert push(dashboard_server, token, '{"aps":{"alert":"back"}}') == 200
    page.find_element(By.CSS_SELECTOR, '#device-form button[data-action="feedback"]').click()
    WebDriverWait(page, 3).until(lambda d: token in d.find_element(By.ID, "feedback").text)
    page.find_element(By.CSS_SELECTOR, '#clock-form input[name="time"]').send_keys("2030-01-02T03:04:05Z")
    page.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="set"]').click()
    WebDriverWait(page, 3).until(lambda d: d.find_element(By.ID, "clock-now").text.startswith("2030-01-02T03:04:05"))
    page.find_element(By.CSS_SELECTOR, '#clock-form input[name="seconds"]').send_keys("3600")
    page.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="advance"]').click()
    WebDriverWait(page, 3).until(lambda d: d.find_element(By.ID, "clock-now").text.startswith("2030-01-02T04:04:05"))
    assert "pinned" in page.find_element(By.ID, "clock-mode").text
    page.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="resume"]').click()
    # It runs on from 2030: years ahead of real time, and says so.
    WebDriverWait(page, 3).until(lambda d: "running," in d.find_element(By.ID, "clock-mode").text)
    mode = page.find_element(By.ID, "clock-mode").text
    assert re.fullmatch(r"\(running, \d+ d( \d+ h)? ahead of real time\)", mode), mode
    snap(page, "devices")
    show(page, "notifications")
    wait_text(page, ".refusal", "Unregistered", "410")


def test_a_legacy_connection_shows_its_frames_as_marked_hex(page, dashboard_server):
    if "gateway" not in dashboard_server.ports:
        pytest.skip("this build has no legacy listeners")
    from test_legacy import frame, s_client

    token = unique_token()
    # One good command-2 notification, then one with a 16-byte token: status 5 and a close.
    s_client(dashboard_server.ports["gateway"], frame(bytes.fromhex(token), identifier=7) + frame(bytes(16), identifier=8))
    # The card explains the status the client was sent (5: the token's size), not the
    # BadDeviceToken reason behind it, whose meaning speaks of the other environment.
    card = wait_text(page, ".refusal", "legacy", timeout=3)
    assert card.startswith("5"), card
    assert "Invalid token size" in card and "invalid token size (16 bytes)" in card, card
    assert "environment" not in card, card
    show(page, "connections")
    wait_text(page, "h2", "legacy", timeout=3)
    page.execute_script(
        "const rows = Array.from(document.querySelectorAll('tr.connection')).filter(r => r.closest('table').previousElementSibling.innerText.startsWith('legacy'));"
        "rows.reduce((a, b) => Number(a.dataset.connection) > Number(b.dataset.connection) ? a : b).click();")
    WebDriverWait(page, 3).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#detail-body tr.frame"))
    # Titled by what it shows, not by a journal number.
    title = page.find_element(By.ID, "detail-title").text
    assert title.startswith("Frames of the legacy gateway connection from ") and "127.0.0.1" in title, title
    frames = texts(page, "#detail-body tr.frame")
    assert len(frames) == 2 and all("command 2" in text for text in frames), frames
    assert not any("undefined" in text for text in frames), frames
    # The good frame: the fields the server read from it.
    assert f"device token: {token}" in frames[0] and "identifier: 7" in frames[0], frames[0]
    # The malformed one: its bytes as hex with the fields marked, and what was wrong.
    fields = page.execute_script(
        "return Array.from(document.querySelectorAll('#detail-body tr.frame')[1].querySelectorAll('.hex .field'), f => f.title)")
    assert fields[:4] == ["command", "frame length", "item id", "item length"], fields
    assert "device token" in fields, fields
    assert "token" in frames[1].lower(), frames[1]
    # Its length is the one its header declares (70 bytes); the journal kept the first 64,
    # and the field they end inside says so.
    assert "70 bytes (first 64 kept)" in frames[1], frames[1]
    cut = page.execute_script(
        "return Array.from(document.querySelectorAll('#detail-body tr.frame')[1].querySelectorAll('.hex .field.cut'), f => f.innerText)")
    assert cut == ["expiry: 00 00 … (2 of 4 bytes kept)"], cut
    # Nothing is clipped: every marked field lies inside the dialog, which does not scroll sideways.
    overflow = page.execute_script(
        "const dialog = document.getElementById('detail'); const edge = dialog.getBoundingClientRect().right;"
        "const fields = Array.from(dialog.querySelectorAll('.hex .field'));"
        "return { scrolls: dialog.scrollWidth > dialog.clientWidth, outside: fields.filter(f => f.getBoundingClientRect().right > edge).map(f => f.title) };")
    assert overflow == {"scrolls": False, "outside": []}, overflow
    snap(page, "legacy-frames")
    close_detail(page)


def test_broadcasts_and_channel_requests_appear_with_their_channel(page, dashboard_server):
    from test_broadcast import CREATE, curl

    # Another test here moves the server's clock; the provider token is issued by that clock.
    now = dashboard_server.journal.get("/v1/clock")["millisecondsSince1970"] // 1000
    bearer = [f"authorization: bearer {provider_token(issued_at=now)}"]
    status, headers, body = curl(dashboard_server.manage, f"/1/apps/{TOPIC}/channels", body=CREATE, headers=bearer, auth=None)
    assert status == 201, body
    channel = headers["apns-channel-id"]
    wait_text(page, ".compact.channel", "CHANNEL CREATE", TOPIC)
    update = json.dumps({"aps": {"timestamp": 1700000000, "event": "update", "content-state": {"score": "3-2"},
                                 "alert": {"title": "Score", "body": "Home 3, away 2"}}})
    status, _, _ = curl(dashboard_server.http2, f"/4/broadcasts/apps/{TOPIC}", body=update,
                        headers=[*bearer, f"apns-channel-id: {channel}", "apns-push-type: liveactivity"], auth=None)
    assert status == 200
    sent = time.monotonic()
    text = wait_text(page, ".compact", "BROADCAST · LIVEACTIVITY", channel[:8])
    assert time.monotonic() - sent <= 1.0
    assert TOPIC in text, text
    snap(page, "broadcast")
    # A broadcast to a channel that does not exist is a refusal with Apple's reason.
    status, _, _ = curl(dashboard_server.http2, f"/4/broadcasts/apps/{TOPIC}", body=update,
                        headers=[*bearer, "apns-channel-id: bm9zdWNoY2hhbm5lbA==", "apns-push-type: liveactivity"], auth=None)
    assert status == 400
    refusal = wait_text(page, ".refusal", "ChannelNotRegistered")
    assert "broadcast" in refusal and "channel" in refusal, refusal
    click_text(page, ".compact", "BROADCAST · LIVEACTIVITY")
    WebDriverWait(page, 3).until(lambda d: "Home 3, away 2" in d.find_element(By.ID, "detail-payload").text)
    title = page.find_element(By.ID, "detail-title").text
    assert title == f"Liveactivity broadcast · {TOPIC} → channel {channel[:8]}…{channel[-6:]} · 200", title
    close_detail(page)


def test_verdicts_show_each_provider_and_its_findings(page, dashboard_server):
    """A bad device token sent twice is a retried permanent refusal: the open Verdicts view
    refreshes when the finding is recorded, and shows the certificate provider, its headline,
    PASS/FAIL per rule, and the finding with the journal sequences it rests on."""
    show(page, "verdicts")
    bad = os.urandom(5).hex()  # too short: BadDeviceToken
    assert push(dashboard_server, bad, '{"aps":{"alert":"x"}}') == 400
    time.sleep(0.15)
    assert push(dashboard_server, bad, '{"aps":{"alert":"x"}}') == 400
    text = wait_text(page, ".verdict-provider", "certificate", f"token {bad[:8]}", timeout=5)
    assert "Retried a permanent refusal" in text and "400 BadDeviceToken" in text, text
    # A rule kept says what held, not what would have broken it.
    assert "notifications tried" in text and "Stopped pushing to tokens APNs called unregistered" in text, text
    assert "Kept pushing to an unregistered token" not in text, text
    row = next(t for t in texts(page, ".verdict-provider .rules tr") if "permanent-retry" in t)
    assert row.startswith("FAIL (") and f"token {bad[:8]}" in row and "#" in row, row
    snap(page, "verdicts")


def test_delivery_states_the_devices_view_and_the_delivery_log(page, dashboard_server):
    token = unique_token()
    show(page, "devices")
    page.find_element(By.CSS_SELECTOR, '#device-state-form input[name="token"]').send_keys(token)
    page.find_element(By.CSS_SELECTOR, '#device-state-form button[data-online="false"]').click()
    wait_text(page, "tr.device.offline", token, "offline", timeout=3)
    for body in ("First score", "Second score"):
        assert push(dashboard_server, token, json.dumps({"aps": {"alert": {"title": body}}})) == 200
    dashboard_server.journal.expect(token, count=2)
    # The devices view lists what is stored: one notification per app, the newest.
    wait_text(page, "tr.device.offline", token, "stored", TOPIC, timeout=3)
    snap(page, "devices-offline")
    show(page, "notifications")
    assert "Discarded - Replaced in Storage" in wait_text(page, ".banner", "First score", "Discarded", timeout=3)
    assert "Stored - Device Offline" in wait_text(page, ".banner", "Second score", "Stored", timeout=3)
    show(page, "devices")
    page.execute_script(
        "Array.from(document.querySelectorAll('tr.device')).find(r => r.dataset.token === arguments[0]).querySelector('button').click()", token)
    WebDriverWait(page, 3).until(lambda d: token not in d.find_element(By.ID, "device-states").text)
    show(page, "notifications")
    wait_text(page, ".banner", "Second score", "Delivered to Device (From Storage)", timeout=3)
    snap(page, "delivery-states")
    # The delivery log, found by the apns-unique-id the answer carried, as Apple's console shows it.
    unique_id = dashboard_server.journal.notifications(token=token)[-1]["uniqueId"]
    show(page, "delivery")
    page.find_element(By.CSS_SELECTOR, '#delivery-form input[name="id"]').send_keys(unique_id)
    page.find_element(By.CSS_SELECTOR, '#delivery-form button[type="submit"]').click()
    WebDriverWait(page, 3).until(lambda d: len(texts(d, "#delivery-log tr.delivery-line")) == 3)
    lines = texts(page, "#delivery-log tr.delivery-line")
    assert ["Received by APNs" in lines[0], "Stored - Device Offline" in lines[1], "Delivered to Device (From Storage)" in lines[2]] == [True] * 3, lines
    assert unique_id in page.find_element(By.ID, "delivery-log").text
    wait_text(page, "#delivery-recent tr.delivery-line", "Device Online", token[:8], timeout=3)
    snap(page, "delivery-log")
    # Back online, the next push is delivered on arrival: no delivery event is recorded for it,
    # and its card and its log still say so (the stream tells the page how far the model has come).
    assert push(dashboard_server, token, json.dumps({"aps": {"alert": {"title": "Third score"}}})) == 200
    show(page, "notifications")
    wait_text(page, ".banner", "Third score", "Delivered to Device", timeout=3)
    third = dashboard_server.journal.notifications(token=token)[-1]
    assert not [e for e in dashboard_server.journal.events(type="delivery")
                if e["delivery"].get("notification") == third["seq"]]
    show(page, "delivery")
    form = page.find_element(By.CSS_SELECTOR, '#delivery-form input[name="id"]')
    form.clear()
    form.send_keys(third["uniqueId"])
    page.find_element(By.CSS_SELECTOR, '#delivery-form button[type="submit"]').click()
    WebDriverWait(page, 3).until(lambda d: len(texts(d, "#delivery-log tr.delivery-line")) == 2)
    assert "Delivered to Device" in texts(page, "#delivery-log tr.delivery-line")[1]
    # A card's detail carries its delivery log too.
    show(page, "notifications")
    click_text(page, ".banner", "First score")
    WebDriverWait(page, 3).until(lambda d: "Discarded - Replaced in Storage by a Newer Notification" in d.find_element(By.ID, "detail-delivery").text)
    close_detail(page)


# ---- Web push: Safari's endpoint (RFC 8030, 8291, 8292), sent with pywebpush -----------------

def web_push(server, message: str) -> str:
    """One push with pywebpush, as a provider's back end sends it, to a subscription of its own
    made over the control API; returns the subscription's id (the record's deviceToken).
    The VAPID `exp` is reckoned from the server's clock, which a test here moves years ahead:
    pywebpush would reckon it from real time, an expiration already past by that clock."""
    pytest.importorskip("pywebpush")
    import requests
    from pywebpush import webpush
    from test_web_push import SUBJECT, new_vapid, public_key

    key = new_vapid()
    subscription = server.subscribe_web_push(public_key(key))
    now = server.journal.get("/v1/clock")["millisecondsSince1970"] // 1000
    with requests.Session() as http:
        http.verify = str(CA)
        http.trust_env = False  # else REQUESTS_CA_BUNDLE would replace `verify`
        response = webpush(subscription_info=subscription, data=message, vapid_private_key=key,
                           vapid_claims={"sub": SUBJECT, "exp": now + 12 * 3600}, requests_session=http)
    assert (response.status_code, response.text) == (201, "")
    return subscription["id"]


def web_card(driver, css, subscription):
    """What the card matching `css` for `subscription` shows, part by part (textContent: the
    text as written, before the style sheet upper-cases a banner's top line), or None."""
    return driver.execute_script(
        "const card = Array.from(document.querySelectorAll(arguments[0])).find(c => c.innerText.includes(arguments[1]));"
        "if (!card) return null;"
        "const part = (css) => { const e = card.querySelector(css); return e ? e.textContent : null; };"
        "return {top: part('.top span'), title: part('.title'), body: part('.body'), kind: part('.kind'),"
        " status: part('.status'), text: card.innerText};", css, f"{subscription[:8]}…{subscription[-6:]}")


def open_web_message(driver, css, subscription):
    """Opens the card's details dialog; returns the decrypted message it shows."""
    click_text(driver, css, subscription[:8])
    return WebDriverWait(driver, 3).until(
        lambda d: d.execute_script("const pre = document.getElementById('detail-web-message'); return pre && pre.textContent"))


def test_a_declarative_web_push_is_the_banner_safari_shows(page, dashboard_server):
    """A Declarative Web Push message shows the notification Safari would show without a
    service worker: its title, its body, and the site it opens; its details dialog shows the
    message as the server decrypted it."""
    navigate = "https://bistro.example.org/bookings/42?from=push"
    message = {"web_push": 8030, "notification": {"title": "Table booked", "body": "Friday 8 pm, 4 people",
                                                  "navigate": navigate, "app_badge": 2}}
    subscription = web_push(dashboard_server, json.dumps(message))
    sent = time.monotonic()
    card = WebDriverWait(page, 3, poll_frequency=0.05).until(lambda d: web_card(d, ".card.banner.web", subscription))
    assert time.monotonic() - sent <= 1.0
    assert (card["title"], card["body"]) == ("Table booked", "Friday 8 pm, 4 people"), card
    assert card["top"] == "web · bistro.example.org", card  # the navigate URL's host
    assert f"opens {navigate}" in card["text"] and card["status"] == "201", card
    assert "undefined" not in card["text"] and "null" not in card["text"], card
    assert not web_card(page, ".card.compact", subscription)  # one card, the banner
    snap(page, "web-push-declarative")
    shown = open_web_message(page, ".card.banner.web", subscription)
    assert json.loads(shown) == message, shown
    detail = page.find_element(By.ID, "detail-body").text
    assert "Notification (Declarative Web Push)" in detail and "Message (decrypted)" in detail, detail
    banner = texts(page, "#detail-body .banner.web .title")
    assert banner == ["Table booked"], banner
    assert "mailto:ops@example.com" in detail, detail  # the VAPID claims it was signed with
    snap(page, "web-push-declarative-detail")
    close_detail(page)


def test_a_plain_web_push_shows_its_message(page, dashboard_server):
    """A message that is not a Declarative Web Push message is for the page's service worker:
    the card is a compact one showing the message's text, decrypted."""
    message = "Your parcel is out for delivery (plain text, no Declarative Web Push)"
    subscription = web_push(dashboard_server, message)
    card = WebDriverWait(page, 3, poll_frequency=0.05).until(lambda d: web_card(d, ".card.compact.web", subscription))
    assert card["kind"] == "web push" and card["status"] == "201", card
    assert message in card["text"], card
    assert not web_card(page, ".card.banner", subscription)
    snap(page, "web-push-plain")
    assert open_web_message(page, ".card.compact.web", subscription) == message
    assert "Notification (Declarative Web Push)" not in page.find_element(By.ID, "detail-body").text
    close_detail(page)


def choose(driver, css, value):
    """Picks the option of the select at `css` holding `value` from the keyboard, as a person
    does: Home, then Down to it, each step firing input and change. (Selenium's Select clicks
    the option, which fires change only; typing the label leans on the type-ahead's timing.)"""
    from selenium.webdriver.common.keys import Keys

    select = driver.find_element(By.CSS_SELECTOR, css)
    index = driver.execute_script("return Array.from(arguments[0].options, o => o.value).indexOf(arguments[1])", select, value)
    assert index >= 0, f"{css} has no option {value!r}"
    select.send_keys(Keys.HOME + Keys.DOWN * index)
    assert select.get_attribute("value") == value


def test_the_protocol_filter_selects_the_web_pushes(page, dashboard_server):
    """web push in the protocol select: the cards shown are exactly the web push cards, both
    kinds, and none of the APNs ones; HTTP/2 shows none of them."""
    token = unique_token()
    assert push(dashboard_server, token, '{"aps":{"alert":{"title":"Not a web push"}}}') == 200
    declarative = web_push(dashboard_server, json.dumps(
        {"web_push": 8030, "notification": {"title": "Filtered in", "navigate": "https://example.com/in"}}))
    plain = web_push(dashboard_server, "filtered in, plain")
    WebDriverWait(page, 3, poll_frequency=0.05).until(
        lambda d: web_card(d, ".card.banner.web", declarative) and web_card(d, ".card.compact.web", plain)
        and any("Not a web push" in text for text in texts(d, ".banner")))
    every = lambda d: d.execute_script(
        "return Array.from(document.querySelectorAll('#notifications .card'), c => [Number(c.dataset.seq), c.classList.contains('web')])")
    shown = every(page)
    web = sorted(seq for seq, is_web in shown if is_web)
    assert len(web) >= 2 and len(web) < len(shown), shown
    protocol = '#filters select[name="protocol"]'
    choose(page, protocol, "webPush")
    WebDriverWait(page, 3).until(lambda d: sorted(seq for seq, _ in every(d)) == web)
    assert all(is_web for _, is_web in every(page))
    assert web_card(page, ".card.banner.web", declarative) and web_card(page, ".card.compact.web", plain)
    snap(page, "web-push-filtered")
    choose(page, protocol, "http2")
    WebDriverWait(page, 3).until(lambda d: every(d) and not any(is_web for _, is_web in every(d)))
    choose(page, protocol, "")
    WebDriverWait(page, 3).until(lambda d: len(every(d)) == len(shown))


# ---- A server with a scenario: scripted answers, faults, a 64-bit seed ----------------------

# Above 2^53: a JavaScript number would show it as 12539804505817154000.
SEED = 12539804505817154371
SCRIPTED = unique_token()  # answered 503 by a scenario rule, with a reason of its own
FAULTED = unique_token()   # its stream reset by a scenario rule: no answer at all


def scenario(seed: int) -> str:
    """The scenario as a file holds it, the seed a bare JSON number."""
    return json.dumps({"name": "dashboard", "rules": [
        {"name": "scripted busy", "match": {"tokens": [SCRIPTED]},
         "action": {"type": "respond", "status": 503, "reason": "ScriptedBusy"}},
        {"name": "reset the stream", "match": {"tokens": [FAULTED]}, "action": {"type": "resetStream", "errorCode": 2}},
    ]})[:-1] + f', "seed": {seed}}}'


@pytest.fixture(scope="module")
def scripted_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dashboard-scenario")
    (folder / "scenario.json").write_text(scenario(SEED))
    instance = Server(folder, "--scenario", str(folder / "scenario.json")).start()
    yield instance
    instance.stop()


def open_page(driver, server):
    """The dashboard of `server`, loaded and following the live stream."""
    driver.get_log("browser")  # what earlier pages logged is theirs
    driver.get(f"http://127.0.0.1:{server.ports['control']}/")
    WebDriverWait(driver, 10).until(lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"))
    return driver


def assert_no_console_errors(driver):
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, f"JavaScript console errors: {errors}"


def test_the_scenario_seed_shows_every_digit(driver, scripted_server):
    """A run is reproduced only with its exact seed: the page shows the 64-bit seed as the
    server reports it, from the file it started with and after a replacement."""
    page = open_page(driver, scripted_server)
    show(page, "scenario")
    seed = lambda d: d.execute_script("const row = document.querySelector('#scenario-summary tr[data-key=\"seed\"] td'); return row && row.innerText")
    WebDriverWait(page, 3).until(lambda d: seed(d) == str(SEED))
    # The rules and how often they fired, as GET /v1/scenario reports them.
    rules = texts(page, "#scenario-summary table.firings tr")
    assert rules[1:] == ["scripted busy\t0\tunlimited", "reset the stream\t0\tunlimited"], rules
    snap(page, "scenario-seed")
    page.execute_script("document.getElementById('scenario-text').value = arguments[0]", scenario(2**64 - 1))
    page.find_element(By.ID, "scenario-replace").click()
    WebDriverWait(page, 3).until(lambda d: seed(d) == "18446744073709551615")
    assert_no_console_errors(page)


def curl_push(server, token, payload='{"aps":{"alert":"x"}}'):
    """A push with curl that may get no answer (a scenario fault): returns curl's result."""
    return run(["curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20",
                "--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem"),
                "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-o", "/dev/null", "-w", "%{http_code}",
                "--data-binary", payload, server.url(token)])


def cards(driver):
    """Every card shown: its journal sequence, the status it shows, and its text."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#notifications .card'), c => ({seq: c.dataset.seq,"
        " status: Array.from(c.querySelectorAll('.status'), s => s.innerText).join(''), text: c.innerText}))")


def filtered(driver, **values):
    """The sequences of the cards shown once the filter form holds `values`."""
    driver.execute_script(
        "const form = document.getElementById('filters');"
        "for (const [name, value] of Object.entries(arguments[0])) form.elements[name].value = value;"
        "form.dispatchEvent(new Event('input'));", {"token": "", "topic": "", "status": "", "protocol": "", **values})
    return sorted(card["seq"] for card in cards(driver))


def test_filters_select_what_the_cards_show(driver, scripted_server):
    """Every kind of card, and each filter: the cards a value selects are exactly the cards
    that show it (a legacy status packet, a scripted answer, a fault, a broadcast, a channel
    request); a scripted card shows the reason its rule wrote; a details dialog is titled by
    the push's kind, topic, device and answer."""
    from test_broadcast import CREATE, curl
    from test_legacy import frame, s_client

    page = open_page(driver, scripted_server)
    good = unique_token()
    assert push(scripted_server, good, '{"aps":{"alert":"fine"}}') == 200
    assert push(scripted_server, "abcd", '{"aps":{"alert":"x"}}') == 400
    assert curl_push(scripted_server, SCRIPTED).stdout == b"503"
    assert curl_push(scripted_server, FAULTED).returncode != 0  # the stream was reset: no answer
    s_client(scripted_server.ports["gateway"], frame(bytes.fromhex(good), identifier=1) + frame(bytes(16), identifier=2))
    bearer = [f"authorization: bearer {provider_token()}"]
    status, headers, body = curl(scripted_server.manage, f"/1/apps/{TOPIC}/channels", body=CREATE, headers=bearer, auth=None)
    assert status == 201, body
    channel = headers["apns-channel-id"]
    update = json.dumps({"aps": {"timestamp": 1700000000, "event": "update", "content-state": {}, "alert": {"title": "Score"}}})
    status, _, _ = curl(scripted_server.http2, f"/4/broadcasts/apps/{TOPIC}", body=update,
                        headers=[*bearer, f"apns-channel-id: {channel}", "apns-push-type: liveactivity"], auth=None)
    assert status == 200
    WebDriverWait(page, 5).until(lambda d: len(cards(d)) == 8)
    every = cards(page)
    snap(page, "filters-every-card")

    scripted = next(card for card in every if card["status"] == "503")
    assert "ScriptedBusy" in scripted["text"] and 'rule "scripted busy"' in scripted["text"], scripted
    faulted = next(card for card in every if "RST_STREAM 2" in card["text"])
    assert faulted["status"] == "", faulted  # no answer went out, so no status is shown

    def showing(predicate):
        return sorted(card["seq"] for card in every if predicate(card))

    for status in ("200", "201", "400", "503", "5"):
        expected = showing(lambda card: card["status"] == status)
        assert expected, f"no card shows status {status}: {every}"
        assert filtered(page, status=status) == expected, status
    expected = showing(lambda card: TOPIC in card["text"].lower())
    assert len(expected) == 8, every  # the channel request and the broadcast show the app's bundle id
    assert filtered(page, topic=TOPIC) == expected
    assert filtered(page, topic="com.example.other") == []
    expected = showing(lambda card: channel[:8] in card["text"])
    assert len(expected) == 2, every  # the channel request and the broadcast to it
    assert filtered(page, token=channel[:8]) == expected
    expected = showing(lambda card: "legacy" in card["text"])
    assert len(expected) == 2, every
    assert filtered(page, protocol="legacy") == expected
    assert filtered(page, status="503", token=SCRIPTED[:10]) == [scripted["seq"]]

    click_text(page, ".refusal", "ScriptedBusy")
    WebDriverWait(page, 3).until(lambda d: d.find_element(By.ID, "detail").is_displayed())
    title = page.find_element(By.ID, "detail-title").text
    assert title == f"Alert notification · {TOPIC} → {SCRIPTED[:8]}…{SCRIPTED[-6:]} · 503 ScriptedBusy", title
    close_detail(page)
    filtered(page)
    assert_no_console_errors(page)


def test_a_page_opened_after_a_reset_or_a_clear_warns_of_nothing(driver, scripted_server):
    """A reset and DELETE /v1/journal forget events on purpose: a page opened afterwards has
    missed nothing, so it shows no "events skipped" banner."""
    for clear in (lambda: scripted_server.journal.post("/v1/reset"),
                  lambda: scripted_server.journal.request("DELETE", "/v1/journal")):
        for _ in range(3):
            assert push(scripted_server, unique_token(), '{"aps":{"alert":"before"}}') == 200
        clear()
        token = unique_token()
        assert push(scripted_server, token, '{"aps":{"alert":"after the clear"}}') == 200
        page = open_page(driver, scripted_server)
        # The banner would come in the same write as the card, just before it.
        wait_text(page, ".banner", "after the clear", timeout=3)
        assert page.find_element(By.ID, "skipped").get_attribute("hidden") is not None, page.find_element(By.ID, "skipped").text
        assert_no_console_errors(page)


def test_a_page_opened_on_a_full_journal_says_what_it_does_not_show(driver, tmp_path):
    """Events a small journal pushed out before the page opened are history the page never
    had, not lag: the banner says so (and goes away when clicked)."""
    server = Server(tmp_path, "--journal-capacity", "20").start()
    try:
        for _ in range(3):
            assert push(server, unique_token(), '{"aps":{"alert":"busy"}}') == 200
        page = open_page(driver, server)
        notice = wait_text(page, "#skipped", "older events are not shown", timeout=3)
        assert re.fullmatch(r"\d+ older events are not shown: the page loads the newest 500 when it opens\.", notice), notice
        page.find_element(By.ID, "skipped").click()
        WebDriverWait(page, 2).until(lambda d: not d.find_element(By.ID, "skipped").is_displayed())
        assert_no_console_errors(page)
    finally:
        server.stop()


# Counts the page's fetches, installed before its own script runs.
FETCH_COUNTER = """
window.fetchedPaths = [];
const pageFetch = window.fetch;
window.fetch = function (input, init) {
  window.fetchedPaths.push(String((input && input.url) || input));
  return pageFetch.apply(this, arguments);
};
"""


def test_a_push_reaches_the_open_page_without_a_poll(driver, tmp_path):
    """The page is pushed to: once its stream is open, each push shows up without the page
    asking for events again and without the server looking at the journal again (its one
    look is the stream's opening one), the open stream being one of the journal's readers."""
    from test_everyday import scrape, value

    def history_reads():
        return value(scrape(server)["mockapns_journal_history_reads"], "mockapns_journal_history_reads_total")

    def event_fetches():
        return [path for path in driver.execute_script("return window.fetchedPaths.slice()") if "/v1/events" in path]

    server = Server(tmp_path).start()
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FETCH_COUNTER})
    try:
        readers_before = value(scrape(server)["mockapns_journal_readers"], "mockapns_journal_readers")
        page = open_page(driver, server)
        # The stream takes its look at the history as it opens.
        WebDriverWait(page, 5, poll_frequency=0.05).until(lambda _: history_reads() == 1)
        opened = event_fetches()
        assert len(opened) == 1 and "/v1/events/stream" in opened[0], opened
        assert value(scrape(server)["mockapns_journal_readers"], "mockapns_journal_readers") == readers_before + 1
        for number in range(3):
            assert push(server, unique_token(), json.dumps({"aps": {"alert": {"title": f"Pushed {number}"}}})) == 200
            wait_text(page, ".banner", f"Pushed {number}", timeout=2)
        snap(page, "pushed")
        assert history_reads() == 1, "the server looked at the journal again instead of pushing"
        assert event_fetches() == opened, "the page asked for events again instead of being pushed them"
        assert_no_console_errors(page)
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        server.stop()


def test_the_clock_label_says_how_far_from_real_time(driver, scripted_server):
    """An advance keeps a running clock running, ahead of real time: the label says so, and
    the reading ticks on. A reset brings back real time."""
    page = open_page(driver, scripted_server)
    show(page, "devices")
    mode = lambda d: d.find_element(By.ID, "clock-mode").text
    WebDriverWait(page, 3).until(lambda d: mode(d) == "(running, real time)")
    page.find_element(By.CSS_SELECTOR, '#clock-form input[name="seconds"]').send_keys("5400")
    page.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="advance"]').click()
    WebDriverWait(page, 3).until(lambda d: mode(d) == "(running, 1 h 30 min ahead of real time)")
    shown = page.find_element(By.ID, "clock-now").text
    WebDriverWait(page, 3).until(lambda d: d.find_element(By.ID, "clock-now").text != shown)  # it runs
    page.find_element(By.CSS_SELECTOR, '#clock-form input[name="seconds"]').clear()
    page.find_element(By.CSS_SELECTOR, '#clock-form input[name="seconds"]').send_keys("-7200")
    page.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="advance"]').click()
    WebDriverWait(page, 3).until(lambda d: mode(d) == "(running, 30 min behind real time)")
    snap(page, "clock-behind")
    # An empty field is named in the page instead of being sent.
    page.find_element(By.CSS_SELECTOR, '#clock-form input[name="seconds"]').clear()
    page.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="advance"]').click()
    wait_text(page, "#devices-result .error", "how many seconds")
    scripted_server.journal.post("/v1/reset")
    show(page, "notifications")
    show(page, "devices")
    WebDriverWait(page, 3).until(lambda d: mode(d) == "(running, real time)")
    assert_no_console_errors(page)


def test_a_relayed_answer_says_it_came_from_the_upstream(driver, tmp_path):
    """Upstream mode: a card says where its answer came from, and what MockAPNs' own rules
    would have answered when that differs (here the upstream refuses a token they accept)."""
    gone = "0a" * 32
    scenario = tmp_path / "apple.json"
    scenario.write_text(json.dumps({"name": "apple", "rules": [
        {"name": "gone", "match": {"tokens": [gone]}, "action": {"type": "reject", "reason": "Unregistered"}}]}))
    upstream = Server(tmp_path / "up", "--scenario", str(scenario)).start()
    proxy = Server(tmp_path / "proxy", "--upstream", f"https://127.0.0.1:{upstream.http2}", "--upstream-ca", str(CA),
                   "--upstream-certificate", str(CERTS / "client-sandbox.pem"),
                   "--upstream-key", str(CERTS / "client-sandbox-key.pem")).start()
    try:
        assert push(proxy, unique_token(), '{"aps":{"alert":"relayed"}}') == 200
        assert push(proxy, gone, '{"aps":{"alert":"to a gone token"}}') == 410
        page = open_page(driver, proxy)
        relayed = wait_text(page, ".banner", "relayed", timeout=3)
        assert re.search(r"from upstream in \d+ ms", relayed), relayed
        assert "MockAPNs would answer" not in relayed, relayed
        refused = wait_text(page, ".refusal", "Unregistered", timeout=3)
        assert re.search(r"from upstream in \d+ ms; MockAPNs would answer 200", refused), refused
        snap(page, "upstream")
        assert_no_console_errors(page)
    finally:
        proxy.stop()
        upstream.stop()
