// zenbrain inspector: one page over the /v1 API. No framework, nothing fetched from elsewhere.
// Every text from the store goes into the page as text (textContent), never as HTML.
"use strict";

const LAYERS = ["episodic", "semantic", "procedural", "core"];
const PAGE = 20;
const state = { key: sessionStorage.getItem("zb-key") || "", namespace: sessionStorage.getItem("zb-ns") || "" };

// ------------------------------------------------------------------ helpers
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "text") el.textContent = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
const SVG = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) el.setAttribute(name, String(value));
  for (const child of children) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}
function say(text, isError) {
  const status = document.getElementById("status");
  status.textContent = text || "";
  status.classList.toggle("error", Boolean(isError));
}
function fmt(n) { return n === null || n === undefined ? "—" : Number(n).toFixed(3); }
function when(iso) { return iso ? new Date(iso).toLocaleString() : "—"; }

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.detail) || `HTTP ${status}`);
    this.status = status;
    this.error = body && body.error;
  }
}

async function api(method, path, body, params) {
  const url = new URL("/v1" + path, location.origin);
  if (state.namespace) url.searchParams.set("namespace", state.namespace);
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null) url.searchParams.set(k, v);
  const headers = {};
  if (state.key) headers.Authorization = "Bearer " + state.key;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

function view(title, ...children) {
  const main = document.getElementById("main");
  const shown = children.flat().filter((child) => child !== null && child !== undefined && child !== false);
  main.replaceChildren(h("h2", { id: "view-title", text: title }), ...shown);
  main.setAttribute("aria-labelledby", "view-title");
  // Focus moves to the view for keyboard users without scrolling the header away.
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function failed(err) {
  if (err instanceof ApiError && err.status === 401 && !state.key) {
    say("This server needs an API key: enter yours above. Make one with `zenbrain keys add NAMESPACE`.", true);
  } else {
    say((err && err.error ? err.error + ": " : "") + (err && err.message ? err.message : String(err)), true);
  }
  view("Nothing to show", h("p", { class: "empty", text: "No memories are shown until the request succeeds." }));
}

function memoryCard(m, extra) {
  return h("li", { class: "card", "data-id": m.id },
    h("div", {},
      h("span", { class: "badge", text: m.layer }),
      h("a", { href: "#/memory/" + encodeURIComponent(m.id), class: "content-link" }, m.content)),
    h("div", { class: "meta" }, "id " + m.id + " · " + when(m.created_at)
      + (m.context ? " · context " + m.context : "")),
    extra || null);
}

// ------------------------------------------------------------------ browse
async function browse(params) {
  const layer = params.get("layer") || "";
  const offset = Math.max(0, Number(params.get("offset") || 0));
  const picker = h("select", { id: "layer", name: "layer" },
    h("option", { value: "", text: "every layer" }),
    LAYERS.map((l) => h("option", { value: l, selected: l === layer, text: l })));
  const form = h("form", { class: "row", "aria-label": "Browse filter", onsubmit: (e) => {
    e.preventDefault();
    location.hash = "#/browse?layer=" + picker.value + "&offset=0";
  } }, h("label", { for: "layer" }, "Layer", picker), h("button", { type: "submit", text: "Show" }));
  const found = await api("POST", "/find", { layers: layer ? [layer] : null, limit: PAGE + 1, offset });
  const page = found.slice(0, PAGE);
  const list = h("ul", { class: "list", "aria-label": "Memories" }, page.map((m) => memoryCard(m)));
  const link = (o) => "#/browse?layer=" + layer + "&offset=" + o;
  const pager = h("nav", { class: "pager", "aria-label": "Pages" },
    offset > 0 ? h("a", { href: link(Math.max(0, offset - PAGE)), text: "← Newer" }) : null,
    h("span", { text: page.length ? `${offset + 1}–${offset + page.length}` : "" }),
    found.length > PAGE ? h("a", { href: link(offset + PAGE), text: "Older →" }) : null);
  say(page.length ? "" : "No memories in this namespace" + (layer ? " and layer" : "") + ".");
  view("Browse" + (state.namespace ? " · " + state.namespace : ""), form,
    page.length ? list : h("p", { class: "empty", text: "Nothing stored here yet." }), pager);
}

// ------------------------------------------------------------------ search
const PART_NAMES = [["lexical", "Lexical"], ["semantic", "Semantic"], ["layer", "Layer"], ["neighbours", "Neighbours"]];

function scoreParts(parts) {
  if (!parts) return null;
  const grid = h("div", { class: "parts", role: "group", "aria-label": "Score breakdown" });
  for (const [key, label] of PART_NAMES) {
    const value = parts[key];
    const width = value === null || value === undefined ? 0 : Math.max(0, Math.min(1, value)) * 100;
    grid.append(h("span", { text: label }),
      h("span", { class: "bar", role: "img", "aria-label": `${label} ${fmt(value)}` },
        h("span", { style: `width:${width}%;background:var(--${key})` })),
      h("span", { class: "part-" + key, text: fmt(value) }));
  }
  return grid;
}

async function search(params) {
  const query = params.get("q") || "";
  const input = h("input", { id: "query", name: "q", type: "search", value: query, required: true, size: 40 });
  const form = h("form", { class: "row", role: "search", "aria-label": "Recall", onsubmit: (e) => {
    e.preventDefault();
    location.hash = "#/search?q=" + encodeURIComponent(input.value);
  } }, h("label", { for: "query" }, "Question", input), h("button", { type: "submit", text: "Recall" }));
  const parts = [form];
  if (query.trim()) {
    const results = await api("POST", "/recall", { query, limit: 20, explain: true });
    parts.push(h("ul", { class: "list", "aria-label": "Results" }, results.map((m) => memoryCard(m,
      h("div", {}, h("div", { class: "meta" }, "score " + fmt(m.score) + (m.explanation && m.explanation.fill_in ? " (no match in its layer: shown as the layer's newest)" : "")),
        scoreParts(m.explanation))))));
    say(results.length + " results.");
  }
  view("Search", ...parts);
  if (!query) input.focus();
}

// ------------------------------------------------------------------ one memory
async function memoryPage(id) {
  const path = "/memories/" + encodeURIComponent(id);
  const p = await api("GET", path + "/provenance");
  const m = p.memory;
  const isCore = m.layer === "core";  // a core block has no versions: it is set again
  const versions = isCore ? [] : await api("GET", path + "/history");
  const idLink = (other) => h("li", {}, h("a", { href: "#/memory/" + encodeURIComponent(other), text: other }));
  const facts = h("dl", { class: "facts" },
    h("dt", { text: "Layer" }), h("dd", { text: m.layer }),
    h("dt", { text: "Id" }), h("dd", { text: m.id }),
    h("dt", { text: "Stored" }), h("dd", { text: when(m.created_at) }),
    h("dt", { text: "Confidence" }), h("dd", { text: fmt(m.confidence) }),
    h("dt", { text: "Emotional weight" }), h("dd", { text: fmt(m.emotional_weight) }),
    h("dt", { text: "Source" }), h("dd", { text: p.source || "—" }),
    h("dt", { text: "Metadata" }), h("dd", {}, h("pre", { text: JSON.stringify(m.metadata, null, 2) })));
  const provenance = h("section", { "aria-labelledby": "prov-title", class: "card" },
    h("h3", { id: "prov-title", text: "Provenance" }),
    h("p", { text: p.consolidated_from.length ? "Consolidated from these episodes:" : "Not made from an episode." }),
    p.consolidated_from.length ? h("ul", { class: "from" }, p.consolidated_from.map(idLink)) : null,
    h("p", { text: p.consolidated_into.length ? "Consolidated into these facts:" : "Not consolidated into a fact." }),
    p.consolidated_into.length ? h("ul", { class: "into" }, p.consolidated_into.map(idLink)) : null);
  let card = null;
  if (p.review) {
    const c = p.review.card || {};
    card = h("section", { "aria-labelledby": "card-title", class: "card" },
      h("h3", { id: "card-title", text: "FSRS review card" }),
      h("dl", { class: "facts" },
        h("dt", { text: "Due" }), h("dd", { text: when(p.review.due) }),
        h("dt", { text: "Stability" }), h("dd", { text: fmt(c.stability) }),
        h("dt", { text: "Difficulty" }), h("dd", { text: fmt(c.difficulty) }),
        h("dt", { text: "State" }), h("dd", { text: c.state === undefined ? "—" : String(c.state) })));
  }
  // The versions of the memory (update() chains them), oldest first.
  const history = versions.length > 1 ? h("section", { "aria-labelledby": "history-title", class: "card" },
    h("h3", { id: "history-title", text: "History" }),
    h("ol", { class: "history", "aria-label": "Versions, oldest first" }, versions.map((v) => h("li", {},
      v.id === m.id ? h("strong", { text: v.content }) : h("a", { href: "#/memory/" + encodeURIComponent(v.id), text: v.content }),
      h("div", { class: "meta", text: "from " + when(v.valid_from || v.created_at)
        + (v.valid_to ? " until " + when(v.valid_to) : ", current") + (v.id === m.id ? " · this version" : "") }))))) : null;
  const editor = h("textarea", { id: "edit-content", name: "content" });
  editor.value = m.content;
  // Saving a core block sets it again under its label; saving any other memory is update():
  // the text becomes a new version and this one stays readable in the history.
  const edit = h("form", { class: "card", "aria-labelledby": "edit-title", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const done = isCore
        ? await api("PUT", path, { content: editor.value })
        : await api("POST", path + "/update", { content: editor.value });
      state.flash = isCore ? "Saved." : "Saved as a new version; the old one is kept in its history.";
      location.hash = "#/memory/" + encodeURIComponent(done.id);
      if (done.id === m.id) route();
    } catch (err) { say(err.message, true); }
  } }, h("h3", { id: "edit-title", text: "Edit" }),
    h("label", { for: "edit-content", text: isCore ? "Text (saving sets the core block again)"
      : "Text (saving stores a new version; this one stays in the history)" }), editor,
    h("div", { class: "actions" },
      h("button", { type: "submit", text: "Save" }),
      h("button", { type: "button", class: "danger", id: "forget", text: "Forget…", onclick: () => forgetFlow(m) })));
  view("Memory", h("div", { class: "card" }, h("pre", { class: "memory-content", text: m.content })),
    h("div", { class: "card" }, facts), history, provenance, card, edit);
}

function counted(n, one, many) {
  return n + " " + (n === 1 ? one : many);
}

// One memory a forget takes with it, named by what it says (a working-memory slot by what it
// is: the copy of this memory, or a note), its id after it.
async function cascadeItem(a) {
  if (a.layer === "working") return h("li", { text: "its copy in working memory (" + a.id + ")" });
  try {
    const linked = await api("GET", "/memories/" + encodeURIComponent(a.id));
    return h("li", {}, a.layer + " “", linked.content.slice(0, 80), "” (" + a.id + ")");
  } catch (err) {
    return h("li", { text: a.layer + " " + a.id });
  }
}

async function forgetFlow(m) {
  try {
    const preview = await api("DELETE", "/memories/" + encodeURIComponent(m.id), undefined, { layer: m.layer, dry_run: "true" });
    const dialog = document.getElementById("confirm");
    const body = document.getElementById("confirm-body");
    const also = preview.also_forgotten.filter((a) => a && a.id);
    const items = await Promise.all(also.map(cascadeItem));
    const copies = preview.duplicates.length;
    // replaceChildren writes a null as the text "null": only the parts that apply are given.
    body.replaceChildren(...[
      h("p", {}, "This deletes the " + m.layer + " memory “", m.content.slice(0, 120), "” for good."),
      also.length ? h("p", { text: "It takes with it " + counted(also.length, "linked memory", "linked memories") + ":" }) : h("p", { text: "Nothing else goes with it." }),
      also.length ? h("ul", { class: "cascade" }, items) : null,
      copies ? h("p", { text: counted(copies, "stand-alone copy", "stand-alone copies") + " with the same text " + (copies === 1 ? "is" : "are") + " kept." }) : null,
    ].filter(Boolean));
    dialog.returnValue = "";
    dialog.showModal();
    document.getElementById("confirm-ok").focus();
    dialog.addEventListener("close", async () => {
      if (dialog.returnValue !== "ok") { say("Nothing was forgotten."); return; }
      try {
        const done = await api("DELETE", "/memories/" + encodeURIComponent(m.id), undefined, { layer: m.layer });
        state.flash = "Forgotten, with " + counted(done.also_forgotten.length, "linked memory", "linked memories") + ".";
        location.hash = "#/browse";
      } catch (err) { say(err.message, true); }
    }, { once: true });
  } catch (err) { say(err.message, true); }
}

// ------------------------------------------------------------------ core blocks
async function coreBlocks() {
  const blocks = await api("GET", "/core-blocks");
  const cards = blocks.map((b, i) => {
    const area = h("textarea", { id: "core-" + i, name: "content" });
    area.value = b.content;
    return h("li", { class: "card" }, h("form", { "aria-label": "Core block " + b.label, onsubmit: async (e) => {
      e.preventDefault();
      try { await api("PUT", "/core-blocks/" + encodeURIComponent(b.label), { content: area.value }); say("Saved " + b.label + "."); }
      catch (err) { say(err.message, true); }
    } }, h("label", { for: "core-" + i }, h("h3", { text: b.label })), area,
      h("div", { class: "meta", text: "updated " + when(b.updated_at) }),
      h("div", { class: "actions" }, h("button", { type: "submit", text: "Save" }),
        h("button", { type: "button", class: "danger", text: "Delete", onclick: async () => {
          if (!confirm("Delete the core block " + b.label + "?")) return;
          try { await api("DELETE", "/core-blocks/" + encodeURIComponent(b.label)); state.flash = "Deleted " + b.label + "."; route(); }
          catch (err) { say(err.message, true); }
        } }))));
  });
  const label = h("input", { id: "new-label", name: "label", required: true });
  const content = h("textarea", { id: "new-content", name: "content", required: true });
  const add = h("form", { class: "card", "aria-labelledby": "new-title", onsubmit: async (e) => {
    e.preventDefault();
    try { await api("PUT", "/core-blocks/" + encodeURIComponent(label.value), { content: content.value }); state.flash = "Added."; route(); }
    catch (err) { say(err.message, true); }
  } }, h("h3", { id: "new-title", text: "New block" }),
    h("label", { for: "new-label", text: "Label" }), label,
    h("label", { for: "new-content", text: "Content" }), content,
    h("div", { class: "actions" }, h("button", { type: "submit", text: "Add" })));
  view("Core blocks", blocks.length ? h("ul", { class: "list" }, cards) : h("p", { class: "empty", text: "No core blocks." }), add);
}

// ------------------------------------------------------------------ review and consolidation
const GRADES = [[1, "Again"], [2, "Hard"], [3, "Good"], [4, "Easy"]];
async function review() {
  const items = await api("GET", "/review-queue", undefined, { limit: 50 });
  const result = h("div", { "aria-live": "polite" });
  const consolidate = h("button", { type: "button", id: "consolidate", text: "Consolidate now", onclick: async () => {
    consolidate.disabled = true;
    try {
      const r = await api("POST", "/consolidate");
      result.replaceChildren(h("div", { class: "card" },
        h("p", { text: `Promoted ${r.promoted} episodes, decayed ${r.decayed}, pruned ${r.pruned}.` }),
        r.promotions.length ? h("ul", {}, r.promotions.map((p) => h("li", {},
          h("a", { href: "#/memory/" + encodeURIComponent(p.episode_id), text: "episode " + p.episode_id }), " → ",
          p.fact_ids.map((f) => h("a", { href: "#/memory/" + encodeURIComponent(f), text: "fact " + f }))))) : null));
    } catch (err) { say(err.message, true); }
    consolidate.disabled = false;
  } });
  const list = h("ul", { class: "list", "aria-label": "Due for review" }, items.map((item) => h("li", { class: "card" },
    h("a", { href: "#/memory/" + encodeURIComponent(item.id), text: item.content }),
    h("div", { class: "meta", text: "due " + when(item.due) }),
    h("div", { class: "actions grades", role: "group", "aria-label": "Grade this review" }, GRADES.map(([g, name]) =>
      h("button", { type: "button", class: "secondary", text: name, "aria-label": name + " (" + g + ")", onclick: async () => {
        try { const next = await api("POST", "/reviews", { fact_id: item.id, grade: g }); state.flash = "Next review " + when(next.due) + "."; route(); }
        catch (err) { say(err.message, true); }
      } }))))));
  view("Review", h("div", { class: "actions" }, consolidate), result,
    items.length ? list : h("p", { class: "empty", text: "Nothing is due for review." }));
}

// ------------------------------------------------------------------ health
async function health() {
  const data = await api("GET", "/health");
  const counts = [["working", data.working.used], ["short-term", data.short_term.interactions],
    ["episodic", data.episodic.count], ["semantic", data.semantic.count], ["procedural", data.procedural.count],
    ["core", data.core.blocks], ["cross-context", data.cross_context.entities]];
  const max = Math.max(1, ...counts.map((c) => c[1]));
  const rowH = 30, width = 600, left = 120;
  const chart = s("svg", { class: "chart", viewBox: `0 0 ${width} ${counts.length * rowH + 10}`, role: "img", "aria-labelledby": "chart-title" },
    s("title", { id: "chart-title" }, "Memories per layer: " + counts.map((c) => c[0] + " " + c[1]).join(", ")));
  counts.forEach(([name, n], i) => {
    const y = i * rowH + 5, w = (n / max) * (width - left - 60);
    chart.append(s("text", { x: left - 8, y: y + 18, "text-anchor": "end", "font-size": 14 }, name),
      s("rect", { x: left, y: y + 4, width: Math.max(w, 1), height: 18, fill: "#1f5fa8", rx: 3 }),
      s("text", { x: left + w + 6, y: y + 18, "font-size": 14 }, String(n)));
  });
  const table = h("table", {}, h("caption", { text: "Counts per layer" }),
    h("tbody", {}, counts.map(([name, n]) => h("tr", {}, h("th", { scope: "row", text: name }), h("td", { text: String(n) })))));
  view("Health", chart, h("p", { class: "meta", text: `${data.semantic.due_for_review} facts due for review; working memory holds ${data.working.used} of ${data.working.capacity}.` }), table);
}

// ------------------------------------------------------------------ cross-context entities
async function entities() {
  const pairs = await api("GET", "/merge-candidates", undefined, { limit: 40 });
  if (!pairs.length) {
    view("Entities", h("p", { class: "empty", text: "No entities of different contexts are linked yet." }));
    return;
  }
  const nodes = new Map();
  const node = (name, context) => {
    const key = context + "\u0000" + name;
    if (!nodes.has(key)) nodes.set(key, { name, context, index: nodes.size });
    return nodes.get(key);
  };
  const edges = pairs.map((p) => [node(p.name, p.context), node(p.other_name, p.other_context), p.similarity]);
  const size = 520, r = 200, cx = size / 2, cy = size / 2, n = nodes.size;
  const at = (nd) => [cx + r * Math.cos((2 * Math.PI * nd.index) / n), cy + r * Math.sin((2 * Math.PI * nd.index) / n)];
  const graph = s("svg", { class: "chart", viewBox: `0 0 ${size} ${size}`, role: "img", "aria-labelledby": "graph-title" },
    s("title", { id: "graph-title" }, "Entities linked across contexts: " + pairs.map((p) => `${p.name} (${p.context}) – ${p.other_name} (${p.other_context})`).join("; ")));
  for (const [a, b, sim] of edges) {
    const [x1, y1] = at(a), [x2, y2] = at(b);
    graph.append(s("line", { x1, y1, x2, y2, stroke: "#7a3fa0", "stroke-width": 1 + 3 * sim, opacity: 0.7 }));
  }
  for (const nd of nodes.values()) {
    const [x, y] = at(nd);
    graph.append(s("circle", { cx: x, cy: y, r: 7, fill: "#1f5fa8" }),
      s("text", { x: x + 10, y: y + 4, "font-size": 12 }, `${nd.name} · ${nd.context}`));
  }
  const list = h("ul", { "aria-label": "Linked entities" }, pairs.map((p) => h("li", { text: `${p.name} (${p.context}) ↔ ${p.other_name} (${p.other_context}), similarity ${fmt(p.similarity)}` })));
  view("Entities", graph, list);
}

// ------------------------------------------------------------------ routing
const VIEWS = { browse, search, core: coreBlocks, review, health, entities };
// Routes run one after another, and only the newest waiting one runs: a view whose requests
// were still in flight when the hash changed would otherwise draw itself over the newer view.
let routing = Promise.resolve();
let routesAsked = 0;
function route() {
  const asked = ++routesAsked;
  routing = routing.then(() => (asked === routesAsked ? showRoute() : undefined));
  return routing;
}
async function showRoute() {
  const hash = location.hash || "#/browse";
  const [path, query] = hash.slice(2).split("?");
  const [name, ...rest] = path.split("/");
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.view === name) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  say("Loading…");
  try {
    if (name === "memory") await memoryPage(decodeURIComponent(rest.join("/")));
    else await (VIEWS[name] || browse)(new URLSearchParams(query || ""));
    if (document.getElementById("status").textContent === "Loading…") say("");
    if (state.flash) { say(state.flash); state.flash = ""; }
  } catch (err) { failed(err); }
}

// ------------------------------------------------------------------ export and import (issue 43)
// This section alone is the "Export / import" view: its tab is added here, and it talks to
// GET /v1/export and POST /v1/import only (docs/guide/exchange.md).
const MOVE_FORMATS = [["", "detect from the file"], ["archive", "zenbrain archive (.zip)"],
  ["mem0", "mem0 JSON"], ["letta", "Letta agent file (.af)"], ["mcp-memory", "MCP memory server JSONL"],
  ["cogx", "Cognee COGX (.cogx.tar.gz)"], ["jsonl", "JSON lines (zenbrain export)"]];

async function moveRequest(method, params, body) {
  const url = new URL(method === "GET" ? "/v1/export" : "/v1/import", location.origin);
  if (state.namespace) url.searchParams.set("namespace", state.namespace);
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  const headers = {};
  if (state.key) headers.Authorization = "Bearer " + state.key;
  const response = await fetch(url, { method, headers, body });
  if (!response.ok) {
    const text = await response.text();
    let data;
    try { data = JSON.parse(text); } catch (e) { data = { detail: text }; }
    throw new ApiError(response.status, data);
  }
  return response;
}

function moveSummary(report) {
  const counts = Object.entries(report.counts || { memories: report.imported }).filter(([, n]) => n);
  const notes = [];
  if (report.layers && Object.keys(report.layers).length) notes.push("by layer: " + Object.entries(report.layers).map(([l, n]) => `${n} ${l}`).join(", "));
  if (report.ids_kept === false) notes.push("new ids (the namespace was not empty)");
  if (report.vectors && report.vectors !== "none") notes.push("embeddings " + report.vectors);
  if (report.skipped && Object.keys(report.skipped).length) notes.push("skipped: " + Object.entries(report.skipped).map(([k, n]) => `${n} ${k}`).join(", "));
  return h("div", { class: "card", id: "import-summary" },
    h("h3", { text: report.dry_run ? "Would import" : "Imported" }),
    h("table", {}, h("caption", { text: "Rows per kind" + (report.format ? " (" + report.format + ")" : "") }),
      h("tbody", {}, counts.map(([kind, n]) => h("tr", {}, h("th", { scope: "row", text: kind }), h("td", { text: String(n) }))))),
    notes.length ? h("p", { class: "meta", text: notes.join("; ") }) : null);
}

async function move() {
  const download = (format, label) => h("button", { type: "button", text: label, onclick: async () => {
    try {
      const response = await moveRequest("GET", { format });
      const blob = await response.blob();
      const named = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
      const link = h("a", { href: URL.createObjectURL(blob), download: named ? named[1] : `zenbrain-${format}.zip` });
      document.body.append(link);
      link.click();
      link.remove();
      say("Downloaded the " + label + ".");
    } catch (err) { say(err.message, true); }
  } });
  const file = h("input", { id: "import-file", type: "file", name: "file" });
  const format = h("select", { id: "import-format", name: "format" }, MOVE_FORMATS.map(([value, text]) => h("option", { value, text })));
  const result = h("div", { "aria-live": "polite" });
  const send = async (dryRun) => {
    const body = await file.files[0].arrayBuffer();
    return (await moveRequest("POST", { format: format.value, dry_run: dryRun ? "true" : "" }, body)).json();
  };
  const importNow = h("button", { type: "button", id: "import-now", disabled: true, text: "Import", onclick: async () => {
    importNow.disabled = true;
    try { result.replaceChildren(moveSummary(await send(false))); say("Imported " + file.files[0].name + "."); }
    catch (err) { say(err.message, true); }
  } });
  const check = h("button", { type: "button", id: "import-check", class: "secondary", text: "Check (dry run)", onclick: async () => {
    if (!file.files.length) { say("Choose a file first.", true); return; }
    try {
      result.replaceChildren(moveSummary(await send(true)));
      importNow.disabled = false;
      say("Checked " + file.files[0].name + ": nothing was stored yet.");
    } catch (err) { importNow.disabled = true; result.replaceChildren(); say(err.message, true); }
  } });
  const reset = () => { importNow.disabled = true; result.replaceChildren(); };
  file.addEventListener("change", reset);
  format.addEventListener("change", reset);
  view("Export / import",
    h("section", { class: "card", "aria-labelledby": "export-title" }, h("h3", { id: "export-title", text: "Export" }),
      h("p", { class: "meta", text: "This whole namespace. The archive keeps everything (ids, times, replaced-by links, review cards, sessions, entities) and imports back; OKF is Markdown to read, grep and keep in git." }),
      h("div", { class: "actions" }, download("archive", "archive"), download("okf", "OKF Markdown"))),
    h("section", { class: "card", "aria-labelledby": "import-title" }, h("h3", { id: "import-title", text: "Import" }),
      h("p", { class: "meta", text: "Check first: the dry run reports what would be stored. An import is all or nothing." }),
      h("label", { for: "import-file", text: "File" }), file,
      h("label", { for: "import-format", text: "Format" }), format,
      h("div", { class: "actions" }, check, importNow), result));
}
VIEWS.move = move;
document.querySelector("nav .tabs").append(h("li", {}, h("a", { href: "#/move", "data-view": "move", text: "Export / import" })));
// ------------------------------------------------------------------ end of export and import

// Which namespace the page shows: the one asked for, else the key's own (whoami says which).
async function showOpened() {
  const field = document.getElementById("namespace");
  const opened = document.getElementById("opened");
  try {
    const who = await api("GET", "/whoami");
    field.placeholder = who.namespace;
    opened.textContent = "Namespace open: " + who.namespace;
  } catch (err) {
    field.placeholder = "default";
    opened.textContent = "";
  }
}

async function loadNamespaces() {
  showOpened();
  try {
    const found = await api("GET", "/namespaces");
    document.getElementById("namespace-list").replaceChildren(...found.namespaces.map((ns) => h("option", { value: ns })));
  } catch (err) { /* shown by the view's own request */ }
}

document.getElementById("access").addEventListener("submit", (e) => {
  e.preventDefault();
  state.key = document.getElementById("api-key").value.trim();
  state.namespace = document.getElementById("namespace").value.trim();
  sessionStorage.setItem("zb-key", state.key);
  sessionStorage.setItem("zb-ns", state.namespace);
  loadNamespaces();
  route();
});
document.getElementById("api-key").value = state.key;
document.getElementById("namespace").value = state.namespace;
window.addEventListener("hashchange", route);
loadNamespaces();
route();
