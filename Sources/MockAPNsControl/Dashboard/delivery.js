/*
 * The dashboard's delivery parts: each card's delivery state, the delivery log (as Apple's
 * Push Notifications Console shows it for an `apns-unique-id`), and the devices online and
 * offline. Loaded before `app.js`, whose helpers (`el`, `$`, `api`, `time`, `shortToken`)
 * its functions use when called.
 */
"use strict";

// ---- Delivery state fed by the event stream -------------------------------------------------

const delivery = {
  latest: new Map(),   // notification sequence -> its newest delivery record
  recent: [],          // delivery events, oldest first
  through: 0,          // the delivery model has taken in every notification up to this sequence
  devicesStale: true,
};

// A delivery on arrival (an online device holding nothing) is not a journal event: the stream
// says how far the model has come, and a notification up to there with no record of its own
// was delivered when it arrived.
function takeDeliveredThrough(through) {
  if (through > delivery.through) delivery.through = through;
}

function takeDelivery(event) {
  const record = event.delivery;
  if (record.notification !== undefined) {
    delivery.latest.delete(record.notification);
    delivery.latest.set(record.notification, record);
    // Maps keep insertion order: the first key is the oldest notification.
    if (delivery.latest.size > keep) delivery.latest.delete(delivery.latest.keys().next().value);
  }
  delivery.recent.push(event);
  if (delivery.recent.length > keep) delivery.recent.shift();
  delivery.devicesStale = true;
}

// A card's delivery state in the console's words: "Delivered to Device", "Stored - Device Offline"...
function deliveryTag(event) {
  if (event.type !== "notification" || !event.notification.accepted || event.notification.dropped) return null;
  const record = delivery.latest.get(event.seq);
  const onArrival = !record && event.seq <= delivery.through;
  const step = record ? record.step : onArrival ? "delivered" : "accepted";
  return el("span", { class: `delivery-state ${step}`, title: "Delivery state (open the card for its delivery log)" },
    record ? record.console : onArrival ? "Delivered to Device" : "Received by APNs");
}

// ---- Delivery log --------------------------------------------------------------------------

function deliveryRows(notification) {
  return el("table", { class: "delivery-log" },
    el("tr", {}, ["time", "event", "detail"].map((name) => el("th", {}, name))),
    notification.timeline.map((line) => el("tr", { class: `delivery-line ${line.step}` },
      el("td", { class: "mono" }, time(line.at)),
      el("td", { class: "event" }, line.console),
      el("td", {}, [
        line.until !== undefined ? `until ${new Date(line.until).toISOString()}` : "",
        line.replacedBy !== undefined ? `replaced by notification #${line.replacedBy}` : "",
      ].filter(Boolean).join(" · ")))));
}

function deliveryNotification(notification) {
  const ids = [
    notification.uniqueId && `apns-unique-id ${notification.uniqueId}`,
    notification.apnsId && `apns-id ${notification.apnsId}`,
    `notification #${notification.notification}`,
  ].filter(Boolean).join(" · ");
  const parts = [el("h3", {}, `${notification.topic || "(no topic)"} → ${shortToken(notification.deviceToken)}`),
    el("p", { class: "hint mono" }, ids)];
  if (!notification.accepted) {
    parts.push(el("p", {}, `Refused (${notification.status ?? ""} ${notification.reason || ""}): it never entered delivery.`));
  } else {
    parts.push(deliveryRows(notification));
  }
  return el("div", { class: "delivery-notification" }, parts);
}

// The log of one id, into `target`.
async function loadDeliveryLog(id, target) {
  target.replaceChildren(el("p", { class: "hint" }, "Looking up…"));
  const reply = await api("GET", `/v1/delivery/${encodeURIComponent(id)}`);
  if (!reply.ok) {
    target.replaceChildren(el("p", { class: "empty" }, (reply.json && reply.json.error) || reply.text));
    return;
  }
  target.replaceChildren(...reply.json.notifications.map(deliveryNotification));
}

async function searchDelivery(event) {
  event.preventDefault();
  const id = new FormData($("delivery-form")).get("id").trim();
  if (!id) return;
  $("delivery-empty").hidden = true;
  await loadDeliveryLog(id, $("delivery-log"));
}

function renderDeliveryRecent() {
  const shown = delivery.recent.slice(-200).reverse();
  $("delivery-recent").replaceChildren(...(shown.length ? [el("table", {},
    el("tr", {}, ["time", "device", "notification", "event"].map((name) => el("th", {}, name))),
    shown.map((event) => {
      const record = event.delivery;
      const open = record.notification !== undefined
        ? () => { $("delivery-form").elements.id.value = String(record.notification); loadDeliveryLog(String(record.notification), $("delivery-log")); $("delivery-empty").hidden = true; }
        : undefined;
      return el("tr", { class: `delivery-line ${record.step}${open ? " openable" : ""}`, onclick: open },
        el("td", { class: "mono" }, time(record.at)),
        el("td", { class: "mono" }, shortToken(record.deviceToken)),
        el("td", {}, record.notification !== undefined ? `#${record.notification}` : ""),
        el("td", { class: "event" }, record.console + (record.rule ? ` (rule "${record.rule}")` : "")));
    }))] : [el("p", { class: "empty" }, "Nothing stored, held, discarded or delivered from storage yet (a delivery on arrival, the usual case, shows on its card and in its log).")]));
}

// ---- Devices online and offline -------------------------------------------------------------

function keptList(list, label) {
  if (!list.length) return "";
  return el("div", {}, el("span", { class: "hint" }, label), el("ul", {}, list.map((kept) => el("li", { class: "mono" },
    `#${kept.notification} ${kept.bundleId || "(no app)"}${kept.collapseId ? ` collapse-id ${kept.collapseId}` : ""} until ${new Date(kept.expiresAt).toISOString()}`))));
}

async function loadDevices() {
  delivery.devicesStale = false;
  const reply = await api("GET", "/v1/devices");
  if (!reply.json) return;
  const devices = reply.json.devices || [];
  const rows = devices.map((device) => el("tr", { class: `device ${device.online ? "online" : "offline"}`, "data-token": device.deviceToken },
    el("td", { class: "mono" }, device.deviceToken),
    el("td", {}, device.online ? "online" : "offline"),
    el("td", {}, keptList(device.stored, "stored"), keptList(device.held, `held until ${device.batchReleaseAt ? time(device.batchReleaseAt) : "?"}`)),
    el("td", {}, el("button", { type: "button", onclick: () => changeDevice(device.deviceToken, !device.online) }, device.online ? "Take offline" : "Bring online"))));
  $("device-states").replaceChildren(devices.length
    ? el("table", {}, el("tr", {}, ["device token", "state", "waiting", ""].map((name) => el("th", {}, name))), rows)
    : el("p", { class: "empty" }, "Every device is online with nothing waiting."));
  $("delivery-rules").textContent = `Batch delay ${reply.json.batchDelayMilliseconds} ms · storage limit ${Math.round(reply.json.maximumStorageMilliseconds / 86400000)} days`;
}

async function changeDevice(token, online) {
  const reply = await api("PUT", `/v1/devices/${encodeURIComponent(token)}`, { online });
  showResult(reply);
  loadDevices();
}

function deviceStateAction(online) {
  const token = new FormData($("device-state-form")).get("token").trim();
  if (!token) return missing("Enter a device token first.");
  return changeDevice(token, online);
}

function startDelivery() {
  $("delivery-form").addEventListener("submit", searchDelivery);
  for (const button of document.querySelectorAll("#device-state-form button")) {
    button.addEventListener("click", () => deviceStateAction(button.dataset.online === "true"));
  }
}
