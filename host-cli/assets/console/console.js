// The console of `cargo host dev`. Plain script, no build step: the page is embedded in the binary
// as written. Forms come from form.js. Every string from the manifest or the server is put in the
// page as text (textContent, attribute values), never as markup, and the page's
// Content-Security-Policy runs no script but these two files.
//
// Inputs are judged by the local host (`/api/check/*`), which runs the runtime's own validator, so
// the page and the server cannot disagree about what is valid.
"use strict";

const state = {
  manifest: null,
  install: null, // what every call carries: { id, scopes, documents, credentials, context }
  entries: new Map(), // timeline entries by id
  watching: null, // the id of the entry shown under the open panel
  filters: { kind: "", outcome: "", name: "" },
};

// --- small helpers -----------------------------------------------------------------------------

// The element builder form.js uses: attributes and text set as such, never parsed as markup.
const el = SchemaForm.el;

function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

// A block of JSON or text: focusable, so a keyboard can scroll it.
function block(label, value, cls) {
  return el("pre", { class: cls, tabindex: "0", role: "region", "aria-label": label, text: pretty(value) });
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

function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
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
  setUpFilters();
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

const KIND_NAMES = {
  tool: "Tool", action: "Action", procedure: "Procedure", mention: "Mention", context: "Context provider",
  sync: "Connector sync", "work-containers": "Work containers", "work-item": "New work item", "work-comment": "Work comment",
};

function contributionName(c) {
  return c.id === null ? KIND_NAMES[c.kind] || c.kind : `${KIND_NAMES[c.kind] || c.kind} ${c.id}`;
}

function drawNav() {
  const list = document.getElementById("nav-contributions");
  list.replaceChildren();
  for (const c of state.manifest.contributions) {
    const name = c.id === null ? c.kind : c.id;
    const button = el("button", {
      type: "button", class: "nav-item", id: `nav-${c.kind}-${slug(name)}`,
      onclick: (e) => { select(e.currentTarget); showContribution(c); },
    }, c.id === null ? KIND_NAMES[c.kind] || c.kind : [el("small", { text: `${(KIND_NAMES[c.kind] || c.kind).toLowerCase()} ` }), c.id]);
    list.append(el("li", {}, button));
  }
}

function select(button) {
  for (const b of document.querySelectorAll(".nav-item")) b.removeAttribute("aria-current");
  button.setAttribute("aria-current", "page");
}

// Shows `children` (any nesting of nodes) as the open panel.
function panel(...children) {
  state.watching = null;
  const main = document.getElementById("panel");
  main.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return main;
}

// The local host's verdict on an input, drawn as two lists: what the host refuses, and what it
// lets through although the host would never send it (a `format` it does not check).
function drawJudged(box, judged, { what }) {
  const parts = [];
  if (judged.errors.length) {
    parts.push(el("p", { class: "state-fail", text: `The host would refuse ${what} (${judged.errors.length} problem${judged.errors.length === 1 ? "" : "s"}):` }),
      el("ul", { class: "problems" }, judged.errors.map((p) => el("li", { "data-at": p.at }, el("code", { text: p.at }), ` ${p.message}`))));
  }
  if (judged.warnings.length) {
    parts.push(el("p", { class: "state-note", text: "Not checked by the runtime, but not what the host sends:" }),
      el("ul", { class: "warnings" }, judged.warnings.map((p) => el("li", { "data-at": p.at }, el("code", { text: p.at }), ` ${p.message}`))));
  }
  if (!parts.length) parts.push(el("p", { class: "state-pass", text: `✓ The host would accept ${what}.` }));
  box.replaceChildren(...parts);
}

// --- a contribution's form ---------------------------------------------------------------------

function showContribution(c) {
  const name = contributionName(c);
  const result = el("div", { id: "result", "aria-live": "polite" });
  const judgedBox = el("div", { id: "form-check", class: "judged", role: "status", "aria-live": "polite" });
  const blocked = el("div", { id: "form-errors", class: "errors", role: "alert" });
  const parts = [
    el("h2", { text: name }),
    c.description ? el("p", { class: "hint", text: c.description }) : null,
    el("p", { class: "hint" }, "Route: ", el("code", { text: c.route || "" }), c.returns ? `; answers a ${c.returns} card` : ""),
  ];
  let query = null;
  let item = null;
  if (c.query) {
    query = el("input", { id: "query", type: "text", "aria-describedby": "query-help", autocomplete: "off" });
    parts.push(el("label", { for: "query", text: "Text typed in the picker (q)" }), query,
      el("p", { id: "query-help", class: "field-help", text: "Sent as the q parameter; empty lists the first items." }));
  }
  if (c.item) {
    item = el("input", { id: "item", type: "text", autocomplete: "off" });
    parts.push(el("label", { for: "item" }, "Work item id", el("span", { class: "required", text: " (required)" })), item);
  }
  let form = null;
  let editor = null;
  // From a change until the verdict on the value it made is drawn, the verdict box is busy
  // (`aria-busy`): assistive technology waits for the verdict instead of reading the old one, and
  // the marks the verdict adds to the fields may still move what is below them.
  const checkLater = debounce(() => judge(), 200);
  const check = () => { judgedBox.setAttribute("aria-busy", "true"); checkLater(); };
  const judge = () => {
    if (!form) return Promise.resolve({ errors: [], warnings: [] });
    const asked = JSON.stringify(form.value);
    return api("/api/check/input", { kind: c.kind, id: c.id, input: form.value }).then((judged) => {
      // The value changed since: a newer check draws its own verdict.
      if (JSON.stringify(form.value) !== asked) return judged;
      drawJudged(judgedBox, judged, { what: "this input" });
      form.mark(judged.errors, "problem");
      form.mark(judged.warnings, "warning");
      judgedBox.setAttribute("aria-busy", "false");
      return judged;
    }, (e) => {
      judgedBox.replaceChildren(el("p", { class: "errors", text: `The local host could not check the input: ${e.message}` }));
      judgedBox.setAttribute("aria-busy", "false");
      return { errors: [], warnings: [] };
    });
  };
  if (c.schema !== null && c.schema !== undefined) {
    const formBox = el("div", { id: "form", class: "form" });
    const area = el("textarea", { id: "json", class: "json", spellcheck: "false", "aria-describedby": "json-help json-status" });
    const status = el("p", { id: "json-status", class: "errors", role: "alert" });
    parts.push(el("div", { class: "editors" },
      el("section", { class: "editor-form", "aria-label": "Input as a form" }, el("h3", { text: "Form" }), formBox),
      el("section", { class: "editor-json", "aria-label": "Input as JSON" },
        el("h3", {}, el("label", { for: "json", text: "JSON" })),
        el("p", { id: "json-help", class: "field-help", text: "The input exactly as it will be sent. Edit either side; each follows the other." }),
        area, status)));
    // The verdict goes below the Send row: it appears and grows while the user types (and a
    // moment after the last change), and above the button it would move the button as it is
    // clicked.
    panel(parts, blocked, sendRow(), judgedBox, result);
    form = new SchemaForm(formBox, c.schema, {
      start: c.start === null ? undefined : c.start,
      label: "Input",
      onChange: () => { editor.sync(); check(); },
    });
    editor = new JsonEditor(area, status, form, () => check());
    // Judged from the first change on (and on Send), not before the user typed anything.
    form.focus("/");
  } else {
    panel(parts, blocked, sendRow(), result);
    (query || item || document.getElementById("send")).focus();
  }

  function sendRow() {
    const anyway = el("input", { id: "send-invalid", type: "checkbox" });
    const send = el("button", { type: "button", id: "send", class: "primary", text: "Send" });
    send.addEventListener("click", async () => {
      blocked.replaceChildren();
      if (editor && !editor.valid) {
        blocked.append(el("p", { text: "The JSON editor holds text that is not JSON; fix it (or edit the form) before sending." }));
        return;
      }
      if (item && !item.value.trim()) {
        blocked.append(el("p", { text: "Name the work item to comment on." }));
        item.focus();
        return;
      }
      if (form) {
        const judged = await judge();
        if (judged.errors.length && !anyway.checked) {
          blocked.append(el("p", { text: "Not sent: the host would refuse this input (the problems are listed above, and on their fields). Tick “send even when invalid” to see your server refuse it." }));
          form.focus(judged.errors[0].at);
          return;
        }
      }
      const body = { kind: c.kind, install: installForm() };
      if (c.id !== null) body.id = c.id;
      if (item) body.id = item.value.trim();
      if (form) body.input = form.value;
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
    return el("div", { class: "row" }, send, anyway, el("label", { for: "send-invalid", text: "send even when invalid (to see the server refuse it)" }));
  }
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
  const status = entry.answer ? `${entry.answer.status} ${entry.answer.reason || ""}`.trim() : "no answer";
  summary.textContent = entry.outcome === "running"
    ? `Running: ${entry.attempts.length} attempt${entry.attempts.length === 1 ? "" : "s"} so far`
    : `${entry.outcome === "passed" ? "✓ passed" : "✗ failed"}: ${status}${entry.ms !== null && entry.ms !== undefined ? ` in ${entry.ms} ms` : ""}`;
  parts.push(summary);
  if (entry.why) parts.push(el("p", { class: "why", id: "result-why", text: entry.why }));
  parts.push(detail(entry));
  result.replaceChildren(...parts);
}

// --- events ------------------------------------------------------------------------------------

function showEvents() {
  const events = state.manifest.events;
  const chooser = el("select", { id: "event" }, events.map((e) => el("option", { value: e.name, text: `${e.name}${e.subscribed ? " (subscribed)" : ""}` })));
  const first = events.find((e) => e.subscribed) || events[0];
  if (first) chooser.value = first.name;
  const payload = el("textarea", { id: "payload", class: "json", spellcheck: "false", "aria-describedby": "payload-help payload-status" });
  const status = el("p", { id: "payload-status", class: "errors", role: "alert" });
  const judgedBox = el("div", { id: "payload-check", class: "judged", role: "status", "aria-live": "polite" });
  const errors = el("div", { id: "deliver-errors", class: "errors", role: "alert" });
  const same = el("input", { id: "same", type: "checkbox", "aria-describedby": "same-help" });
  const retry = el("input", { id: "retry", type: "checkbox" });
  const scale = el("input", { id: "time-scale", type: "number", min: "1", value: "600", class: "narrow" });
  const deliver = el("button", { type: "button", id: "deliver", class: "primary", text: "Deliver" });
  const fresh = el("button", { type: "button", id: "fresh-example", class: "secondary", text: "New example" });
  const delivered = el("p", { id: "delivered", role: "status" });
  const result = el("div", { id: "result", "aria-live": "polite" });
  let parsed = null;
  const judge = debounce(async () => {
    if (parsed === null) return;
    try {
      drawJudged(judgedBox, await api("/api/check/payload", { event: chooser.value, payload: parsed }), { what: `this ${chooser.value} payload` });
    } catch (e) {
      judgedBox.replaceChildren(el("p", { class: "errors", text: e.message }));
    }
  }, 200);
  const read = () => {
    try {
      parsed = JSON.parse(payload.value);
      status.textContent = "";
      payload.removeAttribute("aria-invalid");
      // A line held for the verdict, so that what is below does not move when it comes.
      if (!judgedBox.firstChild) judgedBox.append(el("p", { class: "hint", text: "Checking the payload…" }));
      judge();
    } catch (e) {
      parsed = null;
      status.textContent = `Not JSON: ${e.message}`;
      payload.setAttribute("aria-invalid", "true");
      judgedBox.replaceChildren();
    }
  };
  const fill = (value) => { payload.value = pretty(value); read(); };
  const example = async () => {
    try {
      fill(await api("/api/example", { event: chooser.value, install: { id: state.install.id } }));
      delivered.textContent = "";
    } catch (e) {
      errors.replaceChildren(el("p", { text: e.message }));
    }
  };
  payload.addEventListener("input", read);
  fresh.addEventListener("click", example);
  chooser.addEventListener("change", example);
  deliver.addEventListener("click", async () => {
    errors.replaceChildren();
    if (parsed === null) {
      errors.append(el("p", { text: "The payload is not JSON; fix it before delivering." }));
      payload.focus();
      return;
    }
    deliver.disabled = true;
    try {
      const entry = await api("/api/deliver", {
        event: chooser.value, payload: parsed, same: same.checked, retry: retry.checked,
        timeScale: Number(scale.value) || 1, install: installForm(),
      });
      remember(entry);
      state.watching = entry.id;
      showResult(entry);
      // What was delivered, so that "Redeliver the same event" sends exactly it again.
      const sent = entry.request && entry.request.body && entry.request.body.event ? entry.request.body.event.payload : undefined;
      if (sent !== undefined) fill(sent);
      delivered.textContent = `Delivered as #${entry.id}; the payload above is what was sent. Deliver again for a new event, or tick “redeliver the same event” to send this one again.`;
    } catch (e) {
      errors.append(el("p", { text: `The console could not deliver it: ${e.message}` }));
    } finally {
      deliver.disabled = false;
    }
  });
  panel(
    el("h2", { text: "Deliver a host event" }),
    el("p", { class: "hint", text: "Posted to your server's POST /host/events with an install token and an X-Host-Event-Id of its own on each attempt." }),
    el("label", { for: "event", text: "Event" }), chooser,
    el("label", { for: "payload", text: "Payload (JSON)" }),
    el("p", { id: "payload-help", class: "field-help", text: "Edit freely: a payload that does not read as the event's is still sent, and the checks say so. Each delivery is a new event: its ids (releaseId, generation), its times (every …At) and the install's ids are made new when it is sent." }),
    payload, status, judgedBox,
    el("div", { class: "row" }, same, el("label", { for: "same", text: "Redeliver the same event: send the payload exactly as written" })),
    el("p", { id: "same-help", class: "field-help", text: "As the host does when your server did not answer 2xx: the same content under a new X-Host-Event-Id. Your server must not react twice." }),
    el("div", { class: "row" }, retry, el("label", { for: "retry", text: "On the host's retry schedule: four attempts, after waits of" }),
      el("span", { text: state.manifest.retryWaitsSeconds.map((s) => `${s} s`).join(", ") }),
      el("label", { for: "time-scale", text: "divided by" }), scale),
    errors,
    el("div", { class: "row" }, deliver, fresh),
    delivered,
    result,
  );
  const e = events.find((x) => x.name === chooser.value);
  fill(e ? e.example : {});
  chooser.focus();
}

// --- install -----------------------------------------------------------------------------------

function showInstall() {
  const fields = [
    ["documents", "Documents (a JSON object)", "Sent as `documents` in every call and delivery body."],
    ["credentials", "Credentials (a JSON object)", "Sent as `credentials`: what the owner entered for the connector."],
    ["context", "Call context (a JSON object)", "Sent as `context` in call bodies: project, platform, period, filters."],
  ];
  const id = el("input", { id: "install-id", type: "text", autocomplete: "off" });
  id.value = state.install.id || "";
  const errors = el("div", { id: "install-errors", class: "errors", role: "alert" });
  const granted = new Set(state.install.scopes || []);
  const scopeBoxes = state.manifest.scopes.map((s) => {
    const box = el("input", { type: "checkbox", id: `scope-${slug(s.key)}`, "data-scope": s.key });
    box.checked = granted.has(s.key);
    return [s, box];
  });
  const areas = fields.map(([key, label, help]) => {
    const area = el("textarea", { id: `install-${key}`, class: "json", spellcheck: "false", "aria-describedby": `install-${key}-help` });
    area.value = pretty(state.install[key] === undefined ? {} : state.install[key]);
    return { key, label, help, area };
  });
  const save = el("button", { type: "button", id: "install-save", class: "primary", text: "Use for every call" });
  const reset = el("button", { type: "button", id: "install-reset", class: "secondary", text: "Back to the manifest's defaults" });
  const saved = el("p", { id: "install-saved", role: "status" });
  save.addEventListener("click", () => {
    errors.replaceChildren();
    saved.textContent = "";
    const next = { id: id.value.trim(), scopes: scopeBoxes.filter(([, b]) => b.checked).map(([s]) => s.key) };
    if (!next.id) errors.append(el("p", { text: "The install id cannot be empty, such as ins_dev_2." }));
    for (const { key, label, area } of areas) {
      try {
        next[key] = JSON.parse(area.value);
        if (next[key] === null || typeof next[key] !== "object" || Array.isArray(next[key])) {
          errors.append(el("p", { text: `${label}: must be a JSON object, such as {}.` }));
        }
      } catch (e) {
        errors.append(el("p", { text: `${label}: not JSON (${e.message}).` }));
      }
    }
    if (errors.childElementCount) return;
    state.install = next;
    saved.textContent = `Saved: the next calls and deliveries come from install ${next.id} with ${next.scopes.length ? next.scopes.join(", ") : "no scopes"}.`;
  });
  reset.addEventListener("click", () => {
    state.install = JSON.parse(JSON.stringify(state.manifest.install || {}));
    showInstall();
    document.getElementById("install-saved").textContent = "Back to the manifest's defaults.";
  });
  panel(
    el("h2", { text: "The local install" }),
    el("p", { class: "hint", text: "Every call and delivery carries a token minted for this install, granting these scopes, and these members in its body." }),
    el("label", { for: "install-id", text: "Install id" }), id,
    el("fieldset", { class: "scopes" }, el("legend", { text: "Scopes granted" }),
      el("p", { class: "field-help", text: "The token's scopes. The ones the manifest declares are granted at install; take one away to see your server refuse with SCOPE_MISSING." }),
      el("ul", { class: "scope-list" }, scopeBoxes.map(([s, box]) => el("li", {}, box,
        el("label", { for: box.id }, el("code", { text: s.key }), s.declared ? " (declared)" : ""))))),
    areas.map(({ key, label, help, area }) => [
      el("label", { for: area.id, text: label }),
      el("p", { id: `install-${key}-help`, class: "field-help", text: help }),
      area,
    ]),
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
  const said = el("div", { id: "outbox-said", role: "status" });
  panel(el("h2", { text: "The server's outbox" }),
    el("p", { class: "hint", text: "Events your server keeps until the host takes them: pending ones, and dead letters the host refused or that ran out of retries." }),
    el("div", { class: "row" }, refresh), said, body);
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
    body.replaceChildren(backlog(o.backlog), ...table("pending", o.pending), ...table("dead", o.dead));
  };
  const change = async (what, id) => {
    try {
      await api(`/api/outbox/${what}`, { id });
      said.replaceChildren(el("p", { class: "state-pass", text: what === "retry" ? `${id} is pending again: the server sends it on its next round.` : `${id} was dropped.` }));
    } catch (e) {
      said.replaceChildren(el("p", { class: "errors", role: "alert", text: e.message }));
    }
    await load();
    refresh.focus();
  };
  // What the server's outbox gauges say (host_outbox_pending, host_outbox_oldest_pending_age_seconds,
  // host_outbox_dead_letters): counted by the store, not limited to the rows listed below.
  const backlog = (b) => {
    const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    const age = (s) => s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
    const waiting = b.pending === 0 ? "Nothing waiting" : `${plural(b.pending, "event", "events")} waiting, the oldest for ${age(b.oldestAgeSecs)}`;
    return el("p", { id: "outbox-backlog", class: b.dead > 0 || b.oldestAgeSecs > 600 ? "state-note" : "hint",
      text: `${waiting}; ${plural(b.dead, "dead letter", "dead letters")}. The same numbers as the server's metrics host_outbox_pending, host_outbox_oldest_pending_age_seconds and host_outbox_dead_letters.` });
  };
  const table = (name, rows) => {
    const title = name === "dead" ? "Dead letters" : "Pending";
    if (rows.length === 0) return [el("h3", { text: `${title} (0)` }), el("p", { class: "hint", text: "None." })];
    const head = el("tr", {}, ["Event id", "Attempts", "Due", "Last error", "Actions"].map((h) => el("th", { scope: "col", text: h })));
    const lines = rows.flatMap((r, i) => {
      const key = `${name}-${i}`;
      const more = el("tr", { class: "more", id: `outbox-${key}-detail`, hidden: true },
        el("td", { colspan: "5" },
          el("dl", {},
            el("dt", { text: "Event id" }), el("dd", {}, el("code", { text: r.id })),
            el("dt", { text: "Accepted" }), el("dd", { text: r.accepted }),
            el("dt", { text: "Due" }), el("dd", { text: r.due }),
            el("dt", { text: "Attempts" }), el("dd", { text: String(r.attempts) }),
            el("dt", { text: "Last error" }), el("dd", { text: r.lastError || "none" })),
          block(`Body of ${r.id}`, r.body, "outbox-body")));
      const toggle = el("button", {
        type: "button", class: "secondary small", text: "Details", "aria-expanded": "false", "aria-controls": more.id,
        onclick: () => {
          more.hidden = !more.hidden;
          toggle.setAttribute("aria-expanded", String(!more.hidden));
        },
      });
      const actions = el("td", { class: "actions" });
      const normal = () => [
        toggle,
        name === "dead" ? el("button", { type: "button", class: "secondary small", text: "Retry", "aria-label": `Retry ${r.id}`, onclick: () => change("retry", r.id) }) : null,
        el("button", { type: "button", class: "secondary small danger", text: "Drop", "aria-label": `Drop ${r.id}`, onclick: confirmDrop }),
      ];
      function confirmDrop() {
        const yes = el("button", { type: "button", class: "primary small danger", text: "Drop it", onclick: () => change("drop", r.id) });
        const no = el("button", { type: "button", class: "secondary small", text: "Keep", onclick: () => { actions.replaceChildren(...normal().filter(Boolean)); } });
        actions.replaceChildren(el("span", { class: "confirm", role: "alert", text: "Drop for good? " }), yes, no);
        no.focus();
      }
      actions.replaceChildren(...normal().filter(Boolean));
      const row = el("tr", { "data-id": r.id },
        el("td", { class: "id" }, el("span", { class: "truncate", title: r.id, text: r.id })),
        el("td", { text: String(r.attempts) }),
        el("td", { class: "due" }, el("span", { class: "truncate", title: r.due, text: r.due })),
        el("td", { class: "error" }, el("span", { class: "truncate", title: r.lastError || "", text: r.lastError || "" })),
        actions);
      return [row, more];
    });
    return [el("h3", { text: `${title} (${rows.length})` }),
      el("table", { class: "outbox", id: `outbox-${name}` }, el("caption", { class: "visually-hidden", text: title }), el("thead", {}, head), el("tbody", {}, lines))];
  };
  refresh.addEventListener("click", load);
  refresh.focus();
  await load();
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

function setUpFilters() {
  const kind = document.getElementById("filter-kind");
  const outcome = document.getElementById("filter-outcome");
  const name = document.getElementById("filter-name");
  kind.addEventListener("change", () => { state.filters.kind = kind.value; drawTimeline(); });
  outcome.addEventListener("change", () => { state.filters.outcome = outcome.value; drawTimeline(); });
  name.addEventListener("input", () => { state.filters.name = name.value.trim().toLowerCase(); drawTimeline(); });
}

function remember(entry) {
  state.entries.set(entry.id, entry);
  if (state.watching === entry.id) showResult(entry);
  drawTimeline();
}

const MARKS = { passed: "✓", failed: "✗", running: "…" };
const OUTCOMES = { passed: "passed", failed: "failed", running: "running" };
const STATES = { pass: "✓ pass", fail: "✗ fail", note: "! note", skip: "– skipped" };

function shown(entry) {
  const f = state.filters;
  return (!f.kind || entry.kind === f.kind)
    && (!f.outcome || entry.outcome === f.outcome)
    && (!f.name || entry.title.toLowerCase().includes(f.name));
}

// The rows drawn, by key: an entry that did not change keeps its row, so what a person has open
// or focused on the timeline stays as it is while new entries arrive.
const rows = new Map();

function drawRows(list, entries, where, open) {
  const wanted = entries.map((e) => {
    const key = `${where}-${e.id}`;
    const stamp = JSON.stringify(e);
    let drawn = rows.get(key);
    if (!drawn || drawn.stamp !== stamp) {
      const node = row(e, where, open);
      if (drawn && drawn.node.parentNode === list) list.replaceChild(node, drawn.node);
      drawn = { stamp, node };
      rows.set(key, drawn);
    }
    return drawn.node;
  });
  let cursor = list.firstChild;
  for (const node of wanted) {
    if (node === cursor) cursor = cursor.nextSibling;
    else list.insertBefore(node, cursor);
  }
  while (cursor) {
    const next = cursor.nextSibling;
    cursor.remove();
    cursor = next;
  }
}

function drawTimeline() {
  const all = [...state.entries.values()].sort((a, b) => b.id - a.id);
  const open = new Set([...document.querySelectorAll(".entry details[open]")].map((d) => d.closest(".entry").dataset.key));
  const failures = all.filter((e) => e.outcome === "failed");
  document.getElementById("failures-block").hidden = failures.length === 0;
  document.getElementById("failures-heading").textContent = `Failures (${failures.length})`;
  drawRows(document.getElementById("failures"), failures, "f", open);
  const visible = all.filter(shown);
  drawRows(document.getElementById("timeline"), visible, "t", open);
  document.getElementById("timeline-count").textContent = visible.length === all.length ? `${all.length} entr${all.length === 1 ? "y" : "ies"}` : `${visible.length} of ${all.length} entries`;
}

function row(entry, where, open) {
  const key = `${where}-${entry.id}`;
  const status = entry.kind === "delivery"
    ? `${entry.attempts.length} attempt${entry.attempts.length === 1 ? "" : "s"}`
    : entry.answer ? String(entry.answer.status) : "no answer";
  const summary = el("summary", {},
    el("span", { class: "mark", "aria-hidden": "true", text: MARKS[entry.outcome] || "" }),
    el("span", { class: "visually-hidden", text: `${OUTCOMES[entry.outcome] || entry.outcome}: ` }), " ",
    el("span", { class: "kind", text: entry.kind }), " ",
    el("strong", { class: "title", text: entry.title }), " ",
    el("span", { class: "status", text: status }),
    entry.kind !== "posted" && entry.ms !== null && entry.ms !== undefined ? el("span", { class: "hint", text: ` ${entry.ms} ms` }) : null,
    entry.why ? el("span", { class: "why", text: entry.why }) : null);
  const details = el("details", { open: open.has(key) }, summary, el("div", { class: "body" }, detail(entry)));
  return el("li", { class: `entry ${entry.outcome}`, id: `entry-${key}`, "data-key": key, "data-id": entry.id, "data-kind": entry.kind, "data-outcome": entry.outcome, "data-title": entry.title }, details);
}

function detail(entry) {
  const box = el("div", { class: "detail" });
  box.append(el("p", { class: "hint", text: `#${entry.id} at ${entry.at}` }));
  if (entry.checks.length) {
    box.append(el("table", { class: "checks" },
      el("caption", { class: "visually-hidden", text: `Checks of #${entry.id}` }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Check" }), el("th", { scope: "col", text: "Result" }), el("th", { scope: "col", text: "What the local host found" }))),
      el("tbody", {}, entry.checks.map((c) => el("tr", { class: `check state-${c.state}`, "data-check": c.name },
        el("td", { text: c.name }), el("td", { class: "result", text: STATES[c.state] || c.state }), el("td", { text: c.detail }))))));
  }
  if (entry.attempts.length) {
    const reactions = entry.reactions || [];
    box.append(el("h4", { text: "Attempts" }), el("ol", { class: "attempts" }, entry.attempts.map((a) => {
      const posted = reactions.filter((r) => r.attempt === a.n);
      const answered = a.status === null ? `${a.said} after ${a.ms} ms` : `answered ${a.status} ${a.said} in ${a.ms} ms`;
      return el("li", { "data-attempt": a.n },
        `sent at +${a.sentMs} ms as ${a.eventId}, ${answered}`,
        posted.length ? [`; then the server posted `, posted.map((r, i) => [i ? ", " : "", el("a", { href: `#entry-t-${r.posted}`, text: `#${r.posted}` }), r.new ? " (new)" : " (not new)"])] : "; no event posted while it was the latest");
    })));
  }
  const related = entry.kind === "delivery" ? (entry.reactions || []).map((r) => r.posted) : entry.related;
  if (related.length) {
    const what = entry.kind === "delivery" ? "Posted back by the server while it ran" : "In reaction to delivery";
    box.append(el("p", {}, `${what}: `, related.map((id, i) => [i ? ", " : "", el("a", { href: `#entry-t-${id}`, text: `#${id}` })])));
  }
  box.append(el("h4", { text: "Request" }), block(`Request of #${entry.id}`, entry.request, "request"));
  if (entry.answer) box.append(el("h4", { text: "Answer" }), block(`Answer of #${entry.id}`, entry.answer, "answer"));
  box.append(el("button", {
    type: "button", class: "secondary replay", text: "Replay", "aria-label": `Replay #${entry.id}`,
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
