// Import pages: a copy button for the export prompt, and the preview's progress followed while
// the worker decides candidates. With the live socket connected, live.js re-fetches the
// progress and rows (data-live-refresh); while it is not, this script polls status.json every
// second (every 5 s as a safety net while it is) and re-fetches the same fragments until the
// preview is no longer "processing".
// Without JavaScript the prompt is a readonly text area to select, and the page has a Reload link.
(function () {
  "use strict";

  // --- copy buttons -----------------------------------------------------------------------------

  function copyBySelection(source) {
    try {
      source.focus();
      source.select();
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  function setupCopy(button) {
    var source = document.getElementById(button.getAttribute("data-copy-target"));
    var status = document.getElementById(button.getAttribute("data-copy-status"));
    if (!source || !status) return;
    var timer = null;
    function report(ok) {
      status.textContent = ok
        ? button.getAttribute("data-copied")
        : button.getAttribute("data-copy-failed");
      status.classList.toggle("ok", ok);
      if (timer) clearTimeout(timer);
      if (ok) timer = setTimeout(function () { status.textContent = ""; }, 4000);
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = source.value;
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(
          function () { report(true); },
          function () { report(copyBySelection(source)); }
        );
      } else {
        report(copyBySelection(source));
      }
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-copy-target]"), setupCopy);

  // --- preview progress -------------------------------------------------------------------------

  var progress = document.getElementById("import-progress");
  var rows = document.getElementById("import-rows");
  if (!progress || !rows) return;
  var statusUrl = progress.getAttribute("data-status-url");
  var POLL_MS = 1000;
  var RETRY_MS = 3000;
  var CONNECTED_POLL_MS = 5000;
  var lastSeen = null;
  var lastPolled = 0;

  function currentStatus() {
    var node = progress.querySelector("[data-import-status]");
    return node ? node.getAttribute("data-import-status") : "";
  }

  function socketConnected() {
    return Boolean(window.sgLive && window.sgLive.connected);
  }

  function fetchPart(container) {
    var url = container.getAttribute("data-live-src");
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      });
  }

  function show(container, html) {
    container.innerHTML = html; // a server-rendered fragment (Django-escaped)
    container.dispatchEvent(new CustomEvent("sg:refreshed", { bubbles: true }));
  }

  function tick() {
    if (currentStatus() !== "processing") return; // finished (perhaps refreshed by live.js)
    if (socketConnected() && Date.now() - lastPolled < CONNECTED_POLL_MS) {
      // live.js refreshes on each announcement; poll now and then all the same, since a
      // worker in another process reaches this page's socket only through a shared layer.
      setTimeout(tick, POLL_MS);
      return;
    }
    lastPolled = Date.now();
    fetch(statusUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (data) {
        var seen = data.status + ":" + data.processed;
        var changed = seen !== lastSeen;
        lastSeen = seen;
        // The progress is fetched first and shown last: its status is the page's "done"
        // signal, so the rows shown with it are always fetched after it, never older (the
        // worker may finish between the two fetches), and are in place before it turns.
        var work = changed
          ? fetchPart(progress).then(function (progressHtml) {
              return fetchPart(rows).then(function (rowsHtml) {
                show(rows, rowsHtml);
                show(progress, progressHtml);
              });
            })
          : Promise.resolve();
        return work.then(function () {
          if (data.status === "processing") setTimeout(tick, POLL_MS);
        });
      })
      .catch(function () {
        setTimeout(tick, RETRY_MS); // keep following through a passing network error
      });
  }

  if (currentStatus() === "processing") setTimeout(tick, POLL_MS);
})();
