// A form made from a JSON Schema, and a raw JSON editor beside it: two views of one value.
//
// The value is the truth. The form is drawn from (schema, value); typing in a field changes the
// value at that field's JSON pointer, and adding or removing a member or an item redraws the form.
// The JSON editor shows the value and, when its text parses, replaces it. So what the two views
// show is exactly what is sent.
//
// Rules a user can rely on:
// - an optional member is absent until the user adds it, and gone once removed; nothing the user
//   did not add or type is ever in the value (a required boolean starts as false, shown as an
//   unchecked box, because a checkbox cannot show "absent");
// - a default fills a member when it is added, not before;
// - whatever the schema says, its text (titles, descriptions, names, enum values) is put in the
//   page as text, never as markup;
// - the form does not judge the value: the console asks the local host, which runs the runtime's
//   own validator (see console.js), and shows its errors on the fields they name.
"use strict";

(function (global) {
  const hasOwn = (o, k) => o !== null && typeof o === "object" && Object.prototype.hasOwnProperty.call(o, k);
  // A member of a value or a schema, only when it is the object's own (a property named
  // `constructor` or `__proto__` is data, not the prototype's).
  const own = (o, k) => (hasOwn(o, k) ? o[k] : undefined);
  const setOwn = (o, k, v) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

  const escapeToken = (t) => String(t).replace(/~/g, "~0").replace(/\//g, "~1");
  const pointerOf = (path) => (path.length === 0 ? "/" : "/" + path.map(escapeToken).join("/"));
  const nameOf = (path) => "root" + path.map((p) => `[${p}]`).join("");

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
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  // --- reading schemas -------------------------------------------------------------------------

  const TYPES = ["string", "integer", "number", "boolean", "object", "array", "null"];

  function typeOfValue(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "array";
    if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
    return typeof v; // string, boolean, object
  }

  // A local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`) resolved in the root schema.
  function deref(root, schema, seen) {
    let s = schema;
    let hops = 0;
    while (isObject(s) && typeof own(s, "$ref") === "string" && hops < 32) {
      const ref = own(s, "$ref");
      if (seen.has(ref) && hops > 0) break;
      if (ref === "#") { s = root; hops++; continue; }
      if (!ref.startsWith("#/")) break;
      let target = root;
      for (const raw of ref.slice(2).split("/")) {
        const token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
        target = Array.isArray(target) ? target[Number(token)] : own(target, token);
        if (target === undefined) break;
      }
      if (target === undefined) break;
      // Keywords beside `$ref` (a description, say) still apply.
      const { $ref: _, ...rest } = s;
      s = Object.keys(rest).length ? merge(target, rest) : target;
      hops++;
    }
    return s;
  }

  // The schema the form draws: `$ref` followed and `allOf` folded in (its properties, required
  // members and keywords), so a schema made of parts is one form. What cannot be folded is still
  // checked by the local host.
  function effective(root, schema, depth) {
    if (schema === true || schema === undefined) return {};
    if (schema === false || !isObject(schema)) return { not: {} };
    let s = deref(root, schema, new Set());
    if (!isObject(s)) return s === false ? { not: {} } : {};
    const all = own(s, "allOf");
    if (Array.isArray(all) && depth < 16) {
      let out = { ...s };
      delete out.allOf;
      for (const part of all) out = merge(out, effective(root, part, depth + 1));
      s = out;
    }
    return s;
  }

  function merge(a, b) {
    if (!isObject(b)) return a;
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) {
      if (k === "properties" && isObject(v)) {
        const props = {};
        for (const [n, p] of Object.entries(own(a, "properties") || {})) setOwn(props, n, p);
        for (const [n, p] of Object.entries(v)) setOwn(props, n, hasOwn(props, n) ? { allOf: [own(props, n), p] } : p);
        out.properties = props;
      } else if (k === "type" && hasOwn(out, "type")) {
        // Both parts must hold: the types they share (an integer is a number).
        const list = (t) => (Array.isArray(t) ? t : [t]);
        const mine = list(own(out, "type"));
        const theirs = list(v);
        const both = mine.filter((t) => theirs.includes(t) || (t === "integer" && theirs.includes("number")))
          .concat(theirs.filter((t) => t === "integer" && mine.includes("number") && !mine.includes("integer")));
        out.type = both.length === 1 ? both[0] : both.length ? both : v;
      } else if (k === "required" && Array.isArray(v)) {
        out.required = [...new Set([...(Array.isArray(own(a, "required")) ? own(a, "required") : []), ...v])];
      } else if (!hasOwn(out, k)) {
        setOwn(out, k, v);
      }
    }
    return out;
  }

  // The types a schema allows, from `type`, else from `const`/`enum`, else from its keywords;
  // every type when nothing says.
  function typesOf(s) {
    const t = own(s, "type");
    if (typeof t === "string" && TYPES.includes(t)) return [t];
    if (Array.isArray(t)) {
      const ts = t.filter((x) => TYPES.includes(x));
      if (ts.length) return [...new Set(ts)];
    }
    const values = hasOwn(s, "const") ? [own(s, "const")] : Array.isArray(own(s, "enum")) ? own(s, "enum") : null;
    if (values) return [...new Set(values.map(typeOfValue).map((x) => (x === "integer" ? "number" : x)))];
    if (hasOwn(s, "properties") || hasOwn(s, "required") || hasOwn(s, "additionalProperties") || hasOwn(s, "patternProperties")) return ["object"];
    if (hasOwn(s, "items") || hasOwn(s, "prefixItems") || hasOwn(s, "minItems") || hasOwn(s, "maxItems")) return ["array"];
    if (hasOwn(s, "minLength") || hasOwn(s, "maxLength") || hasOwn(s, "pattern") || hasOwn(s, "format")) return ["string"];
    if (hasOwn(s, "minimum") || hasOwn(s, "maximum") || hasOwn(s, "exclusiveMinimum") || hasOwn(s, "exclusiveMaximum") || hasOwn(s, "multipleOf")) return ["number"];
    return null; // anything
  }

  // The shapes a value of `s` may take, when it may take more than one: the branches of
  // `oneOf`/`anyOf`, or the types of a type list. Each has a label a person reads.
  function choicesOf(root, s) {
    const branches = own(s, "oneOf") || own(s, "anyOf");
    if (Array.isArray(branches) && branches.length > 0) {
      return branches.map((b, i) => {
        const e = effective(root, mergeBase(s, b), 0);
        const title = own(e, "title") || own(isObject(b) ? deref(root, b, new Set()) : {}, "title");
        const types = typesOf(e);
        const label = typeof title === "string" && title.trim() ? title : `Option ${i + 1}${types ? ` (${types.join(" or ")})` : ""}`;
        return { label, schema: e };
      });
    }
    const types = typesOf(s);
    if (types && types.length > 1 && !hasOwn(s, "enum") && !hasOwn(s, "const")) {
      return types.map((t) => ({ label: t, schema: { ...s, type: t } }));
    }
    return null;
  }

  // A branch of `oneOf`/`anyOf` with the keywords of the schema around it (its type, say).
  function mergeBase(s, branch) {
    const base = { ...s };
    delete base.oneOf;
    delete base.anyOf;
    delete base.title;
    delete base.description;
    return { allOf: [base, branch === true ? {} : branch] };
  }

  // Which choice a value takes: the first whose type, `const`/`enum` and required members it
  // matches. For display only; the local host judges the value.
  function choiceOf(choices, value) {
    if (value === undefined) return 0;
    const t = typeOfValue(value);
    const fits = (s) => {
      const types = typesOf(s);
      if (types && !types.includes(t) && !(t === "integer" && types.includes("number"))) return false;
      if (hasOwn(s, "const")) return JSON.stringify(own(s, "const")) === JSON.stringify(value);
      if (Array.isArray(own(s, "enum"))) return own(s, "enum").some((e) => JSON.stringify(e) === JSON.stringify(value));
      if (isObject(value) && Array.isArray(own(s, "required"))) return own(s, "required").every((k) => hasOwn(value, k));
      return true;
    };
    const i = choices.findIndex((c) => fits(c.schema));
    return i < 0 ? 0 : i;
  }

  // The value a member starts with when the user adds it (or, for a required member, when the
  // form opens): its default, its constant, else the least a person would type. `undefined` for a
  // required member means it stays absent until typed.
  function startOf(root, schema, { added, depth }) {
    const s = effective(root, schema, 0);
    if (hasOwn(s, "default")) return clone(own(s, "default"));
    if (hasOwn(s, "const")) return clone(own(s, "const"));
    if ((depth || 0) > 12) return undefined;
    const choices = choicesOf(root, s);
    if (choices) return startOf(root, choices[0].schema, { added, depth: (depth || 0) + 1 });
    const en = own(s, "enum");
    if (Array.isArray(en)) return added && en.length ? clone(en[0]) : undefined;
    const types = typesOf(s);
    switch (types ? types[0] : null) {
      case "object": {
        const out = {};
        const props = own(s, "properties") || {};
        for (const k of Array.isArray(own(s, "required")) ? own(s, "required") : []) {
          const v = startOf(root, own(props, k), { added: false, depth: (depth || 0) + 1 });
          if (v !== undefined) setOwn(out, k, v);
        }
        return out;
      }
      case "array": {
        const n = Math.min(Number(own(s, "minItems")) || 0, 20);
        const items = [];
        const prefix = Array.isArray(own(s, "prefixItems")) ? own(s, "prefixItems") : [];
        for (let i = 0; i < n; i++) {
          const v = startOf(root, i < prefix.length ? prefix[i] : own(s, "items"), { added: true, depth: (depth || 0) + 1 });
          items.push(v === undefined ? "" : v);
        }
        return items;
      }
      case "boolean": return false;
      case "null": return null;
      case "string": case "integer": case "number": return added ? "" : undefined;
      default: return added ? {} : undefined;
    }
  }

  // --- the form --------------------------------------------------------------------------------

  let forms = 0;

  class SchemaForm {
    // `root`: where the form goes; `schema`: its JSON Schema; `start`: the start value (else the
    // schema's); `label`: what the whole value is called; `onChange(value)`: after every change.
    constructor(root, schema, { start, label, onChange }) {
      this.root = root;
      this.schema = isObject(schema) || typeof schema === "boolean" ? schema : {};
      this.label = label || "Input";
      this.onChange = onChange || (() => {});
      this.prefix = `f${++forms}`;
      this.counter = 0;
      const s = effective(this.schema, this.schema, 0);
      const first = start !== undefined ? clone(start) : startOf(this.schema, s, { added: false });
      const types = typesOf(s);
      this.value = first !== undefined ? first : types && types[0] === "object" ? {} : startOf(this.schema, s, { added: true });
      this.draw();
    }

    // Replaces the whole value (from the JSON editor) and redraws.
    setValue(value) {
      this.value = clone(value);
      this.draw();
    }

    draw(focusPointer) {
      this.counter = 0;
      const node = this.field(this.schema, [], this.value, { label: this.label, required: true, top: true });
      this.root.replaceChildren(node);
      if (focusPointer !== undefined) this.focus(focusPointer);
    }

    // Focuses the first control of the field at `pointer`, or the form's first control.
    focus(pointer) {
      const field = [...this.root.querySelectorAll("[data-pointer]")].find((e) => e.dataset.pointer === pointer);
      const scope = field || this.root;
      const control = scope.querySelector("input, select, textarea, button");
      if (control) control.focus();
    }

    // Marks the fields the local host found wrong, and clears the rest: `problems` are
    // `{at, message}` with `at` a JSON pointer into the value.
    mark(problems, cls) {
      for (const old of this.root.querySelectorAll(`.${cls}`)) old.remove();
      for (const c of this.root.querySelectorAll(`[data-${cls}]`)) {
        c.removeAttribute(`data-${cls}`);
        if (cls === "problem") c.removeAttribute("aria-invalid");
      }
      const fields = [...this.root.querySelectorAll("[data-pointer]")];
      for (const p of problems) {
        // The deepest field on the problem's path: a member the value lacks is reported at its
        // object, whose field is there.
        let at = p.at;
        // A required member that is missing is reported at its object; its own field says it best.
        const missing = /^"((?:[^"\\]|\\.)*)" is a required property$/.exec(p.message);
        if (missing) {
          try {
            const member = `${at === "/" ? "" : at}/${escapeToken(JSON.parse(`"${missing[1]}"`))}`;
            if (fields.some((f) => f.dataset.pointer === member)) at = member;
          } catch (_) { /* not a name this form can place */ }
        }
        let field;
        for (;;) {
          field = fields.find((f) => f.dataset.pointer === at);
          if (field || at === "/") break;
          at = at.replace(/\/[^/]*$/, "") || "/";
        }
        if (!field) continue;
        const control = field.querySelector(":scope > .control input, :scope > .control select, :scope > .control textarea");
        const note = el("p", { class: `${cls} field-${cls}`, id: `${this.prefix}-${cls}-${++this.counter}`, text: p.message });
        if (control) control.after(note);
        else (field.querySelector(":scope > fieldset, :scope > .control") || field).append(note);
        if (control) {
          control.setAttribute(`data-${cls}`, "");
          if (cls === "problem") control.setAttribute("aria-invalid", "true");
          const described = (control.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && !x.includes(`-${cls}-`));
          control.setAttribute("aria-describedby", [...described, note.id].join(" "));
        }
      }
    }

    changed() {
      this.onChange(this.value);
    }

    // The value at `path`, `undefined` when absent.
    at(path) {
      let v = this.value;
      for (const p of path) {
        if (Array.isArray(v)) v = v[p];
        else v = own(v, p);
        if (v === undefined) return undefined;
      }
      return v;
    }

    // Sets (or, with `undefined`, removes) the value at `path`.
    put(path, v) {
      if (path.length === 0) { this.value = v; return; }
      let parent = this.value;
      for (const p of path.slice(0, -1)) parent = Array.isArray(parent) ? parent[p] : own(parent, p);
      const last = path[path.length - 1];
      if (Array.isArray(parent)) {
        if (v === undefined) parent.splice(last, 1); else parent[last] = v;
      } else if (isObject(parent)) {
        if (v === undefined) delete parent[last]; else setOwn(parent, last, v);
      }
    }

    id() {
      return `${this.prefix}-${++this.counter}`;
    }

    // One field: the value at `path` drawn for `schema`.
    field(schema, path, value, opts) {
      const s = effective(this.schema, schema, 0);
      const pointer = pointerOf(path);
      const title = typeof own(s, "title") === "string" && own(s, "title").trim() ? own(s, "title") : null;
      const label = opts.label || title || "value";
      const description = typeof own(s, "description") === "string" ? own(s, "description") : "";
      const box = el("div", { class: "field", "data-pointer": pointer });
      const helpId = description ? this.id() : null;
      const help = description ? el("p", { class: "field-help", id: helpId, text: description }) : null;
      const remove = opts.remove ? el("button", {
        type: "button", class: "secondary small remove", text: `Remove ${opts.removeWhat || label}`,
        onclick: () => { opts.remove(); },
      }) : null;

      if (own(s, "not") !== undefined && Object.keys(s).length === 1) {
        box.append(el("p", { class: "hint", text: `${label}: no value is allowed here` }), remove);
        return box;
      }
      const choices = choicesOf(this.schema, s);
      if (choices) return this.choice(box, choices, s, path, value, { ...opts, label, help, helpId, remove });
      const types = typesOf(s);
      const type = types ? (types.includes(typeOfValue(value)) ? typeOfValue(value) : types[0]) : null;
      if (hasOwn(s, "const")) return this.constant(box, s, path, { label, help, remove });
      if (Array.isArray(own(s, "enum"))) return this.select(box, s, path, value, { ...opts, label, help, helpId, remove });
      switch (type) {
        case "object": return this.object(box, s, path, isObject(value) ? value : undefined, { ...opts, label, help, remove });
        case "array": return this.array(box, s, path, Array.isArray(value) ? value : undefined, { ...opts, label, help, remove });
        case "boolean": return this.checkbox(box, path, value, { ...opts, label, help, helpId, remove });
        case "null": return this.nullField(box, { label, help, remove });
        case "string": case "integer": case "number":
          return this.text(box, s, type, path, value, { ...opts, label, help, helpId, remove });
        default: return this.json(box, path, value, { ...opts, label, help, helpId, remove });
      }
    }

    labelFor(id, text, required) {
      return el("label", { for: id }, text, required ? el("span", { class: "required", text: " (required)" }) : null);
    }

    text(box, s, type, path, value, o) {
      const id = this.id();
      const long = type === "string" && (Number(own(s, "maxLength")) > 120 || own(s, "format") === "markdown");
      const shown = value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
      const format = type === "string" && typeof own(s, "format") === "string" ? own(s, "format") : null;
      const formatId = format ? this.id() : null;
      const attrs = {
        id, name: nameOf(path), "aria-describedby": [o.helpId, formatId].filter(Boolean).join(" ") || null,
        autocomplete: "off", spellcheck: "false",
        inputmode: type === "integer" ? "numeric" : type === "number" ? "decimal" : null,
      };
      const input = long ? el("textarea", { ...attrs, rows: 3 }) : el("input", { ...attrs, type: "text" });
      input.value = shown;
      input.addEventListener("input", () => {
        const text = input.value;
        let v = text;
        if (type !== "string") {
          // A number when it reads as one; otherwise the text as typed, which the check names.
          const n = text.trim() === "" ? NaN : Number(text);
          v = Number.isFinite(n) ? n : text;
        }
        this.put(path, v);
        this.changed();
      });
      box.append(el("div", { class: "control" },
        this.labelFor(id, o.label, o.required), o.help, input,
        format ? el("p", { class: "field-help", id: formatId, text: `Format: ${format}${format === "date-time" ? ", such as 2026-11-28T09:30:00Z" : ""}` }) : null,
        o.remove));
      return box;
    }

    checkbox(box, path, value, o) {
      const id = this.id();
      const input = el("input", { id, type: "checkbox", name: nameOf(path), "aria-describedby": o.helpId });
      input.checked = value === true;
      input.addEventListener("change", () => { this.put(path, input.checked); this.changed(); });
      box.append(el("div", { class: "control check-row" }, input, this.labelFor(id, o.label, o.required), o.help, o.remove));
      return box;
    }

    select(box, s, path, value, o) {
      const id = this.id();
      const values = own(s, "enum");
      const select = el("select", { id, name: nameOf(path), "aria-describedby": o.helpId });
      const current = values.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
      if (current < 0) select.append(el("option", { value: "", text: value === undefined ? "Choose…" : `${JSON.stringify(value)} (not one of these)` }));
      values.forEach((v, i) => select.append(el("option", { value: String(i), text: typeof v === "string" ? v : JSON.stringify(v) })));
      select.value = current < 0 ? "" : String(current);
      select.addEventListener("change", () => {
        if (select.value === "") return;
        this.put(path, clone(values[Number(select.value)]));
        this.changed();
      });
      box.append(el("div", { class: "control" }, this.labelFor(id, o.label, o.required), o.help, select, o.remove));
      return box;
    }

    constant(box, s, path, o) {
      box.append(el("div", { class: "control" },
        el("span", { class: "label" }, o.label), o.help,
        el("p", { class: "constant" }, "Always ", el("code", { text: JSON.stringify(own(s, "const")) })), o.remove));
      return box;
    }

    nullField(box, o) {
      box.append(el("div", { class: "control" }, el("span", { class: "label" }, o.label), o.help,
        el("p", { class: "constant" }, el("code", { text: "null" })), o.remove));
      return box;
    }

    // A value the form cannot draw field by field (no type said, `not`, `if`): typed as JSON.
    json(box, path, value, o) {
      const id = this.id();
      const area = el("textarea", { id, name: nameOf(path), rows: 2, spellcheck: "false", class: "json", "aria-describedby": o.helpId });
      area.value = value === undefined ? "" : JSON.stringify(value);
      const note = el("p", { class: "field-help", text: "Any JSON value." });
      area.addEventListener("input", () => {
        if (area.value.trim() === "") { this.put(path, undefined); this.changed(); return; }
        try {
          this.put(path, JSON.parse(area.value));
          note.textContent = "Any JSON value.";
          area.removeAttribute("aria-invalid");
          this.changed();
        } catch (e) {
          note.textContent = `Not JSON yet (${e.message}); the value keeps its last JSON.`;
          area.setAttribute("aria-invalid", "true");
        }
      });
      box.append(el("div", { class: "control" }, this.labelFor(id, o.label, o.required), o.help, area, note, o.remove));
      return box;
    }

    choice(box, choices, s, path, value, o) {
      const id = this.id();
      const at = choiceOf(choices, value);
      const select = el("select", { id, class: "shape", "aria-describedby": o.helpId });
      choices.forEach((c, i) => select.append(el("option", { value: String(i), text: c.label })));
      select.value = String(at);
      select.addEventListener("change", () => {
        const next = choices[Number(select.value)];
        const v = startOf(this.schema, next.schema, { added: true });
        this.put(path, v === undefined ? null : v);
        this.changed();
        this.draw(pointerOf(path));
      });
      const inner = this.field(choices[at].schema, path, value, { label: `${o.label}: value`, required: o.required });
      box.append(el("div", { class: "control" },
        el("label", { for: id }, `${o.label}: which shape`, o.required ? el("span", { class: "required", text: " (required)" }) : null),
        o.help, select, o.remove), inner);
      return box;
    }

    object(box, s, path, value, o) {
      const props = isObject(own(s, "properties")) ? own(s, "properties") : {};
      const required = new Set((Array.isArray(own(s, "required")) ? own(s, "required") : []).filter((k) => typeof k === "string"));
      const names = Object.keys(props).sort((a, b) => (required.has(b) - required.has(a)) || (a < b ? -1 : a > b ? 1 : 0));
      const v = value || {};
      const fieldset = el("fieldset", { class: o.top ? "object top" : "object" },
        el("legend", {}, o.label, o.required && !o.top ? el("span", { class: "required", text: " (required)" }) : null));
      if (o.help) fieldset.append(o.help);
      if (value === undefined && !o.top) {
        // A required object not there yet.
        fieldset.append(el("button", {
          type: "button", class: "secondary small", text: `Start ${o.label}`,
          onclick: () => { this.put(path, startOf(this.schema, s, { added: true }) || {}); this.changed(); this.draw(pointerOf(path)); },
        }));
        box.append(fieldset);
        return box;
      }
      const present = [];
      const addable = [];
      for (const name of names) {
        if (required.has(name) || hasOwn(v, name)) present.push(name);
        else addable.push(name);
      }
      for (const name of present) {
        const child = [...path, name];
        const optional = !required.has(name);
        fieldset.append(this.field(own(props, name), child, own(v, name), {
          label: name, required: !optional,
          remove: optional ? () => { this.put(child, undefined); this.changed(); this.draw(pointerOf(path)); } : null,
          removeWhat: name,
        }));
      }
      // Members the schema does not list (additionalProperties, patternProperties).
      const extra = Object.keys(v).filter((k) => !hasOwn(props, k));
      for (const name of extra) {
        const child = [...path, name];
        fieldset.append(this.field(this.memberSchema(s, name), child, own(v, name), {
          label: name, remove: () => { this.put(child, undefined); this.changed(); this.draw(pointerOf(path)); }, removeWhat: name,
        }));
      }
      if (addable.length) {
        const holder = el("div", { class: "add-members" }, el("span", { class: "hint", text: `Optional member${addable.length === 1 ? "" : "s"} of ${o.label}: ` }));
        for (const name of addable) {
          const child = [...path, name];
          holder.append(el("button", {
            type: "button", class: "secondary small add", "data-member": name, text: `Add ${name}`,
            title: typeof own(own(props, name) || {}, "description") === "string" ? own(own(props, name), "description") : null,
            onclick: () => {
              const start = startOf(this.schema, own(props, name), { added: true });
              this.put(child, start === undefined ? "" : start);
              this.changed();
              this.draw(pointerOf(child));
            },
          }));
        }
        fieldset.append(holder);
      }
      const open = own(s, "additionalProperties");
      if (isObject(open) || open === true || isObject(own(s, "patternProperties"))) {
        const id = this.id();
        const name = el("input", { id, type: "text", autocomplete: "off" });
        const add = el("button", {
          type: "button", class: "secondary small", text: "Add member",
          onclick: () => {
            const key = name.value;
            if (key === "" || hasOwn(v, key)) { name.focus(); return; }
            const child = [...path, key];
            const start = startOf(this.schema, this.memberSchema(s, key), { added: true });
            this.put(child, start === undefined ? "" : start);
            this.changed();
            this.draw(pointerOf(child));
          },
        });
        fieldset.append(el("div", { class: "row add-named" }, el("label", { for: id, text: `New member of ${o.label}, named` }), name, add));
      }
      if (o.remove) fieldset.append(o.remove);
      box.append(fieldset);
      return box;
    }

    // The schema of a member the object's `properties` do not list.
    memberSchema(s, name) {
      const patterns = own(s, "patternProperties");
      if (isObject(patterns)) {
        for (const [p, schema] of Object.entries(patterns)) {
          try { if (new RegExp(p, "u").test(name)) return schema; } catch (_) { /* a pattern this browser cannot read */ }
        }
      }
      const open = own(s, "additionalProperties");
      return isObject(open) ? open : {};
    }

    array(box, s, path, value, o) {
      const items = value || [];
      const prefix = Array.isArray(own(s, "prefixItems")) ? own(s, "prefixItems") : [];
      const itemSchema = (i) => (i < prefix.length ? prefix[i] : own(s, "items") === undefined ? {} : own(s, "items"));
      const fieldset = el("fieldset", { class: "array" },
        el("legend", {}, o.label, o.required ? el("span", { class: "required", text: " (required)" }) : null));
      if (o.help) fieldset.append(o.help);
      if (value === undefined) {
        fieldset.append(el("button", {
          type: "button", class: "secondary small", text: `Start the list ${o.label}`,
          onclick: () => { this.put(path, startOf(this.schema, s, { added: true }) || []); this.changed(); this.draw(pointerOf(path)); },
        }));
        box.append(fieldset);
        return box;
      }
      const list = el("ol", { class: "items" });
      items.forEach((item, i) => {
        const child = [...path, i];
        list.append(el("li", {}, this.field(itemSchema(i), child, item, {
          label: `${o.label} item ${i + 1}`, required: false,
          remove: () => { this.put(child, undefined); this.changed(); this.draw(pointerOf(path)); },
          removeWhat: `item ${i + 1} of ${o.label}`,
        })));
      });
      fieldset.append(list);
      const max = Number(own(s, "maxItems"));
      if (!(Number.isFinite(max) && items.length >= max) && own(s, "items") !== false) {
        fieldset.append(el("button", {
          type: "button", class: "secondary small add", text: `Add an item to ${o.label}`,
          onclick: () => {
            const i = items.length;
            const start = startOf(this.schema, itemSchema(i), { added: true });
            this.put([...path, i], start === undefined ? "" : start);
            this.changed();
            this.draw(pointerOf([...path, i]));
          },
        }));
      }
      if (o.remove) fieldset.append(o.remove);
      box.append(fieldset);
      return box;
    }
  }

  // The raw JSON editor beside a form: shows the form's value, and replaces it when its text
  // parses. `sync()` after the form changed.
  class JsonEditor {
    constructor(area, status, form, onChange) {
      this.area = area;
      this.status = status;
      this.form = form;
      this.valid = true;
      area.addEventListener("input", () => {
        try {
          const value = JSON.parse(area.value);
          this.valid = true;
          area.removeAttribute("aria-invalid");
          status.textContent = "";
          form.setValue(value);
          onChange(value);
        } catch (e) {
          this.valid = false;
          area.setAttribute("aria-invalid", "true");
          status.textContent = `Not JSON: ${e.message}. The form keeps the last value that was.`;
        }
      });
      this.sync();
    }

    sync() {
      this.valid = true;
      this.area.removeAttribute("aria-invalid");
      this.status.textContent = "";
      this.area.value = JSON.stringify(this.form.value === undefined ? null : this.form.value, null, 2);
    }
  }

  SchemaForm.el = el;
  global.SchemaForm = SchemaForm;
  global.JsonEditor = JsonEditor;
  global.SchemaFormInternals = { effective, typesOf, choicesOf, startOf, pointerOf };
})(window);
