// Runs app/serve/static/app.js against a live `lantern serve` with a small stand-in DOM (no browser):
// loads the courses, asks one question, waits for the answer, prints what the page shows as JSON.
// usage: node tests/js/serve_page.js BASE_URL "question"
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

class Element {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.listeners = {};
    this.className = "";
    this.value = "";
    this.disabled = false;
    this.options = [];
    this.attributes = {};
    this.lang = "";
    this._text = "";
    this.innerHTML = "";
  }
  get childNodes() { return this.children; }
  get selectedIndex() { return this.options.findIndex((o) => o.value === this.value); }
  getAttribute(name) { return name in this.attributes ? this.attributes[name] : null; }
  setAttribute(name, value) { this.attributes[name] = String(value); }
  get firstChild() { return this.children[0] || null; }
  get textContent() { return this._text; }
  set textContent(text) { this._text = text; if (text === "") { this.children = []; } }
  appendChild(child) {
    this.children.push(child);
    if (this.tagName === "SELECT") { this.options.push(child); }
    return child;
  }
  insertBefore(child, before) {
    const at = before ? this.children.indexOf(before) : -1;
    if (at < 0) { this.children.push(child); } else { this.children.splice(at, 0, child); }
    return child;
  }
  addEventListener(name, handler) { (this.listeners[name] = this.listeners[name] || []).push(handler); }
  requestSubmit() { (this.listeners.submit || []).forEach((h) => h({ preventDefault() {} })); }
  focus() {}
  dump() {
    return { tag: this.tagName, className: this.className, text: this._text, html: this.innerHTML,
             href: this.href, children: this.children.map((c) => c.dump()) };
  }
}

const base = process.argv[2];
const question = process.argv[3];
const ids = { course: "select", "ask-form": "form", question: "textarea", status: "p", conversation: "section",
              stop: "button", ask: "button", new: "button" };
const elements = {};
Object.keys(ids).forEach((id) => { elements[id] = new Element(ids[id]); });
// The page's translated texts (index.html's data-word attributes), with their English as written there.
[["ask", "ask", "Ask"], ["stop", "stop", "Stop"], ["new", "new", "New conversation"]].forEach(([id, key, text]) => {
  elements[id].setAttribute("data-word", key);
  elements[id].textContent = text;
});
elements.conversation.setAttribute("data-label-word", "answers");
elements.conversation.setAttribute("aria-label", "Answers");
const root = new Element("html");
const marked = (name) => Object.values(elements).filter((e) => e.getAttribute(name) !== null);
const stored = new Map();
const sent = [];
let finding = "Finding passages…";
const context = {
  document: { getElementById: (id) => elements[id], createElement: (tag) => new Element(tag), documentElement: root,
              querySelectorAll: (selector) => marked(selector.slice(1, -1)) },
  location: { search: "" },
  sessionStorage: { getItem: (k) => (stored.has(k) ? stored.get(k) : null), setItem: (k, v) => stored.set(k, String(v)),
                    removeItem: (k) => stored.delete(k) },
  fetch: (url, options) => { sent.push({ url, body: options && options.body }); return fetch(base + url, options); },
  URLSearchParams, TextDecoder, AbortController, console, setTimeout,
};
vm.createContext(context);
vm.runInContext(fs.readFileSync(path.join(__dirname, "../../app/serve/static/app.js"), "utf8"), context);

function waitFor(test, ms) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    (function poll() {
      if (test()) { resolve(); } else if (Date.now() > deadline) { reject(new Error("timed out")); } else { setTimeout(poll, 20); }
    }());
  });
}

async function askAndWait(text) {
  elements.question.value = text;
  elements["ask-form"].requestSubmit();
  await waitFor(() => !elements.ask.disabled && elements.status.textContent !== finding, 20000);
}

(async () => {
  await waitFor(() => elements.course.options.length > 0 && elements.course.value, 10000);
  finding = { fr: "Recherche des passages…", es: "Buscando pasajes…" }[root.lang] || "Finding passages…";
  await askAndWait(question);
  const first = { status: elements.status.textContent, conversation: elements.conversation.dump() };
  await askAndWait("Which pins does it use?");
  console.log(JSON.stringify({ course: elements.course.value, first, status: elements.status.textContent,
                               lang: root.lang, buttons: [elements.ask.textContent, elements.stop.textContent, elements.new.textContent],
                               label: elements.conversation.getAttribute("aria-label"),
                               turns: elements.conversation.children.length, history: JSON.parse(stored.get("lantern-history-" + elements.course.value) || "[]"),
                               sent }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
