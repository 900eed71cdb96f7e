// Lantern in a browser: ask, read the evidence at once, then the checked sentences as they come.
"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var course = $("course"), form = $("ask-form"), question = $("question"), statusLine = $("status");
  var conversation = $("conversation"), stopButton = $("stop"), askButton = $("ask");
  var KEPT_TURNS = 6, MAX_CHARS = 2000;
  var controller = null;
  // The page's words in the chosen course's language (GET /api/courses, app/i18n [web]); English until then.
  var WORDS = {}, courseWords = {};
  function w(key, english) { return WORDS[key] || english; }
  function applyWords() {
    WORDS = courseWords[course.value] || {};
    var option = course.options[course.selectedIndex];
    document.documentElement.lang = (option && option.lang) || "en";
    Array.prototype.forEach.call(document.querySelectorAll("[data-word]"), function (node) {
      node.textContent = w(node.getAttribute("data-word"), node.textContent);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-label-word]"), function (node) {
      node.setAttribute("aria-label", w(node.getAttribute("data-label-word"), node.getAttribute("aria-label")));
    });
  }

  function historyKey() { return "lantern-history-" + course.value; }
  function loadHistory() {
    try { return JSON.parse(sessionStorage.getItem(historyKey()) || "[]"); } catch (e) { return []; }
  }
  function saveHistory(turns) { sessionStorage.setItem(historyKey(), JSON.stringify(turns.slice(-KEPT_TURNS))); }
  function say(text) { statusLine.textContent = text; }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text) { node.textContent = text; }
    return node;
  }

  function loadCourses() {
    return fetch("/api/courses").then(function (r) { return r.json(); }).then(function (data) {
      var wanted = new URLSearchParams(location.search).get("course") || sessionStorage.getItem("lantern-course");
      data.courses.forEach(function (c) {
        var option = el("option", "", c.title + (c.version ? " (" + c.version + ")" : ""));
        option.value = c.course_id;
        if (c.language) { option.lang = c.language; }
        courseWords[c.course_id] = c.words || {};
        course.appendChild(option);
      });
      var known = Array.prototype.some.call(course.options, function (o) { return o.value === wanted; });
      course.value = known ? wanted : data["default"];
      applyWords();
    }).catch(function () { say(w("courses_failed", "The list of courses could not be loaded; reload the page.")); });
  }

  function sourcesList(answer, links) {
    var cited = answer.citations.length ? answer.citations : answer.sources;
    if (!cited.length) { return null; }
    var box = el("div", "sources");
    box.appendChild(el("h3", "", answer.citations.length ? w("sources", "Sources") : w("nearest", "Nearest sections")));
    var list = el("ul");
    cited.forEach(function (p) {
      var item = el("li"), link = el("a", "", "[" + p.n + "] " + p.source + (p.heading ? " › " + p.heading : ""));
      link.href = links[String(p.n)];
      link.target = "_blank";
      link.rel = "noopener";
      item.appendChild(link);
      list.appendChild(item);
    });
    box.appendChild(list);
    return box;
  }

  function handle(turn, parts, event, data) {
    if (event === "evidence") {
      parts.evidence.innerHTML = data.html;
      say(w("found", "Passages found. Checking a written answer…"));
    } else if (event === "queue") {
      var line = WORDS[data.ahead === 1 ? "queue_one" : "queue_other"];
      say(line ? line.replace("{ahead}", String(data.ahead)) : data.message);
    } else if (event === "busy") {
      say(w("busy", data.message));
    } else if (event === "sentence") {
      if (!parts.checked.childNodes.length) {
        parts.checked.appendChild(el("h3", "", w("in_short", "In short (each sentence checked against the passage it cites)")));
      }
      var p = el("div", "sentence");
      p.innerHTML = data.html;
      parts.checked.appendChild(p);
      say(w("writing", "Writing…"));
    } else if (event === "done") {
      if (!parts.evidence.childNodes.length) { parts.evidence.innerHTML = data.html; }
      var list = sourcesList(data.answer, data.links);
      if (list) { turn.appendChild(list); }
      if (data.answer.degraded.length) { turn.appendChild(el("p", "degraded", "(" + data.answer.degraded.join(", ") + ")")); }
      parts.answerText = data.answer.answer;
      say(w("complete", "Answer complete."));
    } else if (event === "error") {
      turn.appendChild(el("p", "error", data.message));
      say(data.message);
    }
  }

  function readEvents(response, onEvent) {
    var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = "";
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) { return; }
        buffer += decoder.decode(chunk.value, { stream: true });
        var end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          var block = buffer.slice(0, end), name = "message", data = "";
          buffer = buffer.slice(end + 2);
          block.split("\n").forEach(function (line) {
            if (line.indexOf("event: ") === 0) { name = line.slice(7); }
            if (line.indexOf("data: ") === 0) { data += line.slice(6); }
          });
          onEvent(name, JSON.parse(data));
        }
        return pump();
      });
    }
    return pump();
  }

  function ask(text) {
    var turn = el("article", "turn"), parts = { evidence: el("div", "evidence"), checked: el("div", "checked") };
    turn.appendChild(el("h2", "asked", text));
    turn.appendChild(parts.evidence);
    turn.appendChild(parts.checked);
    conversation.insertBefore(turn, conversation.firstChild);
    var history = loadHistory();
    controller = new AbortController();
    askButton.disabled = true;
    stopButton.disabled = false;
    say(w("finding", "Finding passages…"));
    fetch("/api/ask", {
      method: "POST", headers: { "Content-Type": "application/json" }, signal: controller.signal,
      body: JSON.stringify({ course: course.value, question: text, history: history })
    }).then(function (response) {
      if (!response.ok) {
        return response.json().then(function (e) { handle(turn, parts, "error", { message: e.error }); });
      }
      return readEvents(response, function (name, data) { handle(turn, parts, name, data); });
    }).catch(function (e) {
      say(e.name === "AbortError" ? w("stopped", "Stopped.")
        : w("unreachable", "The server could not be reached; check the connection and ask again."));
    }).then(function () {
      if (parts.answerText) {
        history.push({ role: "user", content: text.slice(0, MAX_CHARS) });
        history.push({ role: "assistant", content: parts.answerText.slice(0, MAX_CHARS) });
        saveHistory(history);
      }
      askButton.disabled = false;
      stopButton.disabled = true;
      controller = null;
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = question.value.trim();
    if (!text || controller) { return; }
    ask(text);
    question.value = "";
  });
  question.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });
  stopButton.addEventListener("click", function () { if (controller) { controller.abort(); } });
  $("new").addEventListener("click", function () {
    sessionStorage.removeItem(historyKey());
    conversation.textContent = "";
    say(w("new_done", "New conversation: the next question is read on its own."));
    question.focus();
  });
  course.addEventListener("change", function () {
    sessionStorage.setItem("lantern-course", course.value);
    applyWords();
  });
  loadCourses();
}());
