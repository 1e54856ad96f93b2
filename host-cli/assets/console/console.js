// The console of `cargo host dev`. Plain script, no build step: the page is embedded in the
// binary as written. Forms come from the vendored JSON-Schema form library (JSONEditor); every
// value from the server is put in the page as text, never as markup.
"use strict";

const state = {
  manifest: null,
  install: null, // what the install panel holds: { id, scopes, documents, credentials, context }
  entries: new Map(), // timeline entries by id
  editor: null, // the form of the open contribution
  watching: null, // the id of the entry shown under the open form
};

// --- small helpers -----------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  let json = null;
  try { json = await response.json(); } catch (_) { /* not JSON */ }
  if (!response.ok) {
    const why = json && json.error ? `${json.error.code}: ${json.error.message}` : `${response.status} ${response.statusText}`;
    throw new Error(why);
  }
  return json;
}

function slug(text) {
  return String(text).replace(/[^A-Za-z0-9_-]+/g, "-");
}

// --- start -------------------------------------------------------------------------------------

window.addEventListener("DOMContentLoaded", async () => {
  try {
    state.manifest = await api("/api/manifest");
  } catch (e) {
    document.getElementById("server-status").textContent = `The console cannot read the manifest: ${e.message}`;
    return;
  }
  const m = state.manifest;
  state.install = JSON.parse(JSON.stringify(m.install || {}));
  document.getElementById("extension-name").textContent = `${m.extension.name} (${m.extension.id})`;
  document.getElementById("manifest-path").textContent = m.manifest;
  document.title = `${m.extension.name} · cargo host console`;
  drawNav();
  document.getElementById("nav-events").addEventListener("click", (e) => { select(e.currentTarget); showEvents(); });
  document.getElementById("nav-install").addEventListener("click", (e) => { select(e.currentTarget); showInstall(); });
  document.getElementById("nav-outbox").addEventListener("click", (e) => { select(e.currentTarget); showOutbox(); });
  checkServer();
  setInterval(checkServer, 10000);
  connect();
});

async function checkServer() {
  const status = document.getElementById("server-status");
  try {
    const s = await api("/api/server");
    status.textContent = s.ok ? `Vendor server ${s.url}: up (${s.said})` : `Vendor server ${s.url}: ${s.said}. Start it against this local host, or pass --server to cargo host dev.`;
    status.className = s.ok ? "state-pass" : "state-fail";
  } catch (e) {
    status.textContent = `The local host does not answer: ${e.message}`;
    status.className = "state-fail";
  }
}

function drawNav() {
  const list = document.getElementById("nav-contributions");
  list.replaceChildren();
  for (const c of state.manifest.contributions) {
    const name = c.id === null ? c.kind : c.id;
    const button = el("button", {
      type: "button", class: "nav-item", id: `nav-${c.kind}-${slug(name)}`,
      onclick: (e) => { select(e.currentTarget); showContribution(c); },
    }, el("small", { text: c.id === null ? "" : `${c.kind} ` }), name);
    list.append(el("li", {}, button));
  }
}

function select(button) {
  for (const b of document.querySelectorAll(".nav-item")) b.removeAttribute("aria-current");
  button.setAttribute("aria-current", "true");
}

function panel(...children) {
  if (state.editor) { state.editor.destroy(); state.editor = null; }
  state.watching = null;
  const main = document.getElementById("panel");
  main.replaceChildren(...children);
  return main;
}

// --- a contribution's form ---------------------------------------------------------------------

// The form library shows `format: "date-time"` as the browser's local date-time picker, whose value
// has no seconds or zone; such strings are typed as text here and checked by the local host.
// The manifest's schemas reach the page with their properties in name order, so the form puts
// required properties first (each group in name order).
function formSchema(schema) {
  if (Array.isArray(schema)) return schema.map(formSchema);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "format" && v === "date-time") continue;
    out[k] = typeof v === "object" ? formSchema(v) : v;
  }
  if (out.properties && typeof out.properties === "object" && !Array.isArray(out.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const names = Object.keys(out.properties).sort((a, b) => (required.has(b) - required.has(a)) || (a < b ? -1 : 1));
    names.forEach((name, i) => {
      const p = out.properties[name];
      if (p && typeof p === "object" && p.propertyOrder === undefined) p.propertyOrder = i + 1;
    });
  }
  return out;
}

// An optional field left empty is left out, as an owner who typed nothing sends nothing: the form
// shows every property, and an empty text field would otherwise be sent as "".
function prune(value, schema) {
  if (!schema || typeof schema !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => prune(v, schema.items));
  if (value === null || typeof value !== "object") return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties = schema.properties || {};
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || (v === "" && !required.has(k))) continue;
    out[k] = prune(v, properties[k]);
  }
  return out;
}

function showContribution(c) {
  const name = c.id === null ? c.kind : `${c.kind} ${c.id}`;
  const errors = el("div", { id: "form-errors", class: "errors", role: "alert" });
  const result = el("div", { id: "result", "aria-live": "polite" });
  const parts = [
    el("h2", { text: name }),
    c.description ? el("p", { class: "hint", text: c.description }) : null,
    el("p", { class: "hint" }, "Route: ", el("code", { text: c.route || "" }), c.returns ? `, answers a ${c.returns} card` : ""),
  ];
  let query = null;
  let item = null;
  if (c.query) {
    query = el("input", { id: "query", type: "text", "aria-describedby": "query-help" });
    parts.push(el("label", { for: "query", text: "Text typed in the picker (q)" }), query,
      el("p", { id: "query-help", class: "field-help", text: "Sent as the q parameter; empty lists the first items." }));
  }
  if (c.item) {
    item = el("input", { id: "item", type: "text", required: true });
    parts.push(el("label", { for: "item", text: "Work item id" }), item);
  }
  const form = el("div", { id: "form" });
  if (c.schema) parts.push(form);
  const anyway = el("input", { id: "send-invalid", type: "checkbox" });
  const send = el("button", { type: "button", id: "send", class: "primary", text: "Send" });
  parts.push(errors,
    el("div", { class: "row" }, send, anyway, el("label", { for: "send-invalid", text: "send even when the form is invalid (to see the server refuse it)" })),
    result);
  panel(...parts);
  if (c.schema) {
    const schema = formSchema(c.schema);
    if (!schema.title) schema.title = "Input";
    const options = {
      schema,
      theme: "html",
      iconlib: null,
      disable_edit_json: true,
      disable_properties: true,
      disable_collapse: true,
      disable_array_delete_all_rows: true,
      disable_array_delete_last_row: true,
      prompt_before_delete: false,
      // The page lists what is wrong when Send is pressed, after leaving out empty optional
      // fields; the library's own live messages would flag those as invalid.
      show_errors: "never",
      required_by_default: false,
      use_default_values: true,
      keep_oneof_values: false,
    };
    // Given at all, even undefined, a start value replaces the defaults and drops optional fields.
    if (c.example !== undefined && c.example !== null) options.startval = c.example;
    state.editor = new JSONEditor(form, options);
    const focusFirst = () => {
      // The library keeps hidden inputs of its own (a JSON editor, a property picker) first.
      const first = [...form.querySelectorAll("input, select, textarea")].find((e) => e.offsetParent !== null);
      if (first) first.focus();
    };
    // The form is built once the library's loading promise settles; its `ready` event waits for
    // an animation frame, which a page in the background may not get.
    Promise.resolve(state.editor.promise).then(focusFirst, () => {});
  } else if (query) {
    query.focus();
  } else if (item) {
    item.focus();
  } else {
    send.focus();
  }
  send.addEventListener("click", async () => {
    errors.replaceChildren();
    let input;
    if (state.editor) {
      input = prune(state.editor.getValue(), c.schema);
      const problems = state.editor.validate(input);
      if (problems.length > 0) {
        errors.append(el("p", { text: `The input does not match the schema (${problems.length} problem${problems.length === 1 ? "" : "s"}):` }),
          el("ul", {}, problems.map((p) => el("li", { text: `${p.path.replace(/^root\.?/, "") || "(the input)"}: ${p.message}` }))));
        if (!anyway.checked) return;
      }
    }
    if (item && !item.value.trim()) {
      errors.append(el("p", { text: "Name the work item to comment on." }));
      return;
    }
    const body = { kind: c.kind, install: installForm() };
    if (c.id !== null) body.id = c.id;
    if (item) body.id = item.value.trim();
    if (input !== undefined) body.input = input;
    if (query) body.query = query.value;
    send.disabled = true;
    result.replaceChildren(el("p", { text: "Sending…" }));
    try {
      const entry = await api("/api/call", body);
      remember(entry);
      state.watching = entry.id;
      showResult(entry);
    } catch (e) {
      result.replaceChildren(el("p", { class: "errors", text: `The console could not send it: ${e.message}` }));
    } finally {
      send.disabled = false;
    }
  });
}

function installForm() {
  const i = state.install || {};
  return { id: i.id, scopes: i.scopes, documents: i.documents, credentials: i.credentials, context: i.context };
}

// The latest state of the entry the open panel sent, under its form.
function showResult(entry) {
  const result = document.getElementById("result");
  if (!result) return;
  const parts = [el("h3", { text: "Answer" })];
  const summary = el("p", { id: "result-summary", class: entry.outcome === "failed" ? "state-fail" : entry.outcome === "passed" ? "state-pass" : "state-note" });
  const status = entry.answer ? `${entry.answer.status} ${entry.answer.reason || ""}` : "no answer";
  summary.textContent = entry.outcome === "running" ? `Running: ${entry.attempts.length} attempt(s) so far` : `${entry.outcome === "passed" ? "✓ passed" : "✗ failed"}: ${status}${entry.ms !== null && entry.ms !== undefined ? ` in ${entry.ms} ms` : ""}`;
  parts.push(summary);
  if (entry.why) parts.push(el("p", { class: "why", id: "result-why", text: entry.why }));
  parts.push(detail(entry));
  result.replaceChildren(...parts);
}

// --- events ------------------------------------------------------------------------------------

function showEvents() {
  const events = state.manifest.events;
  const select = el("select", { id: "event" }, events.map((e) => el("option", { value: e.name, text: `${e.name}${e.subscribed ? " (subscribed)" : ""}` })));
  const first = events.find((e) => e.subscribed) || events[0];
  if (first) select.value = first.name;
  const payload = el("textarea", { id: "payload", spellcheck: "false", "aria-describedby": "payload-help" });
  const errors = el("div", { id: "payload-errors", class: "errors", role: "alert" });
  const retry = el("input", { id: "retry", type: "checkbox" });
  const scale = el("input", { id: "time-scale", type: "number", min: "1", value: "600", style: "width: 6rem" });
  const deliver = el("button", { type: "button", id: "deliver", class: "primary", text: "Deliver" });
  const fresh = el("button", { type: "button", id: "fresh-example", class: "secondary", text: "New example" });
  const result = el("div", { id: "result", "aria-live": "polite" });
  const fill = () => {
    const e = events.find((x) => x.name === select.value);
    payload.value = pretty(e ? e.example : {});
    errors.replaceChildren();
  };
  fresh.addEventListener("click", async () => {
    try {
      const example = await api("/api/example", { event: select.value, install: { id: state.install.id } });
      payload.value = pretty(example);
    } catch (e) {
      errors.replaceChildren(el("p", { text: e.message }));
    }
  });
  select.addEventListener("change", fill);
  deliver.addEventListener("click", async () => {
    errors.replaceChildren();
    let value;
    try {
      value = JSON.parse(payload.value);
    } catch (e) {
      errors.append(el("p", { text: `The payload is not JSON: ${e.message}` }));
      return;
    }
    deliver.disabled = true;
    try {
      const entry = await api("/api/deliver", {
        event: select.value, payload: value, retry: retry.checked,
        timeScale: Number(scale.value) || 1, install: installForm(),
      });
      remember(entry);
      state.watching = entry.id;
      showResult(entry);
      // The next delivery is another event: a fresh example, as the host would send.
      fresh.click();
    } catch (e) {
      errors.append(el("p", { text: `The console could not deliver it: ${e.message}` }));
    } finally {
      deliver.disabled = false;
    }
  });
  panel(
    el("h2", { text: "Deliver a host event" }),
    el("p", { class: "hint", text: "Posted to your server's POST /host/events with an install token and its own X-Host-Event-Id per attempt. The payload starts as the catalogue's example, made this delivery's own." }),
    el("label", { for: "event", text: "Event" }), select,
    el("label", { for: "payload", text: "Payload (JSON)" }), payload,
    el("p", { id: "payload-help", class: "field-help", text: "Edit freely; a payload that does not read as the event's is still sent, and the checks say so." }),
    errors,
    el("div", { class: "row" }, retry, el("label", { for: "retry", text: "on the host's retry schedule: four attempts, after waits of" }),
      el("span", { text: state.manifest.retryWaitsSeconds.map((s) => `${s} s`).join(", ") }),
      el("label", { for: "time-scale", text: "divided by" }), scale),
    el("div", { class: "row" }, deliver, fresh),
    result,
  );
  fill();
  select.focus();
}

// --- install -----------------------------------------------------------------------------------

function showInstall() {
  const fields = [
    ["scopes", "Scopes granted (a JSON array of scope keys)"],
    ["documents", "Documents (JSON object)"],
    ["credentials", "Credentials (JSON object)"],
    ["context", "Call context (JSON object)"],
  ];
  const id = el("input", { id: "install-id", type: "text", value: state.install.id || "" });
  const errors = el("div", { id: "install-errors", class: "errors", role: "alert" });
  const areas = fields.map(([key, label]) => [key, label, el("textarea", { id: `install-${key}`, spellcheck: "false" })]);
  for (const [key, , area] of areas) area.value = pretty(state.install[key] === undefined ? null : state.install[key]);
  const save = el("button", { type: "button", id: "install-save", class: "primary", text: "Use for every call" });
  const reset = el("button", { type: "button", class: "secondary", text: "Back to the manifest's defaults" });
  const saved = el("p", { id: "install-saved", role: "status" });
  save.addEventListener("click", () => {
    errors.replaceChildren();
    saved.textContent = "";
    const next = { id: id.value.trim() };
    for (const [key, label, area] of areas) {
      try {
        next[key] = JSON.parse(area.value);
      } catch (e) {
        errors.append(el("p", { text: `${label}: not JSON (${e.message})` }));
      }
    }
    if (errors.childElementCount) return;
    if (!Array.isArray(next.scopes) || next.scopes.some((s) => typeof s !== "string")) errors.append(el("p", { text: "Scopes must be an array of scope keys, such as [\"ai:tools\"]." }));
    for (const key of ["documents", "credentials", "context"]) {
      if (next[key] === null || typeof next[key] !== "object" || Array.isArray(next[key])) errors.append(el("p", { text: `${key} must be a JSON object.` }));
    }
    if (errors.childElementCount) return;
    state.install = next;
    saved.textContent = "Saved: the next calls and deliveries use this install.";
  });
  reset.addEventListener("click", () => {
    state.install = JSON.parse(JSON.stringify(state.manifest.install || {}));
    showInstall();
  });
  panel(
    el("h2", { text: "The local install" }),
    el("p", { class: "hint", text: "Every call carries a token minted for this install and these members in its body. The local host checks the scope keys when you send." }),
    el("label", { for: "install-id", text: "Install id" }), id,
    areas.map(([key, label, area]) => [el("label", { for: `install-${key}`, text: label }), area]),
    errors,
    el("div", { class: "row" }, save, reset),
    saved,
  );
  id.focus();
}

// --- outbox ------------------------------------------------------------------------------------

async function showOutbox() {
  const body = el("div", { id: "outbox" }, el("p", { text: "Reading the outbox…" }));
  const refresh = el("button", { type: "button", class: "secondary", id: "outbox-refresh", text: "Refresh" });
  panel(el("h2", { text: "The server's outbox" }),
    el("p", { class: "hint", text: "Events your server keeps until the host takes them: pending ones, and dead letters the host refused or that ran out of retries." }),
    el("div", { class: "row" }, refresh), body);
  const load = async () => {
    let o;
    try {
      o = await api("/api/outbox");
    } catch (e) {
      body.replaceChildren(el("p", { class: "errors", text: e.message }));
      return;
    }
    if (!o.exposed) {
      body.replaceChildren(el("p", { text: o.why }));
      return;
    }
    const table = (name, rows) => [
      el("h3", { text: `${name === "dead" ? "Dead letters" : "Pending"} (${rows.length})` }),
      rows.length === 0 ? el("p", { class: "hint", text: "None." }) : el("table", { class: "checks" },
        el("tr", {}, el("th", { text: "id" }), el("th", { text: "attempts" }), el("th", { text: "due" }), el("th", { text: "last error" }), el("th", { text: "" })),
        rows.map((r) => el("tr", {},
          el("td", { text: r.id }), el("td", { text: r.attempts }), el("td", { text: r.due }), el("td", { text: r.lastError || "" }),
          el("td", {},
            name === "dead" ? el("button", { type: "button", class: "secondary", text: "Retry", onclick: () => change("retry", r.id) }) : null,
            el("button", { type: "button", class: "secondary", text: "Drop", onclick: () => change("drop", r.id) }))))),
    ];
    body.replaceChildren(...table("pending", o.pending), ...table("dead", o.dead));
  };
  const change = async (what, id) => {
    try {
      await api(`/api/outbox/${what}`, { id });
    } catch (e) {
      body.prepend(el("p", { class: "errors", role: "alert", text: e.message }));
      return;
    }
    load();
  };
  refresh.addEventListener("click", load);
  refresh.focus();
  load();
}

// --- the timeline ------------------------------------------------------------------------------

function connect() {
  const status = document.getElementById("stream-status");
  const source = new EventSource("/api/stream");
  source.addEventListener("open", () => { status.textContent = "live"; });
  source.addEventListener("error", () => { status.textContent = "reconnecting…"; });
  source.addEventListener("entry", (e) => {
    try { remember(JSON.parse(e.data)); } catch (_) { /* a malformed change is skipped */ }
  });
  source.addEventListener("reload", async () => {
    const all = await api("/api/timeline");
    for (const entry of all) remember(entry);
  });
}

function remember(entry) {
  state.entries.set(entry.id, entry);
  if (state.watching === entry.id) showResult(entry);
  drawTimeline();
}

const MARKS = { passed: "✓", failed: "✗", running: "…" };
const STATES = { pass: "✓", fail: "✗", note: "!", skip: "–" };

function drawTimeline() {
  const all = [...state.entries.values()].sort((a, b) => b.id - a.id);
  const open = new Set([...document.querySelectorAll(".entry details[open]")].map((d) => d.closest(".entry").dataset.key));
  const failures = all.filter((e) => e.outcome === "failed");
  document.getElementById("failures-block").hidden = failures.length === 0;
  document.getElementById("failures-heading").textContent = `Failures (${failures.length})`;
  document.getElementById("failures").replaceChildren(...failures.map((e) => row(e, "f", open)));
  document.getElementById("timeline").replaceChildren(...all.map((e) => row(e, "t", open)));
}

function row(entry, where, open) {
  const key = `${where}-${entry.id}`;
  const status = entry.kind === "delivery"
    ? `${entry.attempts.length} attempt${entry.attempts.length === 1 ? "" : "s"}`
    : entry.answer ? String(entry.answer.status) : "no answer";
  const summary = el("summary", {},
    el("span", { class: "mark", "aria-label": entry.outcome, text: MARKS[entry.outcome] || "" }), " ",
    el("span", { class: "kind", text: entry.kind }), " ",
    el("strong", { class: "title", text: entry.title }), " ",
    el("span", { class: "status", text: status }),
    entry.ms !== null && entry.ms !== undefined ? el("span", { class: "hint", text: ` ${entry.ms} ms` }) : null,
    entry.why ? el("span", { class: "why", text: entry.why }) : null);
  const details = el("details", { open: open.has(key) }, summary, el("div", { class: "body" }, detail(entry)));
  return el("li", { class: `entry ${entry.outcome}`, id: `entry-${key}`, "data-key": key, "data-id": entry.id, "data-kind": entry.kind, "data-outcome": entry.outcome, "data-title": entry.title }, details);
}

function detail(entry) {
  const box = el("div", { class: "detail" });
  box.append(el("p", { class: "hint", text: `#${entry.id} at ${entry.at}` }));
  if (entry.checks.length) {
    box.append(el("table", { class: "checks" },
      el("tr", {}, el("th", { text: "check" }), el("th", { text: "" }), el("th", { text: "what the local host found" })),
      entry.checks.map((c) => el("tr", { class: `check state-${c.state}`, "data-check": c.name },
        el("td", { text: c.name }), el("td", { "aria-label": c.state, text: STATES[c.state] || c.state }), el("td", { text: c.detail })))));
  }
  if (entry.attempts.length) {
    box.append(el("h4", { text: "Attempts" }), el("ol", { class: "attempts" }, entry.attempts.map((a) =>
      el("li", { text: `${a.eventId} → ${a.status === null ? "no answer" : a.status} ${a.said} in ${a.ms} ms` }))));
  }
  if (entry.related.length) {
    const what = entry.kind === "delivery" ? "Posted back by the server while it ran" : "In reaction to delivery";
    box.append(el("p", {}, `${what}: `, entry.related.map((id, i) => [i ? ", " : "", el("a", { href: `#entry-t-${id}`, text: `#${id}` })])));
  }
  box.append(el("h4", { text: "Request" }), el("pre", { class: "request", text: pretty(entry.request) }));
  if (entry.answer) box.append(el("h4", { text: "Answer" }), el("pre", { class: "answer", text: pretty(entry.answer) }));
  box.append(el("button", {
    type: "button", class: "secondary replay", text: "Replay",
    onclick: async (e) => {
      const button = e.currentTarget;
      button.disabled = true;
      try {
        const again = await api("/api/replay", { id: entry.id });
        remember(again);
      } catch (err) {
        button.after(el("span", { class: "errors", role: "alert", text: ` ${err.message}` }));
      } finally {
        button.disabled = false;
      }
    },
  }));
  return box;
}
