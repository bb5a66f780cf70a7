/*
 * The dashboard's script: follows `GET /v1/events/stream` (resuming after the last event it
 * saw when the stream drops) and renders the views; every change goes through the control API.
 *
 * Every request it makes passes the control API's checks as any client must: it comes from
 * the API's own origin, state changes are sent as `application/json` (with or without a
 * body), and a page opened from another machine sends the control token
 * (the address's `#token=...` fragment: kept in the tab's session storage, taken out of the
 * address bar at once, never shown) as `Authorization: Bearer`. That is also why the stream
 * is read with `fetch` rather than `EventSource`, which cannot send a header.
 */
"use strict";

// ---- Small helpers -------------------------------------------------------------------------

/** Makes an element; strings become text (never HTML), so journal content cannot inject markup. */
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const $ = (id) => document.getElementById(id);
const time = (ms) => new Date(ms).toLocaleTimeString([], { hour12: false }) + "." + String(ms % 1000).padStart(3, "0");
const shortToken = (token) => token ? (token.length > 16 ? token.slice(0, 8) + "…" + token.slice(-6) : token) : "(no token)";

// The control token of a page opened from another machine, if it was given one.
const controlToken = (() => {
  const given = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (given) {
    sessionStorage.setItem("mockapns-control-token", decodeURIComponent(given[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("mockapns-control-token");
})();

function headers() {
  return controlToken ? { authorization: `Bearer ${controlToken}` } : {};
}

async function api(method, path, body) {
  const options = { method, headers: headers() };
  // The control API takes state changes only as JSON, a body or not: no HTML form can send that.
  if (method !== "GET" && method !== "HEAD") options.headers["content-type"] = "application/json";
  if (body !== undefined) options.body = typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(path, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
  return { ok: response.ok, status: response.status, json, text };
}

function pretty(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch (_) { return text; }
}

// ---- State fed by the event stream ---------------------------------------------------------

const state = {
  notifications: [],              // notification, broadcast and channel operation events, oldest first
  connections: new Map(),         // connection id -> summary
  diagnoses: [],                  // diagnosis and TLS failure events
  reasons: new Map(),             // reason -> Apple's meaning
  legacyStatuses: new Map(),      // legacy status byte -> Apple's meaning
  codes: new Map(),               // diagnosis code -> { area, meaning }, from the server
  liveTypes: "",                  // the event kinds followed live: every kind the server says is not per frame
  ports: {},
  lastSequence: 0,
};
const keep = 5000;

function connection(id) {
  if (!state.connections.has(id)) {
    state.connections.set(id, { id, transport: "?", open: true, accepted: 0, refused: 0, tls: null, identity: null });
    // Maps keep insertion order: the first key is the oldest connection.
    if (state.connections.size > keep) state.connections.delete(state.connections.keys().next().value);
  }
  return state.connections.get(id);
}

// The record a push-like event carries: a notification to one device, a broadcast to a
// channel, or a channel management request.
const recordOf = (event) => event.notification || event.broadcast || event.channelOperation;

function take(event) {
  state.lastSequence = Math.max(state.lastSequence, event.seq);
  switch (event.type) {
    case "notification":
    case "broadcast":
    case "channelOperation": {
      state.notifications.push(event);
      if (state.notifications.length > keep) state.notifications.shift();
      if (event.connection) {
        const summary = connection(event.connection);
        const record = recordOf(event);
        if (record.accepted || (event.type === "channelOperation" && record.status < 300)) summary.accepted += 1; else summary.refused += 1;
        const auth = record.authentication || {};
        if (auth.keyId) summary.identity = `token key ${auth.keyId}, team ${auth.teamId || "?"}`;
      }
      break;
    }
    case "connectionOpened": {
      const summary = connection(event.connection);
      Object.assign(summary, { transport: event.transport, peer: event.peer, opened: event.time, open: true });
      break;
    }
    case "connectionClosed": {
      const summary = connection(event.connection);
      Object.assign(summary, { open: false, closed: event.time, closedBy: event.closedBy, reason: event.reason });
      break;
    }
    case "tlsEstablished": {
      const summary = connection(event.connection);
      summary.tls = event;
      if (event.clientCertificateSubject) {
        summary.identity = `certificate ${event.clientCertificateSubject}` + (event.topics && event.topics.length ? ` (topics ${event.topics.join(", ")})` : "");
      }
      break;
    }
    case "tlsFailed":
    case "diagnosis":
      state.diagnoses.push(event);
      if (state.diagnoses.length > keep) state.diagnoses.shift();
      break;
    case "verdict":
      state.verdictsChanged = true;
      break;
    case "delivery":
      takeDelivery(event);
      break;
    default:
      break;
  }
}

// ---- Live stream ---------------------------------------------------------------------------

let renderPending = false;
// The most events the server's stream holds for the page while the page is behind (see `connect`).
const streamBuffer = 500;

function scheduleRender() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => { renderPending = false; render(); });
}

// Reads the stream, which the server pushes events to as they are recorded, until it ends or
// fails, then starts again a second later after the last event seen. The page shows the
// newest few hundred notifications, so it asks the server to hold no more than 500 events for
// it: a burst costs the server at most that much memory and encoding.
async function connect() {
  // A page that has just opened asks for the newest events only: what its first look passes
  // over is history older than it loads, not events it fell behind on.
  let opening = state.lastSequence === 0;
  try {
    // The kinds followed live are the ones the server says are not per frame.
    const types = state.liveTypes ? `type=${state.liveTypes}&` : "";
    const response = await fetch(`/v1/events/stream?${types}buffer=${streamBuffer}&after=${state.lastSequence}`,
      { headers: headers(), cache: "no-store" });
    if (!response.ok || !response.body) throw new Error(`the event stream answered ${response.status}`);
    $("live").className = "live on";
    $("live").textContent = "live";
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += value;
      for (let end = pending.indexOf("\n\n"); end >= 0; end = pending.indexOf("\n\n")) {
        if (receive(pending.slice(0, end), opening)) opening = false;
        pending = pending.slice(end + 2);
      }
    }
  } catch (_) {
    // Reconnect below, as when the stream ends.
  }
  $("live").className = "live off";
  $("live").textContent = "reconnecting…";
  setTimeout(connect, 1000);
}

// One Server-Sent Events message: `event:` and `data:` lines; comment lines (`: idle`) keep
// the connection alive and carry nothing. Says whether it was a journal event.
function receive(message, opening) {
  let type = "message";
  const data = [];
  for (const line of message.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") type = value;
    if (field === "data") data.push(value);
  }
  if (data.length === 0) return false;
  const payload = JSON.parse(data.join("\n"));
  if (type === "skipped") {
    const notice = $("skipped");
    notice.hidden = false;
    notice.title = "Click to dismiss";
    notice.textContent = opening
      ? `${payload.skipped} older events are not shown: the page loads the newest ${streamBuffer} when it opens.`
      : `${payload.skipped} events skipped: the page fell behind and the oldest waiting events were dropped.`;
    return false;
  }
  if (type === "delivered") {
    // How far the delivery model has come: an accepted notification up to it with no
    // delivery record was delivered on arrival (the server derives it; it records no event).
    takeDeliveredThrough(payload.through);
    scheduleRender();
    return false;
  }
  take(payload);
  scheduleRender();
  return true;
}

// ---- Views ---------------------------------------------------------------------------------

let currentView = "notifications";

function showView(name) {
  currentView = name;
  for (const button of document.querySelectorAll("nav button")) button.classList.toggle("selected", button.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== `view-${name}`;
  if (name === "scenario") loadScenario();
  if (name === "devices") { loadClock(); loadFeedback(); loadDevices(); }
  if (name === "verdicts") loadVerdicts();
  render();
}

function render() {
  if (currentView === "notifications") renderNotifications();
  if (currentView === "connections") renderConnections();
  if (currentView === "diagnoses") renderDiagnoses();
  // The report is the server's (GET /v1/report); a new verdict event asks for it again.
  if (currentView === "verdicts" && state.verdictsChanged) loadVerdicts();
  if (currentView === "delivery") renderDeliveryRecent();
  if (currentView === "devices" && delivery.devicesStale) loadDevices();
}

function filters() {
  const form = new FormData($("filters"));
  return {
    token: form.get("token").trim().toLowerCase(),
    topic: form.get("topic").trim().toLowerCase(),
    status: form.get("status").trim(),
    protocol: form.get("protocol"),
  };
}

// A scripted answer's own reason: the `reason` of the body a scenario rule wrote, when it
// names none of Apple's (an Apple reason is in `record.reason` already).
function scriptedReason(record) {
  if (!record.responseBody) return "";
  try {
    const body = JSON.parse(record.responseBody);
    return body && typeof body.reason === "string" ? body.reason : "";
  } catch (_) {
    return "";
  }
}

// What a card shows of its event. The cards are drawn from these values and the filters
// select by them, so a filter selects exactly the cards that show what was typed.
function cardFacts(event) {
  const record = recordOf(event);
  const legacy = record.transport === "legacy";
  const refused = event.type === "channelOperation" ? !(record.status < 300) : !record.accepted;
  // What the client was told: the HTTP status written (Apple's, or a scenario's), or the
  // legacy status packet; nothing when no answer went out (a fault, a legacy acceptance).
  const status = record.status !== undefined ? String(record.status) : record.legacyStatus !== undefined ? String(record.legacyStatus) : "";
  const fault = record.fault ? faultText(record.fault) : "";
  const reason = record.reason || scriptedReason(record) || fault || record.problem || record.undelivered
    || (record.dropped ? "dropped" : "") || (refused ? "refused" : "");
  let meaning = "";
  if (refused) {
    // A legacy client reads only the status byte: its meaning is the cause it was given
    // (status 5 and 8 are both BadDeviceToken, but only 8 speaks of the other environment).
    meaning = legacy && record.legacyStatus !== undefined
      ? [state.legacyStatuses.get(record.legacyStatus), record.problem].filter(Boolean).join(" · ")
      : state.reasons.get(record.reason) || record.problem || record.undelivered || "";
  }
  // Why the credentials were refused, as the server found it (Apple's answer names only the
  // reason): which key id, signature or claim of a provider token, or which certificate.
  const why = refused ? (record.authentication || {}).detail || "" : "";
  return {
    record, refused, status, reason, meaning, why, fault,
    // Broadcasts and channel requests come only over HTTP/2.
    protocol: record.transport || "http2",
    topic: record.topic || record.bundleId || "",
    // Who it went to: a device token, or a broadcast channel.
    target: event.type === "notification" ? record.deviceToken || "" : record.channelId || "",
    pushType: record.pushType || "alert",
  };
}

function matches(facts, wanted) {
  if (wanted.token && !facts.target.toLowerCase().includes(wanted.token)) return false;
  if (wanted.topic && !facts.topic.toLowerCase().includes(wanted.topic)) return false;
  if (wanted.status && facts.status !== wanted.status) return false;
  if (wanted.protocol && facts.protocol !== wanted.protocol) return false;
  return true;
}

function renderNotifications() {
  const wanted = filters();
  const shown = state.notifications.filter((event) => matches(cardFacts(event), wanted)).slice(-300).reverse();
  $("notifications").replaceChildren(...shown.map(notificationCard));
  $("notifications-empty").hidden = shown.length > 0;
}

function parsePayload(record) {
  if (!record.payload) return null;
  try { return JSON.parse(record.payload); } catch (_) { return null; }
}

// Who a push went to, for a card's last line: a device token, or a broadcast channel.
function destination(event, facts) {
  if (event.type === "notification") return shortToken(facts.target);
  return `channel ${shortToken(facts.target)}`;
}

// A scenario fault in wire terms, as the journal records it.
function faultText(fault) {
  switch (fault.type) {
    case "resetStream": return `RST_STREAM ${fault.errorCode}`;
    case "goAway": return `GOAWAY ${fault.errorCode}`;
    case "closeConnection": return "connection closed";
    case "resetConnection": return "connection reset";
    case "stall": return "never answered";
    case "sendGarbage": return `${fault.length} garbage bytes`;
    case "lowerMaxConcurrentStreams": return `MAX_CONCURRENT_STREAMS lowered to ${fault.limit}`;
    case "closeAfterBytes": return `connection closed ${fault.bytes} bytes later`;
    case "shutdown": return "server going away";
    default: return fault.type;
  }
}

// The scenario's part in an answer, for a card's last line.
function scenarioNote(facts) {
  const record = facts.record;
  return [record.rule && `rule "${record.rule}"`, record.accepted && facts.fault && `then ${facts.fault}`,
    record.delayMs && `held ${record.delayMs} ms`, upstreamNote(record.upstream)].filter(Boolean).join(" · ");
}

// Upstream mode: where the answer came from, and MockAPNs' own when it differed.
function upstreamNote(upstream) {
  if (!upstream) return "";
  if (upstream.failureKind) return `upstream gave no answer (${upstream.failureKind})`;
  const own = upstream.ownReason ? `${upstream.ownStatus} ${upstream.ownReason}` : `${upstream.ownStatus}`;
  return `from upstream in ${Math.round(upstream.latencyUs / 1000)} ms` + (upstream.disagrees ? `; MockAPNs would answer ${own}` : "");
}

// An accepted legacy push is answered with silence, so it shows no status: its card says
// which protocol it came by instead (HTTP/2, the usual one, goes unlabelled).
const legacyLabel = (facts) => facts.protocol === "legacy" && el("span", { class: "protocol" }, "legacy");

function notificationCard(event) {
  const facts = cardFacts(event);
  const record = facts.record;
  const open = () => showNotification(event);
  const status = (text) => text && el("span", { class: "status" }, text);
  if (event.type === "channelOperation") {
    return el("div", { class: `card compact channel${facts.refused ? " refused" : ""}`, "data-seq": event.seq, onclick: open },
      el("span", { class: "kind" }, `channel ${record.operation || "request"}`),
      el("span", {}, facts.topic || "(no bundle)"),
      facts.target && el("span", { class: "mono" }, shortToken(facts.target)),
      status(facts.status), facts.refused && el("span", { class: "reason" }, facts.reason),
      el("span", {}, time(event.time)));
  }
  const kindLabel = event.type === "broadcast" ? "broadcast · " : "";
  if (facts.refused) {
    // What the client got: Apple's reason, a scenario's answer, or the fault it carried out instead.
    return el("div", { class: "card refusal", "data-seq": event.seq, onclick: open },
      el("div", {}, status(facts.status), el("span", { class: "reason" }, facts.reason)),
      facts.meaning && el("div", { class: "meaning" }, facts.meaning),
      facts.why && el("div", { class: "why" }, facts.why),
      el("div", { class: "meta" }, [`${kindLabel}${facts.protocol}`, facts.topic || "(no topic)", destination(event, facts),
        scenarioNote(facts), time(event.time)].filter(Boolean).join(" · ")));
  }
  if (facts.protocol === "webPush") return webPushCard(event, facts);
  const payload = parsePayload(record);
  const aps = (payload && payload.aps) || {};
  const note = scenarioNote(facts);
  if (facts.pushType === "alert" && aps.alert !== undefined) {
    const alert = typeof aps.alert === "string" ? { body: aps.alert } : (aps.alert || {});
    const broadcast = event.type === "broadcast";
    return el("div", { class: `card banner${broadcast ? " broadcast" : ""}`, "data-seq": event.seq, onclick: open },
      el("div", { class: "top" }, el("span", {}, kindLabel + (facts.topic || "app")), el("span", {}, time(event.time))),
      alert.title && el("div", { class: "title" }, alert.title),
      alert.subtitle && el("div", { class: "subtitle" }, alert.subtitle),
      alert.body && el("div", { class: "body" }, alert.body),
      el("div", { class: "meta" },
        aps.badge !== undefined && el("span", { class: "badge" }, aps.badge),
        aps.sound !== undefined && el("span", {}, `sound: ${typeof aps.sound === "string" ? aps.sound : JSON.stringify(aps.sound)}`),
        aps["thread-id"] && el("span", {}, `thread: ${aps["thread-id"]}`),
        el("span", {}, destination(event, facts)),
        status(facts.status),
        legacyLabel(facts),
        note && el("span", {}, note),
        deliveryTag(event)));
  }
  return el("div", { class: "card compact", "data-seq": event.seq, onclick: open },
    el("span", { class: "kind" }, kindLabel + facts.pushType),
    el("span", {}, facts.topic || "(no topic)"),
    el("span", { class: "mono" }, destination(event, facts)),
    el("span", {}, `${record.payloadLength} bytes`),
    status(facts.status),
    legacyLabel(facts),
    note && el("span", {}, note),
    el("span", {}, time(event.time)),
    deliveryTag(event));
}

// A web push message as the browser would take it: the notification a person sees when it
// is a Declarative Web Push message, else what the service worker reads.
function webPushCard(event, facts) {
  const record = facts.record;
  const web = record.webPush || {};
  const open = () => showNotification(event);
  const note = scenarioNote(facts);
  const shown = web.notification;
  if (shown) {
    return el("div", { class: "card banner web", "data-seq": event.seq, onclick: open },
      el("div", { class: "top" }, el("span", {}, `web · ${hostOf(shown.navigate)}`), el("span", {}, time(event.time))),
      el("div", { class: "title" }, shown.title),
      shown.body && el("div", { class: "body" }, shown.body),
      el("div", { class: "meta" },
        shown.appBadge !== undefined && el("span", { class: "badge" }, shown.appBadge),
        el("span", {}, `opens ${shown.navigate}`),
        facts.topic && el("span", {}, `topic: ${facts.topic}`),
        el("span", {}, destination(event, facts)),
        statusTag(facts.status),
        note && el("span", {}, note),
        deliveryTag(event)));
  }
  const message = web.message !== undefined ? web.message : web.messageHex !== undefined ? `hex ${web.messageHex}` : "";
  return el("div", { class: "card compact web", "data-seq": event.seq, onclick: open },
    el("span", { class: "kind" }, "web push"),
    facts.topic && el("span", {}, `topic: ${facts.topic}`),
    el("span", { class: "mono" }, destination(event, facts)),
    el("span", { class: web.messageProblem ? "reason" : "mono" },
      web.messageProblem ? `not readable: ${web.messageProblem}` : message ? shortText(message, 80) : "(no message)"),
    web.notificationProblem && el("span", { class: "reason" }, "not valid Declarative Web Push"),
    statusTag(facts.status),
    note && el("span", {}, note),
    el("span", {}, time(event.time)),
    deliveryTag(event));
}

const statusTag = (text) => text && el("span", { class: "status" }, text);
const shortText = (text, length) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

function hostOf(url) {
  try { return new URL(url).host; } catch (_) { return url; }
}

// A details dialog's title: what the push was, where it went and what it was told, e.g.
// "Alert notification · com.example.app → 1a2b3c4d…5e6f70 · 200".
function notificationTitle(event, facts) {
  const record = facts.record;
  let what;
  if (event.type === "channelOperation") what = `Channel ${record.operation || "request"}`;
  else if (event.type === "broadcast") what = `${capitalized(facts.pushType)} broadcast`;
  else if (facts.protocol === "webPush") what = "Web push";
  else if (record.pushType) what = `${capitalized(record.pushType)} notification`;
  else what = facts.protocol === "legacy" ? "Legacy notification" : "Notification";
  const to = event.type === "channelOperation" ? (facts.target && shortToken(facts.target)) : destination(event, facts);
  const outcome = facts.refused ? [facts.status, facts.reason].filter(Boolean).join(" ") : facts.status || "accepted";
  return `${what} · ${facts.topic || "(no topic)"}${to ? ` → ${to}` : ""} · ${outcome}`;
}

const capitalized = (word) => word.charAt(0).toUpperCase() + word.slice(1);

function openDetail(title, ...content) {
  $("detail-title").textContent = title;
  $("detail-body").replaceChildren(...content);
  if (!$("detail").open) $("detail").showModal();
}

// A web push request's own facts for its details dialog: the message as decrypted, the
// notification it shows, and the headers and VAPID claims it came with.
function webPushDetail(web) {
  const parts = [];
  if (web.notification) {
    const shown = web.notification;
    parts.push(el("h3", {}, "Notification (Declarative Web Push)"),
      el("div", { class: "banner web" },
        el("div", { class: "top" }, el("span", {}, `web · ${hostOf(shown.navigate)}`)),
        el("div", { class: "title" }, shown.title),
        shown.body && el("div", { class: "body" }, shown.body),
        el("div", { class: "meta" },
          shown.appBadge !== undefined && el("span", { class: "badge" }, shown.appBadge),
          el("span", {}, `opens ${shown.navigate}`))));
  }
  if (web.notificationProblem) parts.push(el("p", { class: "error" }, `Not a valid Declarative Web Push message: ${web.notificationProblem}`));
  parts.push(el("h3", {}, "Message (decrypted)"));
  if (web.message !== undefined) parts.push(el("pre", { id: "detail-web-message" }, pretty(web.message)));
  else if (web.messageHex !== undefined) parts.push(el("pre", { id: "detail-web-message" }, `hex ${web.messageHex}`));
  else parts.push(el("p", { class: web.messageProblem ? "error" : "hint" }, web.messageProblem || "No message: the request had no body."));
  const vapid = web.vapid || {};
  const rows = [["TTL", web.ttl], ["Urgency", web.urgency], ["Content-Encoding", web.contentEncoding],
    ["VAPID sub", vapid.sub], ["VAPID aud", vapid.aud], ["VAPID exp", vapid.exp], ["VAPID k", vapid.k]]
    .filter(([, value]) => value !== undefined);
  parts.push(el("h3", {}, "Web push"), el("table", {}, rows.map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", { class: "mono" }, String(value))))));
  return parts;
}

async function showNotification(event) {
  const facts = cardFacts(event);
  const record = facts.record;
  const body = el("div", {});
  openDetail(notificationTitle(event, facts), body);
  // A web push's message first, as the browser read it; its encrypted body after.
  if (record.webPush) body.append(...webPushDetail(record.webPush));
  if (record.payload !== undefined || record.payloadHex !== undefined) {
    const label = record.transport === "webPush" ? "Body as sent (encrypted, aes128gcm)" : "Payload";
    body.append(el("h3", {}, label), el("pre", { id: "detail-payload" }, record.payload !== undefined ? pretty(record.payload) : `hex ${record.payloadHex}`));
  }
  if (["http2", "webPush"].includes(record.transport || "http2") && event.connection && event.stream) {
    const reply = await api("GET", `/v1/events?connection=${event.connection}&stream=${event.stream}&type=http2Frame`);
    const frames = (reply.json && reply.json.events) || [];
    const headerFrames = frames.filter((frame) => frame.frameType === "HEADERS");
    body.append(el("h3", {}, "Headers"));
    for (const frame of headerFrames) {
      body.append(el("p", { class: "hint" }, frame.direction === "inbound" ? "request" : "response"),
        el("table", {}, (frame.headers || []).map(([name, value]) => el("tr", {}, el("th", { class: "mono" }, name), el("td", { class: "mono" }, value)))));
    }
    if (headerFrames.length === 0) body.append(el("p", { class: "hint" }, "No header frames are in the journal (frame recording may be off)."));
  }
  if (event.type === "notification" && record.accepted) {
    const log = el("div", { id: "detail-delivery" });
    body.append(el("h3", {}, "Delivery log"), log);
    loadDeliveryLog(String(event.seq), log);
  }
  body.append(el("h3", {}, "Record"), el("pre", {}, JSON.stringify(event, null, 2)));
}

function renderConnections() {
  const byTransport = new Map();
  for (const summary of [...state.connections.values()].reverse()) {
    if (!byTransport.has(summary.transport)) byTransport.set(summary.transport, []);
    byTransport.get(summary.transport).push(summary);
  }
  const sections = [];
  for (const [transport, list] of byTransport) {
    const port = { http2: state.ports.http2, legacy: state.ports.gateway, feedback: state.ports.feedback }[transport];
    sections.push(el("h2", {}, `${transport}${port ? ` — port ${port}` : ""}`),
      el("table", {},
        el("tr", {}, ["#", "state", "peer", "TLS", "ALPN", "identity", "accepted", "refused"].map((name) => el("th", {}, name))),
        list.slice(0, 200).map((summary) => el("tr", { class: `connection ${summary.open ? "" : "closed"}`, "data-connection": summary.id, onclick: () => showFrames(summary) },
          el("td", {}, summary.id),
          el("td", {}, summary.open ? "open" : `closed by ${summary.closedBy || "?"}${summary.reason ? ` (${summary.reason})` : ""}`),
          el("td", { class: "mono" }, summary.peer || ""),
          el("td", {}, summary.tls ? summary.tls.version : ""),
          el("td", {}, summary.tls ? summary.tls.alpn || "" : ""),
          el("td", {}, summary.identity || ""),
          el("td", {}, summary.accepted),
          el("td", {}, summary.refused)))));
  }
  if (sections.length === 0) sections.push(el("p", { class: "empty" }, "No connections yet."));
  $("connections").replaceChildren(...sections);
}

/**
 * The fields of a legacy gateway frame, marked over its hex (commands 0, 1 and 2), and the
 * frame's whole length when its header says it. The journal keeps only a malformed frame's
 * first bytes, so a field the kept bytes end inside says how much of it is there.
 */
function legacyFields(hex) {
  const bytes = hex.match(/../g) || [];
  const fields = [];
  let at = 0;
  const field = (name, length) => {
    if (at >= bytes.length) return null;
    const part = bytes.slice(at, at + length);
    fields.push({ name, hex: part.join(" "), cut: part.length < length ? `${part.length} of ${length} bytes kept` : "" });
    at += part.length;
    return part.length < length ? null : parseInt(part.join(""), 16);
  };
  let length;
  const command = field("command", 1);
  if (command === 0 || command === 1) {
    if (command === 1) { field("identifier", 4); field("expiry", 4); }
    const tokenLength = field("token length", 2);
    field("device token", tokenLength || 0);
    const payloadLength = field("payload length", 2);
    field("payload", payloadLength || 0);
    if (tokenLength !== null && payloadLength !== null) length = (command === 1 ? 9 : 1) + 2 + tokenLength + 2 + payloadLength;
  } else if (command === 2) {
    const frameLength = field("frame length", 4);
    if (frameLength !== null) length = 5 + frameLength;
    while (at < bytes.length && (length === undefined || at < length)) {
      const item = field("item id", 1);
      const itemLength = field("item length", 2);
      field(["", "device token", "payload", "identifier", "expiry", "priority"][item] || `item ${item}`, itemLength || 0);
    }
  }
  if (at < bytes.length) fields.push({ name: "rest", hex: bytes.slice(at).join(" "), cut: "" });
  return { fields, length };
}

// How long a legacy frame was, as far as the journal says.
function legacyLength(event, read) {
  const kept = event.rawHex ? event.rawHex.length / 2 : 0;
  const length = event.frameLength ?? (read && read.length);
  if (length === undefined) return kept ? `${kept} bytes kept` : "";
  return kept && kept < length ? `${length} bytes (first ${kept} kept)` : `${length} bytes`;
}

const transportNames = { http2: "HTTP/2", legacy: "legacy gateway", feedback: "legacy feedback" };

async function showFrames(summary) {
  const body = el("div", {}, el("p", { class: "hint" }, "Loading frames…"));
  openDetail(`Frames of the ${transportNames[summary.transport] || summary.transport} connection from ${summary.peer || "an unknown peer"}`, body);
  const reply = await api("GET", `/v1/events?connection=${summary.id}&limit=5000`);
  const events = (reply.json && reply.json.events) || [];
  const rows = events.map((event) => {
    if (event.type === "http2Frame") {
      const detail = event.headers ? event.headers.map(([name, value]) => `${name}: ${value}`).join("\n")
        : event.settings ? JSON.stringify(event.settings) : event.errorCode !== undefined ? `error ${event.errorCode}`
        : event.increment !== undefined ? `increment ${event.increment}` : event.opaqueDataHex || "";
      return el("tr", { class: "frame" }, el("td", {}, event.seq), el("td", {}, event.direction), el("td", { class: "frame-type" }, event.frameType),
        el("td", {}, `flags 0x${(event.flags || 0).toString(16)}`), el("td", {}, `stream ${event.stream ?? 0}`), el("td", {}, `${event.length} bytes`),
        el("td", {}, detail && el("pre", {}, detail)));
    }
    if (event.type === "legacyFrame") {
      // The journal keeps a frame's bytes only when they were malformed: those are shown as
      // hex with the fields marked; a well-formed frame shows the fields the server read.
      const read = event.rawHex ? legacyFields(event.rawHex) : null;
      const parts = read ? read.fields
        : [["command", event.command], ["frame length", event.frameLength], ["identifier", event.identifier],
          ["device token", event.deviceToken], ["payload length", event.payloadLength]]
          .filter(([, value]) => value !== undefined).map(([name, value]) => ({ name, hex: String(value), cut: "" }));
      const hex = el("div", { class: "hex mono" }, parts.map((part) => el("span", { class: `field${part.cut ? " cut" : ""}`, title: part.name },
        `${part.name}: ${part.hex}${part.cut ? ` … (${part.cut})` : ""}`)));
      return el("tr", { class: "frame" }, el("td", {}, event.seq), el("td", {}, "in"), el("td", { class: "frame-type" }, `command ${event.command}`),
        el("td", {}, event.identifier !== undefined ? `id ${event.identifier}` : ""), el("td", { class: "problem" }, event.problem || ""),
        el("td", { class: "length" }, legacyLength(event, read)), el("td", {}, hex));
    }
    return el("tr", {}, el("td", {}, event.seq), el("td", { colspan: 6 }, `${event.type} ${event.reason || event.version || event.description || ""}`));
  });
  body.replaceChildren(el("table", { class: "frames" }, rows));
}

// The diagnosis filter offers every code the server can record, by area, as it lists them.
function fillDiagnosisFilter() {
  const groups = new Map();
  for (const [code, about] of state.codes) {
    if (!groups.has(about.area)) groups.set(about.area, []);
    groups.get(about.area).push(el("option", { value: code, title: about.meaning }, code));
  }
  $("diagnosis-code").replaceChildren(el("option", { value: "" }, "every diagnosis"), el("option", { value: "tlsFailed" }, "TLS handshake failures"),
    ...[...groups].map(([area, options]) => el("optgroup", { label: area }, options)));
}

function renderDiagnoses() {
  const wanted = $("diagnosis-code").value;
  const shown = state.diagnoses
    .filter((event) => !wanted || (wanted === "tlsFailed" ? event.type === "tlsFailed" : event.code === wanted))
    .slice(-300).reverse();
  $("diagnoses").replaceChildren(...shown.map((event) => el("div", { class: "diagnosis", "data-code": event.code || event.type },
    el("div", {}, el("span", { class: "code", title: event.code ? (state.codes.get(event.code) || {}).meaning : undefined },
      event.type === "tlsFailed" ? "TLS handshake failed" : event.code),
      ` · connection ${event.connection ?? "-"} · ${time(event.time)}`),
    el("div", {}, event.type === "tlsFailed" ? `${event.reason}${event.alertSent ? ` (alert sent: ${event.alertSent})` : ""}` : event.message),
    event.figures && el("div", { class: "mono" }, Object.entries(event.figures).map(([name, value]) => `${name} ${value}`).join(" · ")))));
  $("diagnoses-empty").hidden = shown.length > 0;
}

// ---- Verdicts -------------------------------------------------------------------------------

async function loadVerdicts() {
  state.verdictsChanged = false;
  const reply = await api("GET", "/v1/report");
  const report = reply.json;
  if (!reply.ok || !report) {
    $("verdicts").replaceChildren(el("p", { class: "error" }, (report && report.error) || `GET /v1/report answered ${reply.status}`));
    $("verdicts-empty").hidden = true;
    return;
  }
  $("verdicts").replaceChildren(...report.providers.map((provider) => {
    const tally = provider.notifications;
    const delays = provider.retryDelays;
    return el("div", { class: "verdict-provider" },
      el("h2", {}, provider.provider.name),
      el("p", { class: "headline" }, `Of ${tally.tried} notifications tried, ${tally.acceptedAtOnce} accepted at once, ` +
        `${tally.acceptedAfterRetries} after retries, ${tally.refused} refused, ${tally.lost} lost ` +
        `· ${provider.connections} connection${provider.connections === 1 ? "" : "s"}` +
        (delays.count ? ` · retry delays ${delays.minimumMilliseconds}–${delays.maximumMilliseconds} ms (median ${delays.medianMilliseconds})` : "")),
      el("table", { class: "rules" }, provider.rules.map((rule) => el("tr", { class: rule.passed ? "pass" : "fail" },
        el("td", { class: "mark" }, rule.passed ? "PASS" : `FAIL (${rule.findings})`),
        el("td", {}, el("div", {}, el("strong", {}, rule.rule), ` ${rule.title}`),
          rule.examples.slice(0, 5).map((example) => el("div", { class: "finding" }, example.message,
            example.notifications.length ? el("span", { class: "mono" }, ` ${example.notifications.map((seq) => `#${seq}`).join(" ")}`) : null)))))));
  }));
  $("verdicts-empty").hidden = report.providers.length > 0;
}

// ---- Scenario ------------------------------------------------------------------------------

async function loadScenario() {
  const reply = await api("GET", "/v1/scenario");
  const scenario = reply.json || {};
  // Every value as the server wrote it: the seed is a string of digits, because a 64-bit
  // seed is past the integers a JavaScript number holds exactly, and a run is reproduced
  // only with the exact seed.
  const rows = [["description", scenario.description], ["seed", scenario.seed], ["rules", scenario.rules],
    ["initial state", scenario.initialState], ["current state", scenario.state], ["requests numbered", scenario.requests]]
    .filter(([, value]) => value !== undefined && value !== null);
  const parts = [el("h2", {}, `Active scenario: ${scenario.name || "(unnamed)"}`),
    el("table", { class: "scenario" }, rows.map(([key, value]) => el("tr", { "data-key": key }, el("th", {}, key), el("td", { class: "mono" }, String(value)))))];
  const firings = scenario.firings || [];
  if (firings.length) {
    parts.push(el("h3", {}, "Rules"), el("table", { class: "firings" },
      el("tr", {}, ["rule", "fired", "limit"].map((name) => el("th", {}, name))),
      firings.map((rule) => el("tr", {}, el("td", {}, rule.rule || "(unnamed)"), el("td", {}, rule.fired),
        el("td", {}, rule.times === undefined ? "unlimited" : rule.times)))));
  }
  $("scenario-summary").replaceChildren(...parts);
}

async function replaceScenario() {
  const text = $("scenario-text").value;
  const reply = await api("PUT", "/v1/scenario", text);
  const error = $("scenario-error");
  const excerpt = $("scenario-excerpt");
  if (reply.ok) {
    error.hidden = true;
    excerpt.hidden = true;
    loadScenario();
    return;
  }
  const message = (reply.json && reply.json.error) || reply.text;
  const where = /line (\d+), column (\d+)/.exec(message);
  error.hidden = false;
  error.textContent = where ? `Line ${where[1]}, column ${where[2]}: ${message}` : message;
  excerpt.hidden = !where;
  if (where) {
    const line = Number(where[1]);
    const lines = text.split("\n");
    const from = Math.max(1, line - 2);
    const shown = lines.slice(from - 1, line + 2).map((content, index) => {
      const number = from + index;
      const row = `${String(number).padStart(4)} | ${content}`;
      return number === line ? el("span", { class: "at" }, row + "\n" + " ".repeat(6 + Number(where[2])) + "^") : row;
    });
    excerpt.replaceChildren(...shown.flatMap((row) => [row, "\n"]));
  }
}

// ---- Devices and clock ---------------------------------------------------------------------

// Says in the result area what is missing, instead of sending a request that cannot succeed.
function missing(what) {
  $("devices-result").replaceChildren(el("div", { class: "error" }, what));
}

function showResult(reply) {
  $("devices-result").replaceChildren(reply.ok
    ? el("pre", {}, JSON.stringify(reply.json, null, 2))
    : el("div", { class: "error" }, (reply.json && reply.json.error) || reply.text));
}

async function deviceAction(action) {
  const form = new FormData($("device-form"));
  const token = form.get("token").trim();
  const topic = form.get("topic").trim();
  if (!token) return missing("Enter a device token first.");
  let reply;
  if (action === "unregister") reply = await api("POST", `/v1/registry/${encodeURIComponent(token)}/unregister`, topic ? { topic } : "");
  if (action === "reactivate") reply = await api("POST", `/v1/registry/${encodeURIComponent(token)}/reactivate`);
  if (action === "feedback") reply = await api("POST", "/v1/feedback", topic ? { deviceToken: token, topic } : { deviceToken: token });
  showResult(reply);
  loadFeedback();
}

async function loadFeedback() {
  const reply = await api("GET", "/v1/feedback");
  const entries = (reply.json && reply.json.feedback) || [];
  $("feedback").replaceChildren(...(entries.length ? entries.map((entry) => el("li", { class: "mono" },
    `${entry.deviceToken} ${entry.topic || ""} since ${new Date(entry.timestamp).toISOString()}`)) : [el("li", { class: "empty" }, "none")]));
}

// A span of time in its two largest units: "1 h 30 min", "45 s", "3 d 4 h".
function span(milliseconds) {
  const units = [["d", 86400000], ["h", 3600000], ["min", 60000], ["s", 1000]];
  const parts = [];
  // Whole seconds: reading the clock takes a moment, so an offset may be a millisecond short.
  let rest = Math.round(Math.abs(milliseconds) / 1000) * 1000;
  for (const [name, size] of units) {
    if (parts.length === 2) break;
    if (rest >= size || parts.length) parts.push(`${Math.floor(rest / size)} ${name}`);
    rest %= size;
  }
  return parts.filter((part) => !part.startsWith("0 ")).join(" ") || "0 s";
}

// The clock as the server last reported it; a running clock is shown ticking on from it.
const clockState = { reading: null, readAt: 0, running: false, timer: null };

function showClockReading() {
  const now = clockState.reading + Math.round(performance.now() - clockState.readAt);
  $("clock-now").textContent = new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z");
}

async function loadClock() {
  const reply = await api("GET", "/v1/clock");
  if (!reply.json) return;
  const clock = reply.json;
  const offset = clock.offsetMilliseconds;
  Object.assign(clockState, { reading: clock.millisecondsSince1970, readAt: performance.now(), running: !clock.fixed });
  $("clock-now").textContent = clock.time;
  // Within a second of real time counts as real time: the requests themselves take some.
  $("clock-mode").textContent = clock.fixed ? "(pinned: moves only when set or advanced)"
    : offset === undefined || Math.abs(offset) < 1000 ? "(running, real time)"
    : `(running, ${span(offset)} ${offset > 0 ? "ahead of" : "behind"} real time)`;
  clearInterval(clockState.timer);
  clockState.timer = clockState.running ? setInterval(() => {
    if (currentView === "devices") showClockReading(); else clearInterval(clockState.timer);
  }, 1000) : null;
}

async function clockAction(action) {
  const form = new FormData($("clock-form"));
  const seconds = form.get("seconds").trim();
  const when = form.get("time").trim();
  if (action === "advance" && !(seconds && Number.isFinite(Number(seconds)))) return missing("Enter how many seconds to advance the clock (negative: back).");
  if (action === "set" && !when) return missing("Enter the time to set, like 2026-01-01T00:00:00Z.");
  let reply;
  if (action === "advance") reply = await api("POST", "/v1/clock/advance", { milliseconds: Math.round(Number(seconds) * 1000) });
  if (action === "set") reply = await api("PUT", "/v1/clock", { time: when });
  if (action === "resume") reply = await api("POST", "/v1/clock/resume");
  showResult(reply);
  loadClock();
}

// ---- Start ---------------------------------------------------------------------------------

async function start() {
  for (const button of document.querySelectorAll("nav button")) button.addEventListener("click", () => showView(button.dataset.view));
  $("filters").addEventListener("input", renderNotifications);
  // A select changed by a script fires only `change`.
  $("filters").addEventListener("change", renderNotifications);
  $("filters").addEventListener("submit", (event) => event.preventDefault());
  $("scenario-replace").addEventListener("click", replaceScenario);
  for (const button of document.querySelectorAll("#device-form button")) button.addEventListener("click", () => deviceAction(button.dataset.action));
  for (const button of document.querySelectorAll("#clock-form button")) button.addEventListener("click", () => clockAction(button.dataset.action));
  startDelivery();
  $("diagnosis-code").addEventListener("change", renderDiagnoses);
  $("skipped").addEventListener("click", () => { $("skipped").hidden = true; });
  const [reasons, ports, kinds, codes] = await Promise.all(
    [api("GET", "/v1/reasons"), api("GET", "/v1/ports"), api("GET", "/v1/event-kinds"), api("GET", "/v1/diagnosis-codes")]);
  for (const entry of (reasons.json && reasons.json.reasons) || []) state.reasons.set(entry.reason, entry.meaning);
  for (const entry of (reasons.json && reasons.json.legacyStatuses) || []) state.legacyStatuses.set(entry.status, entry.meaning);
  for (const entry of (codes.json && codes.json.codes) || []) state.codes.set(entry.code, { area: entry.area, meaning: entry.meaning });
  // Frames come many per request; the page reads them per connection when asked instead.
  state.liveTypes = ((kinds.json && kinds.json.kinds) || []).filter((kind) => !kind.perFrame).map((kind) => kind.name).join(",");
  fillDiagnosisFilter();
  state.ports = ports.json || {};
  connect();
  render();
}

start();
