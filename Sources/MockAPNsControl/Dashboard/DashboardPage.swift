import MockAPNsScenario
/// The dashboard's HTML: the frame of the page; `app.js` (`DashboardAssets`) fills it from the control
/// API and the live event stream.
package enum DashboardPage {
    package static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MockAPNs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/style.css">
</head>
<body>
<header>
  <h1>MockAPNs</h1>
  <nav>
    <button data-view="notifications" class="selected">Notifications</button>
    <button data-view="connections">Connections</button>
    <button data-view="delivery">Delivery log</button>
    <button data-view="diagnoses">Diagnoses</button>
    <button data-view="verdicts">Verdicts</button>
    <button data-view="scenario">Scenario</button>
    <button data-view="devices">Devices &amp; clock</button>
  </nav>
  <span id="live" class="live off" title="Live event stream">connecting…</span>
</header>
<div id="skipped" hidden></div>
<main>
  <section id="view-notifications" class="view">
    <form id="filters" class="filters" autocomplete="off">
      <input name="token" placeholder="device token or channel">
      <input name="topic" placeholder="topic or bundle">
      <input name="status" placeholder="status (200, 400…)" size="12">
      <select name="protocol">
        <option value="">any protocol</option>
        <option value="http2">HTTP/2</option>
        <option value="legacy">legacy</option>
        <option value="webPush">web push</option>
      </select>
    </form>
    <div id="notifications" class="cards"></div>
    <p class="empty" id="notifications-empty">No notifications yet. Send a push and it appears here.</p>
  </section>
  <section id="view-connections" class="view" hidden>
    <div id="connections"></div>
  </section>
  <section id="view-delivery" class="view" hidden>
    <form id="delivery-form" class="filters" autocomplete="off">
      <input name="id" placeholder="apns-unique-id, apns-id or notification number" size="46">
      <button type="submit">Search</button>
    </form>
    <p class="empty" id="delivery-empty">Enter the apns-unique-id a sandbox answer carried, an apns-id, or a notification's number to see what became of it.</p>
    <div id="delivery-log"></div>
    <h2>Recent delivery events</h2>
    <div id="delivery-recent"></div>
  </section>
  <section id="view-diagnoses" class="view" hidden>
    <form class="filters" autocomplete="off"><select id="diagnosis-code" aria-label="diagnosis code"></select></form>
    <div id="diagnoses" class="cards"></div>
    <p class="empty" id="diagnoses-empty">No provider mistakes noticed.</p>
  </section>
  <section id="view-verdicts" class="view" hidden>
    <p class="hint">How each provider's retry logic is judged: six rules, with the notifications and connections each finding rests on. <code>mockapns report</code> prints the same.</p>
    <div id="verdicts"></div>
    <p class="empty" id="verdicts-empty">No provider has connected yet.</p>
  </section>
  <section id="view-scenario" class="view" hidden>
    <div id="scenario-summary"></div>
    <h2>Replace the scenario</h2>
    <p class="hint">Paste a scenario's JSON and replace the active one. Errors are shown at their line and column.</p>
    <textarea id="scenario-text" spellcheck="false" rows="14" placeholder='{"name": "…", "rules": […]}'></textarea>
    <div><button id="scenario-replace">Replace scenario</button></div>
    <div id="scenario-error" class="error" hidden></div>
    <pre id="scenario-excerpt" class="excerpt" hidden></pre>
  </section>
  <section id="view-devices" class="view" hidden>
    <h2>Device tokens</h2>
    <form id="device-form" class="filters" autocomplete="off">
      <input name="token" placeholder="device token (hex)" size="40" required>
      <input name="topic" placeholder="topic (optional)">
      <button type="button" data-action="unregister">Unregister</button>
      <button type="button" data-action="reactivate">Reactivate</button>
      <button type="button" data-action="feedback">Queue feedback</button>
    </form>
    <h3>Feedback waiting</h3>
    <ul id="feedback"></ul>
    <h2>Devices online and offline</h2>
    <p class="hint">Every device is online unless taken offline here, through the control API or by a scenario rule. Offline, one notification per app is stored, the newest, until it expires; coming online delivers it. <span id="delivery-rules"></span></p>
    <form id="device-state-form" class="filters" autocomplete="off">
      <input name="token" placeholder="device token (hex)" size="40">
      <button type="button" data-online="false">Take offline</button>
      <button type="button" data-online="true">Bring online</button>
    </form>
    <div id="device-states"></div>
    <h2>Clock</h2>
    <p>Server time: <strong id="clock-now">…</strong> <span id="clock-mode"></span></p>
    <form id="clock-form" class="filters" autocomplete="off">
      <input name="seconds" placeholder="seconds" size="10">
      <button type="button" data-action="advance">Advance</button>
      <input name="time" placeholder="2026-01-01T00:00:00Z" size="22">
      <button type="button" data-action="set">Set</button>
      <button type="button" data-action="resume" title="The clock runs on from its current reading">Let it run</button>
    </form>
    <div id="devices-result" class="result"></div>
  </section>
</main>
<dialog id="detail">
  <form method="dialog"><button class="close" aria-label="Close">×</button></form>
  <h2 id="detail-title"></h2>
  <div id="detail-body"></div>
</dialog>
<script src="/dashboard/delivery.js"></script>
<script src="/dashboard/app.js"></script>
</body>
</html>
"""#
}
