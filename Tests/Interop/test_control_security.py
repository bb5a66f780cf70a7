"""The control API and dashboard against a hostile web page, in headless Chromium: a page of
another origin (another port, under a name of its own) and a page loaded under a name rebound
to 127.0.0.1 (DNS rebinding) try every state-changing endpoint of the OpenAPI document with an
HTML form (text/plain, urlencoded and multipart), `fetch` in no-cors mode, a text/plain body and
a JSON one. Every attempt is refused, as Chromium's own network log shows, and nothing changes:
journal, clock, registry, scenario, channels, feedback. The dashboard, from its own origin,
still works.

`--host-resolver-rules` makes evil.example and attacker.example resolve to 127.0.0.1, so no
DNS is involved.
"""

from __future__ import annotations

import html
import json
import shutil
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import CA, CERTS, TOPIC, Server, run, unique_token

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
CHANNEL = "c2VjdXJpdHktdGVzdA=="  # base64 of "security-test"


class Target:
    """The server under attack and what each endpoint's path parameters are set to: tokens
    whose registry state shows whether an attempt got through."""

    def __init__(self, server: Server):
        self.server = server
        self.control = server.ports["control"]
        # Pushes answer 200 while nobody unregisters, expires or rebinds it.
        self.served = unique_token()
        # Unregistered at the start: pushes answer 410 while nobody reactivates or forgets it.
        self.gone = unique_token()

    def api(self, method: str, path: str, body=None):
        """The control API as a script calls it: loopback, JSON, no Origin."""
        data = json.dumps(body if body is not None else {}).encode() if method not in ("GET", "HEAD") else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        request = urllib.request.Request(f"http://127.0.0.1:{self.control}{path}", data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read() or b"null")

    def push(self, token: str) -> int:
        result = run([
            "curl", "-sS", "--http2", "--cacert", str(CA), "--max-time", "20",
            "--cert", str(CERTS / "client-sandbox.pem"), "--key", str(CERTS / "client-sandbox-key.pem"),
            "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
            "-o", "/dev/null", "-w", "%{http_code}", "-d", '{"aps":{"alert":"x"}}', self.server.url(token),
        ])
        return int(result.stdout.decode())

    def state(self) -> dict:
        """Everything a state change would show, once every push connection has closed (the
        journal records the close a moment after curl exits)."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            opened = len(self.api("GET", "/v1/events?type=connectionOpened")["events"])
            closed = len(self.api("GET", "/v1/events?type=connectionClosed")["events"])
            if opened == closed:
                break
            time.sleep(0.02)
        scenario = self.api("GET", "/v1/scenario")
        # The journal's own notes arrive on their own time (the browser's idle keep-alive
        # connections closed at the request-header deadline, verdicts judged off the event
        # loops): those are no change of state. What an attack could change is the record of
        # what was pushed: a reset or a journal clear empties it.
        pushed = self.api("GET", "/v1/events?type=notification&limit=100000")["events"]
        return {
            "journal": [event["seq"] for event in pushed],
            "clock": self.api("GET", "/v1/clock"),
            "scenario": (scenario["name"], scenario["rules"], scenario["state"]),
            "channels": self.api("GET", "/v1/channels"),
            "feedback": self.api("GET", "/v1/feedback"),
        }

    def state_changing_operations(self) -> list[tuple[str, str]]:
        """Every operation of the OpenAPI document that is not a GET, with its path filled in."""
        document = self.api("GET", "/openapi.json")
        operations = []
        for path, item in sorted(document["paths"].items()):
            for method in ("post", "put", "delete", "patch"):
                if method not in item:
                    continue
                token = self.gone if path.endswith("/reactivate") or path == "/v1/registry/{token}" else self.served
                concrete = path.replace("{token}", token).replace("{id}", urllib.parse.quote(CHANNEL, safe=""))
                operations.append((method.upper(), concrete))
        return operations


# What an attacker would send: every field some endpoint reads, set to change something.
ATTACK_BODY = {
    "milliseconds": 86_400_000, "time": "2031-01-01T00:00:00Z", "since": 0, "topics": ["com.evil"],
    "environment": "production", "deviceToken": "ab" * 32, "bundleId": "com.evil", "name": "evil", "rules": [],
}


DASHBOARD_TOKEN = "dashboard-test-token-0123456789"


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    # The server's control token is the one the dashboard test hands the page: a bearer token
    # that is neither the server's nor a session's is refused, from loopback too.
    server = Server(tmp_path_factory.mktemp("security"), "--clock", "2026-01-01T00:00:00Z",
                    "--control-token", DASHBOARD_TOKEN).start()
    target = Target(server)
    assert target.push(target.served) == 200
    target.api("POST", f"/v1/registry/{target.gone}/unregister", {"since": 1767225600000})
    assert target.push(target.gone) == 410
    target.api("POST", "/v1/channels", {"bundleId": TOPIC, "id": CHANNEL})
    yield target
    server.stop()


class AttackerSite:
    """A web server on another port, serving the pages the tests write."""

    def __init__(self):
        pages: dict[str, str] = {}
        self.pages = pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                page = pages.get(self.path.split("?")[0])
                body = (page or "not found").encode()
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://attacker.example:{self.port}/{name}"

    def loopback_url(self, name: str) -> str:
        """The same page as 127.0.0.1 on its own port: same site as the control API, another origin."""
        return f"http://127.0.0.1:{self.port}/{name}"

    def close(self):
        self.httpd.shutdown()


@pytest.fixture(scope="module")
def site():
    attacker = AttackerSite()
    yield attacker
    attacker.close()


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip("chromium and chromium-driver are not installed (scripts/install-deps.sh --test installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP attacker.example 127.0.0.1"):
        options.add_argument(argument)
    # The network log shows the status of every response, opaque (no-cors) ones included.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def network(driver) -> list[dict]:
    """The requests made since the last call: method, URL, request headers, response status."""
    requests: dict[str, dict] = {}
    sent_headers: dict[str, dict] = {}  # what went on the wire (Origin included), reported apart
    statuses: dict[str, int] = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            request = params["request"]
            requests[params["requestId"]] = {"method": request["method"], "url": request["url"], "headers": request["headers"]}
        elif message["method"] == "Network.requestWillBeSentExtraInfo":
            sent_headers[params["requestId"]] = params["headers"]
        elif message["method"] == "Network.responseReceived":
            statuses[params["requestId"]] = params["response"]["status"]
    for request_id, request in requests.items():
        headers = {**request["headers"], **sent_headers.get(request_id, {})}
        request["headers"] = {name.lower(): value for name, value in headers.items()}
        request["status"] = statuses.get(request_id)
    return list(requests.values())


def control_requests(driver, target: Target) -> list[dict]:
    return [r for r in network(driver) if f":{target.control}/" in r["url"]]


def test_html_forms_from_another_site_change_nothing(browser, site, target):
    before = target.state()
    posts = [path for method, path in target.state_changing_operations() if method == "POST"]
    assert len(posts) >= 9, posts
    # text/plain is the classic way to smuggle JSON through a form: name + "=" + value.
    fields = json.dumps(ATTACK_BODY)[:-1] + ', "padding": "'
    encodings = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
    network(browser)  # start the log afresh
    for path in posts:
        for host in ("127.0.0.1", "localhost"):
            for encoding in encodings:
                site.pages["/form.html"] = (
                    f'<form id="form" method="POST" enctype="{encoding}" action="http://{host}:{target.control}{html.escape(path)}">'
                    f'<input type="hidden" name="{html.escape(fields)}" value=\'"}}\'><button id="go">Win a prize</button></form>'
                )
                browser.get(site.url("form.html"))
                browser.find_element(By.ID, "go").click()  # what the visitor does; no script needed
                WebDriverWait(browser, 10).until(lambda d: d.current_url.startswith(f"http://{host}:{target.control}/"))
                WebDriverWait(browser, 10).until(lambda d: "refuses requests from pages of other origins" in d.find_element(By.TAG_NAME, "body").text)
    sent = [r for r in control_requests(browser, target) if r["method"] == "POST"]
    assert len(sent) == len(posts) * 2 * len(encodings), sent
    assert all(r["status"] == 403 for r in sent), [(r["url"], r["status"]) for r in sent if r["status"] != 403]
    assert all(r["headers"].get("origin") == f"http://attacker.example:{site.port}" for r in sent), sent
    assert target.state() == before
    assert target.push(target.served) == 200
    assert target.push(target.gone) == 410


def test_scripts_on_another_site_change_nothing(browser, site, target):
    """no-cors fetch (the request is sent, its answer unreadable) with text/plain and with
    JSON bodies, and, for PUT and DELETE, which no-cors does not allow, a CORS fetch (the
    browser asks first with OPTIONS, and sends nothing more when refused)."""
    site.pages["/script.html"] = "<title>attacker</title>"
    browser.get(site.url("script.html"))
    before = target.state()
    operations = target.state_changing_operations()
    network(browser)
    outcomes = browser.execute_async_script("""
        const [base, operations, body, done] = arguments;
        const attempts = [];
        for (const [method, path] of operations) {
            const url = base + path;
            if (method === "POST") {
                attempts.push(fetch(url, {method, mode: "no-cors", body, headers: {"content-type": "text/plain"}}));
                attempts.push(fetch(url, {method, mode: "no-cors", body: new Blob([body])}));
                attempts.push(fetch(url, {method, mode: "no-cors", body: new URLSearchParams({x: body})}));
            }
            attempts.push(fetch(url, {method, mode: "cors", body, headers: {"content-type": "application/json"}}));
        }
        Promise.allSettled(attempts).then((results) => done(results.map((r) => r.status === "fulfilled" ? r.value.type : "refused")));
    """, f"http://127.0.0.1:{target.control}", operations, json.dumps(ATTACK_BODY))
    posts = sum(1 for method, _ in operations if method == "POST")
    # The no-cors answers are opaque; every CORS fetch fails (no Access-Control-Allow-Origin).
    assert outcomes.count("opaque") == posts * 3, outcomes
    assert outcomes.count("refused") == len(operations), outcomes
    answered = [r for r in control_requests(browser, target) if r["status"] is not None]
    # Whatever reached the server (the no-cors POSTs, the browser's OPTIONS questions) was refused.
    assert all(r["status"] == 403 for r in answered), [(r["method"], r["url"], r["status"]) for r in answered if r["status"] != 403]
    assert len([r for r in answered if r["method"] == "POST"]) == posts * 3, [(r["method"], r["url"]) for r in answered]
    assert target.state() == before
    assert target.push(target.served) == 200
    assert target.push(target.gone) == 410


def test_a_rebound_name_can_neither_read_nor_change_anything(browser, target):
    """A page loaded as http://evil.example:<control port>/ (the name resolving to
    127.0.0.1) is same-origin with the port as far as the browser knows: only the Host check
    stands between it and the journal."""
    before = target.state()
    network(browser)
    browser.get(f"http://evil.example:{target.control}/")
    page = browser.find_element(By.TAG_NAME, "body").text
    assert "does not answer to the name" in page and "--control-allowed-host" in page, page
    assert "MockAPNs" not in browser.title
    reads = ["/", "/v1/events?limit=1000", "/v1/notifications", "/v1/scenario", "/openapi.json", "/dashboard/app.js", "/v1/events/stream"]
    outcomes = browser.execute_async_script("""
        const [reads, operations, body, done] = arguments;
        const attempts = reads.map((path) => fetch(path).then(async (r) => [r.status, await r.text()]));
        for (const [method, path] of operations) {
            attempts.push(fetch(path, {method, body, headers: {"content-type": "application/json"}}).then(async (r) => [r.status, await r.text()]));
        }
        Promise.all(attempts).then(done, (error) => done(String(error)));
    """, reads, target.state_changing_operations(), json.dumps(ATTACK_BODY))
    assert isinstance(outcomes, list), outcomes
    assert [status for status, _ in outcomes] == [421] * len(outcomes), outcomes
    for _, text in outcomes:
        assert target.served not in text and '"events"' not in text, text
    assert all(r["status"] == 421 for r in control_requests(browser, target))
    assert target.state() == before
    assert target.push(target.served) == 200


def test_a_page_on_another_port_cannot_frame_the_dashboard(browser, site, target):
    """Clickjacking: a page on another loopback port frames the dashboard, invisible, over
    decoys placed where "Devices & clock" and "Let it run" are, and the visitor clicks them
    (real clicks, as WebDriver sends them). The browser must refuse to show the dashboard in the
    frame (X-Frame-Options: DENY, CSP frame-ancestors 'none'): the frame never runs the page, the
    clicks land on nothing of it, and the clock stays pinned."""
    size = browser.get_window_size()
    browser.set_window_size(1280, 1400)  # both buttons inside the viewport, framed or not
    try:
        # Where the two buttons are, from the dashboard opened as itself at this window size;
        # a frame filling the same viewport lays the page out the same way.
        browser.get(f"http://127.0.0.1:{target.control}/")
        WebDriverWait(browser, 10).until(lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"))
        centre = "const r = arguments[0].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, innerHeight];"
        devices = browser.execute_script(centre, browser.find_element(By.CSS_SELECTOR, 'nav button[data-view="devices"]'))
        browser.find_element(By.CSS_SELECTOR, 'nav button[data-view="devices"]').click()  # a view switch, no request
        resume = browser.execute_script(centre, browser.find_element(By.CSS_SELECTOR, '#clock-form button[data-action="resume"]'))
        assert resume[1] < resume[2], f"'Let it run' is below the viewport: {resume}"

        before = target.state()
        assert before["clock"]["fixed"] is True, before["clock"]
        for framer in (site.loopback_url("frame.html"), site.url("frame.html")):
            site.pages["/frame.html"] = (
                "<!doctype html><title>Win a prize</title>"
                "<style>body{margin:0} .decoy{position:absolute;transform:translate(-50%,-50%)}"
                " iframe{position:fixed;inset:0;width:100vw;height:100vh;border:0;opacity:0;z-index:1}</style>"
                f'<button class="decoy" style="left:{devices[0]}px;top:{devices[1]}px">Claim your prize</button>'
                f'<button class="decoy" style="left:{resume[0]}px;top:{resume[1]}px">Confirm</button>'
                f'<iframe id="victim" src="http://127.0.0.1:{target.control}/"></iframe>'
                "<script>victim.addEventListener('load', () => document.body.dataset.framed = 'loaded')</script>"
            )
            network(browser)  # start the log afresh
            browser.get(framer)
            WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.framed") == "loaded")
            for x, y, _ in (devices, resume):
                actions = ActionChains(browser)
                actions.w3c_actions.pointer_action.move_to_location(int(x), int(y))
                actions.w3c_actions.pointer_action.click()
                actions.perform()
            # What the frame holds, seen from inside (WebDriver may enter any frame): not the
            # dashboard, whose buttons the clicks were aimed at, but the browser's error page.
            browser.switch_to.frame("victim")
            try:
                inside = browser.execute_script(
                    "return {url: location.href, buttons: document.querySelectorAll('nav button, #clock-form button').length,"
                    " text: document.body ? document.body.innerText : ''}")
            finally:
                browser.switch_to.default_content()
            assert inside["buttons"] == 0 and "MockAPNs" not in inside["text"], f"{framer} showed the dashboard: {inside}"
            assert not inside["url"].startswith(f"http://127.0.0.1:{target.control}"), inside
            # The page was fetched (and refused by the browser), nothing it would load or send was.
            sent = control_requests(browser, target)
            assert [(r["method"], r["url"]) for r in sent] == [("GET", f"http://127.0.0.1:{target.control}/")], sent
            assert target.state() == before
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_the_dashboard_still_works_from_its_own_origin(browser, target):
    browser.get_log("browser")  # the attacker pages' console errors are theirs
    for host in ("127.0.0.1", "localhost"):
        browser.get(f"http://{host}:{target.control}/")
        WebDriverWait(browser, 10).until(lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"))
    token = unique_token()
    browser.find_element(By.CSS_SELECTOR, 'nav button[data-view="devices"]').click()
    browser.find_element(By.CSS_SELECTOR, '#device-form input[name="token"]').send_keys(token)
    browser.find_element(By.CSS_SELECTOR, '#device-form button[data-action="unregister"]').click()
    WebDriverWait(browser, 5).until(lambda d: "unregisteredSince" in d.find_element(By.ID, "devices-result").text)
    assert target.push(token) == 410
    browser.find_element(By.CSS_SELECTOR, '#device-form button[data-action="reactivate"]').click()
    WebDriverWait(browser, 5).until(lambda d: "reactivated" in d.find_element(By.ID, "devices-result").text)
    assert target.push(token) == 200
    # Its own requests carry its own origin and JSON.
    posts = [r for r in control_requests(browser, target) if r["method"] == "POST"]
    assert posts and all(r["status"] == 200 for r in posts), posts
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_a_page_given_the_token_sends_it_and_never_shows_it(browser, target):
    """Opened from another machine, the dashboard takes the token from the address's
    fragment (never sent to any server), drops it from the address bar, and sends it as
    Authorization on every request, the event stream's included."""
    token = DASHBOARD_TOKEN
    browser.get("about:blank")
    network(browser)
    browser.get(f"http://127.0.0.1:{target.control}/#token={token}")
    WebDriverWait(browser, 10).until(lambda d: "on" in d.find_element(By.ID, "live").get_attribute("class"))
    assert token not in browser.current_url
    assert token not in browser.page_source
    sent = [r for r in control_requests(browser, target) if "/v1/" in r["url"]]
    assert any("/v1/events/stream" in r["url"] for r in sent), sent
    for request in sent:
        assert request["headers"].get("authorization") == f"Bearer {token}", request
    browser.execute_script("sessionStorage.clear()")
