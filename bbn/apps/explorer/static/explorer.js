// bbn explorer: the network drawn from Graphviz's layout, belief bars on every node
// (without Graphviz on the server, laid out here by the vendored dagre: layOut below).
// A click on a state toggles a finding; one GET /api/posteriors answers every bar.
// Text from the model only ever goes through textContent and setAttribute: nothing the
// model or a user wrote is parsed as HTML or run.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const MARGIN = 10;       // points of white around the drawing
const explorer = {
  model: null,
  findings: new Map(),   // variable → state
  bars: new Map(),       // variable → Map(state → {row, bar, prob})
  nodes: new Map(),      // variable → its <g>
  zoom: 1,
  sent: 0,               // requests sent: a late answer to an old click is dropped
  updates: 0,
};

function svg(name, attributes, parent) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes || {})) {
    element.setAttribute(key, value);
  }
  if (parent) parent.appendChild(element);
  return element;
}

function svgText(attributes, content, parent) {
  const element = svg("text", attributes, parent);
  element.textContent = content;
  return element;
}

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

async function api(path, options) {
  const response = await fetch(path, options);
  let body;
  try { body = await response.json(); } catch (error) { body = {}; }
  if (!response.ok) {
    throw new ApiError(body.error || `${response.status} ${response.statusText}`,
                       response.status);
  }
  return body;
}

function showMessage(text) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.hidden = !text;
}

// ------------------------------------------------------------------ drawing
const ARROW = 7;         // points from an arrow's base to its tip

// The server has no Graphviz: dagre (static/dagre.min.js, MIT) places the boxes, parents
// above children, and routes the arcs; the result has the shape of Graphviz's layout.
function layOut(sizes) {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({rankdir: "TB", nodesep: 22, ranksep: 32, marginx: 7, marginy: 7});
  graph.setDefaultEdgeLabel(() => ({}));
  for (const [name, box] of Object.entries(sizes.nodes)) {
    graph.setNode(name, {width: box.width, height: box.height});
  }
  for (const arc of sizes.arcs) graph.setEdge(arc.tail, arc.head);
  dagre.layout(graph);
  const nodes = {};
  for (const [name, box] of Object.entries(sizes.nodes)) {
    const placed = graph.node(name);
    nodes[name] = {x: placed.x - box.width / 2, y: placed.y - box.height / 2,
                   width: box.width, height: box.height};
  }
  const arcs = sizes.arcs.map((arc) => {
    const points = graph.edge(arc.tail, arc.head).points.map((p) => [p.x, p.y]);
    const tip = points[points.length - 1];
    const from = points[points.length - 2];
    const length = Math.hypot(tip[0] - from[0], tip[1] - from[1]) || 1;
    const ux = (tip[0] - from[0]) / length, uy = (tip[1] - from[1]) / length;
    const base = [tip[0] - ARROW * ux, tip[1] - ARROW * uy];
    const line = [...points.slice(0, -1), base];
    return {tail: arc.tail, head: arc.head,
            path: "M" + line.map((p) => p.join(",")).join(" L"),
            arrow: [tip, [base[0] - 3.5 * uy, base[1] + 3.5 * ux],
                    [base[0] + 3.5 * uy, base[1] - 3.5 * ux]]};
  });
  const whole = graph.graph();
  return {width: whole.width, height: whole.height, nodes, arcs, geometry: sizes.geometry,
          engine: "page"};
}

function draw(model) {
  if (model.layout.engine === "page") model.layout = layOut(model.layout);
  const picture = document.getElementById("network");
  picture.replaceChildren();
  explorer.bars = new Map();
  explorer.nodes = new Map();
  const layout = model.layout;
  const g = layout.geometry;
  const m = MARGIN;
  picture.setAttribute("viewBox", `${-m} ${-m} ${layout.width + 2 * m} ${layout.height + 2 * m}`);
  for (const arc of layout.arcs) {
    svg("path", {class: "arc", d: arc.path}, picture);
    svg("polygon", {class: "arrow", points: arc.arrow.map((p) => p.join(",")).join(" ")},
        picture);
  }
  for (const variable of model.variables) {
    const box = layout.nodes[variable.name];
    const node = svg("g", {class: "node", "data-node": variable.name,
                           transform: `translate(${box.x},${box.y})`}, picture);
    const title = svg("title", {}, node);
    title.textContent = variable.description
      ? `${variable.name}: ${variable.description}` : variable.name;
    svg("rect", {class: "box", width: box.width, height: box.height, rx: 3}, node);
    svg("rect", {class: "header", x: 0.6, y: 0.6, width: box.width - 1.2,
                 height: g.header - 0.6, rx: 3}, node);
    svgText({class: "name", x: g.pad + 2, y: g.header - 6}, variable.name, node);
    if (variable.continuous) {
      svgText({class: "continuous", x: g.pad + 2, y: g.header + 12}, "continuous", node);
    }
    const labelWidth = box.width - 2 * g.pad - g.bar - g.probability;
    const states = new Map();
    variable.states.forEach((state, i) => {
      const row = svg("g", {class: "state", "data-variable": variable.name,
                            "data-state": state,
                            transform: `translate(${g.pad},${g.header + g.pad + i * g.row})`},
                      node);
      svg("rect", {class: "hit", width: box.width - 2 * g.pad, height: g.row}, row);
      svgText({class: "label", x: 2, y: g.row - 4}, state, row);
      svg("rect", {class: "track", x: labelWidth, y: 3, width: g.bar, height: g.row - 6},
          row);
      const bar = svg("rect", {class: "bar", x: labelWidth, y: 3, width: 0,
                               height: g.row - 6}, row);
      const prob = svgText({class: "prob", x: box.width - 2 * g.pad - 2, y: g.row - 4,
                            "text-anchor": "end"}, "", row);
      row.setAttribute("role", "button");      // reachable and usable from the keyboard
      row.setAttribute("tabindex", "0");
      row.setAttribute("aria-label", `${variable.name} = ${state}`);
      row.addEventListener("click", () => toggle(variable.name, state));
      row.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle(variable.name, state);
        }
      });
      states.set(state, {row, bar, prob});
    });
    explorer.bars.set(variable.name, states);
    explorer.nodes.set(variable.name, node);
  }
  document.getElementById("model-name").textContent = model.name;
  document.getElementById("model-source").textContent = model.source;
  document.title = `${model.name} · bbn explorer`;
  setZoom(explorer.zoom);
}

function setZoom(zoom) {
  explorer.zoom = zoom;
  const layout = explorer.model.layout;
  const picture = document.getElementById("network");
  picture.setAttribute("width", Math.floor((layout.width + 2 * MARGIN) * zoom));
  picture.setAttribute("height", Math.floor((layout.height + 2 * MARGIN) * zoom));
}

function fitting() {
  const area = document.getElementById("drawing");
  const layout = explorer.model.layout;
  return Math.min(area.clientWidth / (layout.width + 2 * MARGIN),
                  area.clientHeight / (layout.height + 2 * MARGIN));
}

// A wide network's top-left corner is often empty: scroll to its top-most node.
function showTop() {
  const boxes = Object.values(explorer.model.layout.nodes);
  if (!boxes.length) return;
  const top = boxes.reduce((a, b) => (b.y < a.y || (b.y === a.y && b.x < a.x) ? b : a));
  const area = document.getElementById("drawing");
  area.scrollTop = 0;
  area.scrollLeft = Math.max(0, (top.x + top.width / 2 + MARGIN) * explorer.zoom
                                - area.clientWidth / 2);
}

function fit() { setZoom(Math.min(2, fitting())); }

// ------------------------------------------------------------------ beliefs
function show(result, clicked) {
  const g = explorer.model.layout.geometry;
  for (const [variable, distribution] of Object.entries(result.posteriors)) {
    const states = explorer.bars.get(variable);
    for (const [state, p] of Object.entries(distribution)) {
      const shown = states.get(state);
      shown.bar.setAttribute("width", (p * g.bar).toFixed(2));
      shown.prob.textContent = p.toFixed(4);
      shown.row.classList.toggle("finding", explorer.findings.get(variable) === state);
    }
  }
  // An influence diagram's decisions: each option's expected utility, the best marked.
  for (const [variable, utilities] of Object.entries(result.expected_utilities || {})) {
    const states = explorer.bars.get(variable);
    if (!utilities) continue;  // a finding below a decision not taken yet
    const values = Object.values(utilities);
    const top = Math.max(...values), low = Math.min(...values);
    for (const [option, eu] of Object.entries(utilities)) {
      const shown = states.get(option);
      const width = top > low ? (eu - low) / (top - low) : 1;
      shown.bar.setAttribute("width", (width * g.bar).toFixed(2));
      shown.prob.textContent = `EU ${eu.toPrecision(4)}${eu === top ? " *" : ""}`;
    }
  }
  for (const [variable, node] of explorer.nodes) {
    node.classList.toggle("observed", explorer.findings.has(variable));
  }
  const list = document.getElementById("findings");
  list.replaceChildren();
  for (const [variable, state] of explorer.findings) {
    const item = document.createElement("li");
    item.append(`${variable} = ${state} `);
    const clear = document.createElement("button");
    clear.type = "button";
    clear.title = `clear ${variable}`;
    clear.textContent = "×";
    clear.addEventListener("click", () => toggle(variable, state));
    item.append(clear);
    list.append(item);
  }
  document.getElementById("p-evidence").textContent =
    result.p_evidence === null ? "(a density: continuous findings)"
      : result.p_evidence.toPrecision(6);
  // For tests and the benchmark: updates done, and the last click's time to painted bars.
  requestAnimationFrame(() => {
    explorer.updates += 1;
    document.body.dataset.updates = explorer.updates;
    if (clicked !== undefined) {
      document.body.dataset.lastUpdateMs = (performance.now() - clicked).toFixed(2);
    }
  });
}

async function update(findings, clicked) {
  const query = new URLSearchParams();
  for (const [variable, state] of findings) query.append(variable, state);
  const sent = ++explorer.sent;
  try {
    const result = await api(`api/posteriors?${query}`);
    if (sent !== explorer.sent) return;
    explorer.findings = findings;
    showMessage("");
    show(result, clicked);
  } catch (error) {
    if (sent !== explorer.sent) return;
    showMessage(error.message);   // the previous findings and bars stay as they were
    document.body.dataset.updates = ++explorer.updates;
  }
}

function toggle(variable, state) {
  const clicked = performance.now();
  const findings = new Map(explorer.findings);
  if (findings.get(variable) === state) findings.delete(variable);
  else findings.set(variable, state);
  return update(findings, clicked);
}

// ------------------------------------------------------------ likelihoods
// A finding may be per-state weights, sent as "T:0.8,F:0.4" (docs/evidence.md).
function weightInputs() {
  const box = document.getElementById("weights-states");
  box.replaceChildren();
  const name = document.getElementById("weights-variable").value;
  const variable = explorer.model.variables.find((v) => v.name === name);
  if (!variable) return;
  const current = explorer.findings.get(name);
  const given = new Map();
  if (current !== undefined && !variable.states.includes(current)) {
    for (const part of current.split(",")) {
      const i = part.lastIndexOf(":");
      given.set(part.slice(0, i), part.slice(i + 1));
    }
  }
  for (const state of variable.states) {
    const label = document.createElement("label");
    label.className = "weight";
    const text = document.createElement("span");
    text.textContent = state;
    const input = document.createElement("input");
    Object.assign(input, {type: "number", min: "0", step: "any", required: true,
                          value: given.get(state) ?? (current === undefined ? "1"
                            : current === state ? "1" : "0")});
    input.dataset.state = state;
    label.append(text, input);
    box.append(label);
  }
}

function weigh(event) {
  event.preventDefault();
  const name = document.getElementById("weights-variable").value;
  const inputs = document.querySelectorAll("#weights-states input");
  if (!name || !inputs.length) return undefined;
  const weights = Array.from(inputs, (input) => `${input.dataset.state}:${input.value}`);
  const findings = new Map(explorer.findings);
  findings.set(name, weights.join(","));
  return update(findings, performance.now());
}

function weightVariables(model) {
  const select = document.getElementById("weights-variable");
  select.replaceChildren();
  for (const variable of model.variables) {
    if (variable.continuous) continue;
    const option = document.createElement("option");
    option.value = variable.name;
    option.textContent = variable.name;
    select.append(option);
  }
  weightInputs();
}

async function load(model) {
  explorer.model = model;
  explorer.findings = new Map();
  draw(model);
  weightVariables(model);
  setZoom(Math.min(1.5, Math.max(1, fitting())));   // a large network scrolls: text stays legible
  showTop();
  await update(new Map());
}

// ------------------------------------------------------------ query, upload
async function ask(event) {
  event.preventDefault();
  const answer = document.getElementById("answer");
  const text = document.getElementById("query").value;
  try {
    const result = await api("api/query", {method: "POST", body: text,
                                           headers: {"X-BBN": "1",
                                                     "Content-Type": "text/plain"}});
    answer.classList.remove("error");
    answer.textContent = result.text;
  } catch (error) {
    answer.classList.add("error");
    answer.textContent = error.message;
  }
}

async function upload(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  if (file.size > explorer.model.upload_limit) {
    showMessage(`${file.name}: ${file.size} bytes, more than the limit of ` +
                `${explorer.model.upload_limit}`);
    return;
  }
  try {
    const model = await api("api/model", {
      method: "POST", body: await file.arrayBuffer(),
      headers: {"X-BBN": "1", "X-Filename": encodeURIComponent(file.name),
                "Content-Type": "application/octet-stream"}});
    document.getElementById("answer").textContent = "";
    await load(model);
  } catch (error) {
    showMessage(error.message);   // the model on show stays
  }
}

async function start() {
  document.getElementById("query-form").addEventListener("submit", ask);
  document.getElementById("upload").addEventListener("change", upload);
  document.getElementById("clear").addEventListener("click", () => update(new Map()));
  document.getElementById("weights-form").addEventListener("submit", weigh);
  document.getElementById("weights-variable").addEventListener("change", weightInputs);
  document.getElementById("zoom-in").addEventListener("click",
    () => setZoom(explorer.zoom * 1.25));
  document.getElementById("zoom-out").addEventListener("click",
    () => setZoom(explorer.zoom / 1.25));
  document.getElementById("zoom-fit").addEventListener("click", fit);
  try {
    await load(await api("api/model"));
  } catch (error) {
    showMessage(error.message);
  }
}

document.addEventListener("DOMContentLoaded", start);
