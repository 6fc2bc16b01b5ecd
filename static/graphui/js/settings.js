// Settings page: the preview follows the λ / block size / proxy history / tools form as you type
// (debounced), and the model "Test connection" result is shown without leaving the page. The preview is the server's:
// `?partial=preview` answers with the page's own elements that follow the values (field errors,
// warning, suggestion, session picker, token estimate and level schedule, save button), and each
// replaces the element of the same id here. No markup is built in this script. Without it the
// page works through its Preview button (GET) and plain POST forms.
(function () {
  "use strict";

  var form = document.getElementById("settings-form");
  if (!form) return;
  var textsNode = document.getElementById("settings-texts");
  var texts = textsNode ? JSON.parse(textsNode.textContent) : {};
  var lambdaInput = document.getElementById("id_block_lambda");
  var turnsInput = document.getElementById("id_block_turns");
  var historySelect = document.getElementById("id_proxy_history");
  var toolsSelect = document.getElementById("id_proxy_tools");
  var nsSelect = document.getElementById("id_ns");
  var status = document.getElementById("preview-status");
  var DEBOUNCE_MS = 200;
  var timer = null;
  var generation = 0;
  var controller = null;

  function fill(template, values) {
    return String(template || "").replace(/%\((\w+)\)s/g, function (_, key) {
      return values[key] === undefined || values[key] === null ? "" : String(values[key]);
    });
  }

  function byId(id) {
    return document.getElementById(id);
  }

  function params(resetSession) {
    var query = new URLSearchParams();
    query.set("block_lambda", lambdaInput.value);
    query.set("block_turns", turnsInput.value);
    if (historySelect) query.set("proxy_history", historySelect.value);
    if (toolsSelect) query.set("proxy_tools", toolsSelect.value);
    if (nsSelect) query.set("ns", nsSelect.value);
    var sessionSelect = byId("id_session"); // replaced by each preview: look it up each time
    if (sessionSelect && !resetSession) query.set("session", sessionSelect.value);
    return query;
  }

  // Each top-level element of the answer replaces the page's element with the same id; focus
  // inside a replaced element moves to its new twin.
  function swap(html) {
    var parsed = document.createElement("template");
    parsed.innerHTML = html; // the server's escaped template output
    Array.prototype.slice.call(parsed.content.children).forEach(function (fresh) {
      var old = fresh.id ? byId(fresh.id) : null;
      if (!old) return;
      var active = document.activeElement;
      var focusId = active && old.contains(active) ? active.id : "";
      old.replaceWith(fresh);
      var again = focusId ? byId(focusId) : null;
      if (again) again.focus({ preventScroll: true });
    });
  }

  // The inputs stay (typing goes on); their invalid state follows the errors just swapped in.
  function markFields() {
    form.querySelectorAll("[data-error-for]").forEach(function (box) {
      var input = form.elements[box.getAttribute("data-error-for")];
      if (!input) return;
      if (box.hidden) input.removeAttribute("aria-invalid");
      else input.setAttribute("aria-invalid", "true");
      var wrapper = input.closest(".field");
      if (wrapper) wrapper.classList.toggle("has-error", !box.hidden);
    });
  }

  function shown(query) {
    var sessionSelect = byId("id_session");
    var link = new URLSearchParams(query);
    if (sessionSelect && sessionSelect.value) link.set("session", sessionSelect.value);
    window.history.replaceState(null, "", form.getAttribute("action") + "?" + link.toString());
    var testForm = byId("model-test-form");
    if (testForm) {
      testForm.elements.ns.value = nsSelect ? nsSelect.value : "";
      testForm.elements.session.value = sessionSelect ? sessionSelect.value : "";
    }
    if (status) {
      var rows = document.querySelectorAll("#schedule tbody tr[data-age]");
      var changed = document.querySelectorAll("#schedule tbody tr.changed");
      status.textContent = fill(texts.updated, { n: changed.length, total: rows.length });
    }
  }

  function refresh(resetSession) {
    var query = params(resetSession);
    var mine = ++generation;
    if (controller) controller.abort();
    controller = new AbortController();
    var url = new URLSearchParams(query);
    url.set("partial", "preview");
    fetch(form.getAttribute("action") + "?" + url.toString(), {
      headers: { Accept: "text/html" },
      credentials: "same-origin",
      cache: "no-store",
      redirect: "manual", // a login redirect must not land in the page
      signal: controller.signal,
    })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (!response.ok || type.indexOf("text/html") !== 0) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (html) {
        if (mine !== generation) return;
        swap(html);
        markFields();
        shown(query);
      })
      .catch(function (error) {
        if (error && error.name === "AbortError") return;
        if (mine === generation && status) status.textContent = texts.failed;
      });
  }

  function schedule(resetSession) {
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      refresh(resetSession);
    }, DEBOUNCE_MS);
  }

  lambdaInput.addEventListener("input", function () {
    schedule(false);
  });
  turnsInput.addEventListener("input", function () {
    schedule(false);
  });
  // The session picker and the suggestion are replaced by each preview: listen on the form.
  form.addEventListener("change", function (event) {
    if (nsSelect && event.target === nsSelect) schedule(true);
    else if (
      event.target.id === "id_session" ||
      event.target === historySelect ||
      event.target === toolsSelect
    )
      schedule(false);
  });
  form.addEventListener("click", function (event) {
    var apply = event.target.closest("#apply-suggestion");
    var value = apply ? apply.getAttribute("data-lambda") : "";
    if (!value) return;
    event.preventDefault();
    lambdaInput.value = value;
    lambdaInput.focus();
    window.clearTimeout(timer);
    refresh(false);
  });

  document.querySelectorAll(".js-hint").forEach(function (node) {
    node.hidden = false;
  });

  var testForm = byId("model-test-form");
  if (testForm) {
    testForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = byId("model-test-button");
      var result = byId("model-test-result");
      button.disabled = true;
      result.hidden = false;
      result.className = "test-result";
      result.textContent = texts.testing;
      fetch(testForm.getAttribute("action"), {
        method: "POST",
        body: new FormData(testForm),
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (data) {
          result.className = "test-result " + (data.ok ? "ok" : "bad");
          result.textContent = (data.ok ? "✓ " : "✕ ") + data.message;
        })
        .catch(function (error) {
          result.className = "test-result bad";
          result.textContent = "✕ " + String(error && error.message ? error.message : error);
        })
        .then(function () {
          button.disabled = false;
        });
    });
  }
})();
