/// The dashboard's style sheet: system fonts, iOS-like banners for delivered alerts.
enum DashboardStyle {
    static let css = #"""
:root {
  --bg: #eef0f4; --panel: #fff; --ink: #1c1c1e; --muted: #6b6b70; --line: #d8d8de;
  --accent: #0a64d8; --refused: #c62828; --refused-bg: #fdecec; --ok: #1b7f3b;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif;
  font-size: 14px; color: var(--ink);
}
body { margin: 0; background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5em; padding: .6em 1.2em; background: #1c1c1e; color: #fff; }
header h1 { font-size: 1.1em; margin: 0; }
nav button { background: none; border: 0; color: #ccc; font: inherit; padding: .4em .8em; border-radius: 6px; cursor: pointer; }
nav button.selected { background: #3a3a3c; color: #fff; }
.live { margin-left: auto; font-size: .85em; }
.live::before { content: "●"; margin-right: .3em; }
.live.on::before { color: #30d158; }
.live.off::before { color: #ff9f0a; }
#skipped { background: #fff4d6; border-bottom: 1px solid #e6c96b; padding: .5em 1.2em; cursor: pointer; }
main { padding: 1em 1.2em; max-width: 1100px; }
.filters { display: flex; flex-wrap: wrap; gap: .5em; margin-bottom: 1em; }
input, select, textarea, button { font: inherit; }
input, select { padding: .35em .5em; border: 1px solid var(--line); border-radius: 6px; }
button { padding: .35em .8em; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); cursor: pointer; }
.cards { display: flex; flex-direction: column; gap: .6em; }
.empty, .hint { color: var(--muted); }
.banner { background: rgba(255,255,255,.92); border-radius: 14px; padding: .7em .9em; box-shadow: 0 1px 4px rgba(0,0,0,.12); cursor: pointer; max-width: 520px; }
.banner .top { display: flex; justify-content: space-between; color: var(--muted); font-size: .85em; text-transform: uppercase; letter-spacing: .02em; }
.banner .title { font-weight: 600; margin-top: .2em; }
.banner .subtitle { font-weight: 500; }
.banner .body { white-space: pre-wrap; }
.banner .meta { color: var(--muted); font-size: .8em; margin-top: .3em; display: flex; gap: 1em; flex-wrap: wrap; }
.badge { background: #ff3b30; color: #fff; border-radius: 10px; padding: 0 .45em; font-size: .8em; }
.compact { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .45em .8em; cursor: pointer; max-width: 700px; font-size: .9em; display: flex; gap: 1em; flex-wrap: wrap; }
.kind { font-weight: 600; text-transform: uppercase; font-size: .8em; color: var(--accent); }
.banner.broadcast { border-left: 4px solid #5856d6; }
.compact.channel.refused { color: var(--refused); }
.refusal { background: var(--refused-bg); border: 1px solid #f3b7b7; border-left: 4px solid var(--refused); border-radius: 8px; padding: .5em .8em; cursor: pointer; max-width: 700px; }
.refusal .status { color: var(--refused); font-weight: 700; margin-right: .5em; }
.compact .status, .banner .status { color: var(--ok); font-weight: 600; }
.compact.channel.refused .status { color: var(--refused); }
.refusal .reason { font-weight: 600; }
.refusal .meaning, .refusal .meta { color: #5b3b3b; font-size: .9em; }
.refusal .why { font-size: .9em; font-weight: 500; }
.mono, pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; }
pre { background: #f6f6f8; border: 1px solid var(--line); border-radius: 6px; padding: .6em; overflow: auto; max-height: 40vh; }
table { border-collapse: collapse; width: 100%; background: var(--panel); margin-bottom: 1.2em; }
th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
tr.connection { cursor: pointer; }
tr.connection:hover { background: #f3f6fb; }
.closed { color: var(--muted); }
.diagnosis { background: var(--panel); border-left: 4px solid #ff9f0a; border-radius: 6px; padding: .5em .8em; }
.diagnosis .code { font-weight: 600; }
textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, Menlo, monospace; font-size: .85em; border: 1px solid var(--line); border-radius: 6px; padding: .5em; }
.error { color: var(--refused); background: var(--refused-bg); border-radius: 6px; padding: .5em .8em; margin-top: .6em; white-space: pre-wrap; }
.excerpt .at { background: #ffd6d6; display: inline-block; width: 100%; }
.result { margin-top: 1em; }
dialog { width: min(900px, 92vw); border: 0; border-radius: 12px; box-shadow: 0 8px 40px rgba(0,0,0,.3); }
dialog .close { float: right; border: 0; font-size: 1.4em; background: none; }
.frames td { font-family: ui-monospace, Menlo, monospace; font-size: .85em; white-space: nowrap; }
.frames pre { margin: 0; white-space: pre-wrap; word-break: break-all; max-height: none; }
.frames td:last-child { white-space: normal; width: 100%; }
.frames td.problem { white-space: normal; min-width: 10em; }
.hex { overflow-wrap: anywhere; }
.hex .field { border-bottom: 2px solid var(--accent); margin-right: .4em; }
.hex .field.cut { border-bottom-style: dashed; }
.verdict-provider { background: var(--card, #fff); border-radius: 10px; padding: .6em 1em; margin-bottom: 1em; }
.verdict-provider h2 { font-size: 1em; margin: .2em 0; word-break: break-all; }
.rules td { vertical-align: top; padding: .2em .5em; }
.rules .mark { white-space: nowrap; font-weight: 600; }
.rules .pass .mark { color: #1a7f37; }
.rules .fail .mark { color: #c62828; }
.finding { font-size: .9em; color: #555; }
.delivery-state { font-size: .8em; border-radius: 10px; padding: 0 .5em; background: #e8eef9; color: var(--accent); white-space: nowrap; }
.delivery-state.delivered { background: #e3f4e8; color: var(--ok); }
.delivery-state.stored { background: #fff4d6; color: #8a6100; }
.delivery-state.superseded, .delivery-state.collapsed, .delivery-state.expired, .delivery-state.discarded { background: var(--refused-bg); color: var(--refused); }
.delivery-line.delivered td.event { color: var(--ok); }
.delivery-line.superseded td.event, .delivery-line.collapsed td.event, .delivery-line.expired td.event, .delivery-line.discarded td.event { color: var(--refused); }
.delivery-line.openable { cursor: pointer; }
.delivery-notification { background: var(--panel); border-radius: 8px; padding: .5em .8em; margin-bottom: 1em; }
tr.device.offline td:nth-child(2) { color: var(--refused); font-weight: 600; }
"""#
}
