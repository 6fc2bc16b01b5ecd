// Settings page: live preview of λ / block size (debounced JSON fetch, rendered in place) and the
// model "Test connection" result shown without leaving the page. Without this script the page
// works through its Preview button (GET) and plain POST forms.
(function () {
  "use strict";

  var form = document.getElementById("settings-form");
  if (!form) return;
  var textsNode = document.getElementById("settings-texts");
  var texts = textsNode ? JSON.parse(textsNode.textContent) : {};
  var previewUrl = form.getAttribute("data-preview-url");
  var lambdaInput = document.getElementById("id_block_lambda");
  var turnsInput = document.getElementById("id_block_turns");
  var nsSelect = document.getElementById("id_ns");
  var sessionSelect = document.getElementById("id_session");
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

  function lam(value) {
    return Number(value).toFixed(2);
  }

  function byId(id) {
    return document.getElementById(id);
  }

  function show(node, visible) {
    if (node) node.hidden = !visible;
  }

  function setText(id, text) {
    var node = byId(id);
    if (node) node.textContent = text;
  }

  function params(resetSession) {
    var query = new URLSearchParams();
    query.set("block_lambda", lambdaInput.value);
    query.set("block_turns", turnsInput.value);
    if (nsSelect) query.set("ns", nsSelect.value);
    if (sessionSelect && !resetSession) query.set("session", sessionSelect.value);
    return query;
  }

  function renderErrors(errors) {
    ["block_lambda", "block_turns"].forEach(function (field) {
      var error = errors[field];
      var box = form.querySelector('[data-error-for="' + field + '"]');
      var input = field === "block_lambda" ? lambdaInput : turnsInput;
      var wrapper = input.closest(".field");
      if (error) {
        box.querySelector(".msg-text").textContent = error.message;
        box.querySelector(".err-code").textContent = error.code;
        input.setAttribute("aria-invalid", "true");
      } else {
        input.removeAttribute("aria-invalid");
      }
      show(box, Boolean(error));
      if (wrapper) wrapper.classList.toggle("has-error", Boolean(error));
    });
  }

  function renderSuggestion(data, query) {
    var box = byId("lambda-suggestion");
    var suggestion = data.suggestion;
    show(box, Boolean(suggestion));
    if (!suggestion) return;
    setText("suggestion-text", suggestion.text);
    setText("suggestion-why", suggestion.detail);
    var button = byId("apply-suggestion");
    var value = lam(suggestion.block_lambda);
    button.setAttribute("data-lambda", value);
    button.textContent = fill(texts.apply, { lam: value });
    var target = new URLSearchParams(query);
    target.set("block_lambda", value);
    button.setAttribute("href", form.getAttribute("action") + "?" + target.toString());
    show(button, !suggestion.applied);
  }

  function levelCell(cell, level) {
    var bar = cell.querySelector(".lvbar");
    var label = cell.querySelector(".level");
    bar.className = "lvbar" + (level === null ? "" : " lv" + level);
    label.textContent = level === null ? "—" : "L" + level;
  }

  function renderSchedule(data) {
    var proposed = data.schedule_proposed;
    var current = data.schedule_current;
    setText(
      "proposed-head",
      data.block_lambda === null ? texts.preview_plain : fill(texts.preview_head, { lam: lam(data.block_lambda) })
    );
    var rows = document.querySelectorAll("#schedule tbody tr[data-age]");
    Array.prototype.forEach.call(rows, function (row) {
      var age = Number(row.getAttribute("data-age"));
      var now = current[age];
      var then = proposed ? proposed[age] : null;
      var change = then === null ? 0 : then - now;
      row.querySelector(".turns-later").textContent =
        data.block_turns === null ? "—" : String(age * data.block_turns);
      levelCell(row.querySelector(".lv-cell.current"), now);
      levelCell(row.querySelector(".lv-cell.proposed"), then);
      var cell = row.querySelector(".change");
      cell.textContent = "";
      if (change < 0) {
        cell.textContent = fill(texts.down, { n: -change });
      } else if (change > 0) {
        cell.textContent = fill(texts.up, { n: change });
      } else {
        var same = document.createElement("span");
        same.className = "muted";
        same.textContent = texts.same;
        cell.appendChild(same);
      }
      row.classList.toggle("changed", change !== 0);
    });
  }

  function renderSessions(data) {
    if (!sessionSelect) return;
    var wanted = data.session || "";
    var options = data.sessions || [];
    var same =
      sessionSelect.options.length === options.length &&
      options.every(function (choice, i) {
        return sessionSelect.options[i].value === choice.id;
      });
    if (!same) {
      sessionSelect.textContent = "";
      options.forEach(function (choice) {
        var option = document.createElement("option");
        option.value = choice.id;
        option.textContent = choice.text;
        sessionSelect.appendChild(option);
      });
      if (!options.length) {
        var none = document.createElement("option");
        none.value = "";
        none.textContent = texts.no_sessions;
        sessionSelect.appendChild(none);
      }
    }
    sessionSelect.disabled = !options.length;
    sessionSelect.value = wanted;
  }

  function renderTokens(data) {
    var has = data.tokens_current !== null;
    show(byId("token-estimate"), has);
    show(byId("token-empty"), !has);
    if (!has) return;
    setText("token-session", data.tokens_text);
    setText("tokens-current", String(data.tokens_current));
    setText("tokens-proposed", data.tokens_proposed === null ? "—" : String(data.tokens_proposed));
    setText("tokens-difference", data.tokens_difference_text);
    setText(
      "tokens-proposed-label",
      data.block_lambda === null ? texts.with_new : fill(texts["with"], { lam: lam(data.block_lambda) })
    );
  }

  function renderSave(data) {
    var saveForm = byId("save-form");
    if (!saveForm) return;
    saveForm.elements.block_lambda.value = lambdaInput.value;
    saveForm.elements.block_turns.value = turnsInput.value;
    saveForm.elements.ns.value = data.ns || "";
    saveForm.elements.session.value = data.session || "";
    var button = byId("save-button");
    var valid = !Object.keys(data.errors).length;
    button.disabled = !valid;
    button.textContent = valid
      ? fill(texts.save, { lam: lam(data.block_lambda), turns: data.block_turns })
      : texts.fix;
    var testForm = byId("model-test-form");
    if (testForm) {
      testForm.elements.ns.value = data.ns || "";
      testForm.elements.session.value = data.session || "";
    }
  }

  function render(data, query) {
    renderErrors(data.errors || {});
    var warning = byId("lambda-warning");
    if (data.warning) warning.querySelector(".callout-text").textContent = data.warning;
    show(warning, Boolean(data.warning));
    renderSuggestion(data, query);
    renderSchedule(data);
    renderSessions(data);
    renderTokens(data);
    renderSave(data);
    var link = new URLSearchParams(query);
    if (data.ns) link.set("ns", data.ns);
    if (data.session) link.set("session", data.session);
    window.history.replaceState(null, "", form.getAttribute("action") + "?" + link.toString());
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
    fetch(previewUrl + "?" + query.toString(), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      signal: controller.signal,
    })
      .then(function (response) {
        if (response.status !== 200 && response.status !== 422) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (data) {
        if (mine === generation) render(data, query);
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
  if (nsSelect)
    nsSelect.addEventListener("change", function () {
      schedule(true);
    });
  if (sessionSelect)
    sessionSelect.addEventListener("change", function () {
      schedule(false);
    });

  var apply = byId("apply-suggestion");
  if (apply)
    apply.addEventListener("click", function (event) {
      var value = apply.getAttribute("data-lambda");
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
