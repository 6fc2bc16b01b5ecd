/* Live updates for the Memory UI: one websocket per namespace page (the URL is the layout's
 * <body data-live-ws>), joined to the namespace's group by graphui.consumers. Services announce
 * changes after their transaction commits (memory.services.live); this script turns each
 * announcement into re-reads of the page's own server-rendered fragments. No framework, no
 * build, nothing inline (the CSP allows only 'self').
 *
 * Declarative regions:
 *   <div data-live-refresh="kind other.kind" data-live-src="/page/?partial=<name>"
 *        data-live-match="field:value">
 *   is re-fetched (GET, same origin, credentials, header X-Requested-With: live) when a
 *   message of one of those kinds arrives, debounced ~300 ms, and its innerHTML replaced with
 *   the response (our own escaped template output: the page's partial of that name, served by
 *   graphui.partials; an unknown name is a 404, which leaves the region as it was). With
 *   data-live-match, only when the payload's `field` equals `value` exactly (everything after
 *   the first colon; the payload value compared as a string, with the line-break
 *   normalisation an HTML attribute gets).
 *   Keyboard focus and open <details> inside the region are kept; the region then receives a
 *   bubbling `sg:refreshed` event.
 * Triggers: an element with data-live-refresh (and optional data-live-match) but no
 *   data-live-src refreshes the nearest enclosing region instead (e.g. each block card on a
 *   session page, matched on its block id).
 * Programmatic: window.sgLive.on(kind, callback) (callback gets the payload; "*" hears every
 *   kind; returns a function that stops listening), window.sgLive.connected.
 * State: <html data-live="connected|connecting|offline"> and the footer's #live-status.
 *   Refused sockets (4401 logged out, 4404 no such namespace) stay offline; anything else
 *   reconnects with backoff (1 s doubling to 30 s), and after a reconnect every region is
 *   re-read once, since announcements made while the socket was down are lost.
 */
(function () {
  "use strict";

  var DEBOUNCE_MS = 300;
  var MAX_WAIT_MS = 1000; // a steady stream of updates still refreshes at least this often
  var BACKOFF_MIN_MS = 1000;
  var BACKOFF_MAX_MS = 30000;
  var OFFLINE_AFTER_ATTEMPTS = 3; // failed reconnects before the indicator says "off"
  var EDITING_RETRY_MS = 1000;
  var RECENT_MS = 30000;
  var REFUSED = { 4401: true, 4404: true };
  var FOCUSABLE =
    "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";

  // Absent when the page was not served over ASGI (no websockets there): sgLive still exists,
  // never connected, and the page behaves as without JavaScript.
  var wsPath = document.body ? document.body.getAttribute("data-live-ws") : null;
  var root = document.documentElement;
  var indicator = document.getElementById("live-status");
  var listeners = Object.create(null); // kind → array of callbacks
  var regionState = new WeakMap();
  var recent = []; // [{at, payload}], for triggers that appear after a refresh started
  var socket = null;
  var attempts = 0;
  var everConnected = false;
  var refused = false;
  var leaving = false;
  var retryTimer = null;

  // --- state and indicator -------------------------------------------------------------------

  function setState(state) {
    root.dataset.live = state;
    if (!indicator) {
      return;
    }
    var key = state;
    if (state === "connecting" && (everConnected || attempts > 0)) {
      key = "reconnecting";
    }
    var text = indicator.getAttribute("data-" + key) || "";
    var label = indicator.querySelector(".live-state");
    if (label && label.textContent !== text) {
      label.textContent = text;
    }
    indicator.hidden = false;
  }

  // --- the socket ----------------------------------------------------------------------------

  function socketUrl() {
    var url = new URL(wsPath, window.location.href);
    url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    return url.href;
  }

  function connect() {
    window.clearTimeout(retryTimer);
    retryTimer = null;
    if (!wsPath || refused || leaving || socket !== null) {
      return;
    }
    setState(attempts >= OFFLINE_AFTER_ATTEMPTS ? "offline" : "connecting");
    var ws;
    try {
      ws = new WebSocket(socketUrl());
    } catch (error) {
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.addEventListener("open", function () {
      if (socket !== ws) {
        return;
      }
      var reconnected = everConnected;
      everConnected = true;
      attempts = 0;
      setState("connected");
      if (reconnected) {
        refreshAll(); // what was announced while the socket was down is lost
      }
    });
    ws.addEventListener("message", function (event) {
      if (socket === ws) {
        receive(event.data);
      }
    });
    ws.addEventListener("close", function (event) {
      if (socket !== ws) {
        return;
      }
      socket = null;
      if (REFUSED[event.code]) {
        refused = true; // logged out or no such namespace: retrying cannot help
        setState("offline");
        return;
      }
      if (!leaving) {
        scheduleReconnect();
      }
    });
  }

  function scheduleReconnect() {
    if (refused || leaving || retryTimer !== null) {
      return;
    }
    var delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * Math.pow(2, attempts));
    delay = delay * (0.8 + 0.4 * Math.random()); // spread the reconnects of many pages
    delay = Math.max(BACKOFF_MIN_MS, Math.min(BACKOFF_MAX_MS, delay));
    attempts += 1;
    setState(attempts >= OFFLINE_AFTER_ATTEMPTS ? "offline" : "connecting");
    retryTimer = window.setTimeout(connect, delay);
  }

  // --- messages ------------------------------------------------------------------------------

  function receive(data) {
    var payload;
    try {
      payload = JSON.parse(data);
    } catch (error) {
      return;
    }
    if (!payload || typeof payload !== "object" || typeof payload.kind !== "string") {
      return;
    }
    var now = Date.now();
    recent.push({ at: now, payload: payload });
    while (recent.length && (recent[0].at < now - RECENT_MS || recent.length > 500)) {
      recent.shift();
    }
    notify(payload.kind, payload);
    notify("*", payload);
    scan(document, payload);
  }

  function notify(kind, payload) {
    var callbacks = (listeners[kind] || []).slice();
    for (var i = 0; i < callbacks.length; i += 1) {
      try {
        callbacks[i](payload);
      } catch (error) {
        report(error); // one page script's bug must not stop the others or the regions
      }
    }
  }

  function report(error) {
    if (typeof window.reportError === "function") {
      window.reportError(error);
    } else {
      window.setTimeout(function () {
        throw error;
      }, 0);
    }
  }

  // An HTML attribute cannot hold "\r" or NUL as such: the parser turns CR / CRLF into LF and
  // NUL into U+FFFD, so compare both sides normalised the same way.
  function normalise(text) {
    return String(text).replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
  }

  function matches(element, payload) {
    var kinds = (element.getAttribute("data-live-refresh") || "").split(/\s+/);
    if (kinds.indexOf(payload.kind) === -1) {
      return false;
    }
    var match = element.getAttribute("data-live-match");
    if (match === null) {
      return true;
    }
    var colon = match.indexOf(":");
    if (colon <= 0) {
      return false; // malformed: refresh nothing rather than everything
    }
    var field = match.slice(0, colon);
    if (!Object.prototype.hasOwnProperty.call(payload, field)) {
      return false;
    }
    var value = payload[field];
    var type = typeof value;
    if (type !== "string" && type !== "number" && type !== "boolean") {
      return false;
    }
    return normalise(value) === normalise(match.slice(colon + 1));
  }

  function regionOf(element) {
    if (element.hasAttribute("data-live-src")) {
      return element;
    }
    var parent = element.parentElement;
    return parent ? parent.closest("[data-live-refresh][data-live-src]") : null;
  }

  function scan(scope, payload) {
    var elements = scope.querySelectorAll("[data-live-refresh]");
    for (var i = 0; i < elements.length; i += 1) {
      if (matches(elements[i], payload)) {
        var region = regionOf(elements[i]);
        if (region) {
          schedule(region);
        }
      }
    }
  }

  function refreshAll() {
    var regions = document.querySelectorAll("[data-live-refresh][data-live-src]");
    for (var i = 0; i < regions.length; i += 1) {
      schedule(regions[i]);
    }
  }

  // --- refreshing a region -------------------------------------------------------------------

  function stateOf(region) {
    var state = regionState.get(region);
    if (!state) {
      state = { timer: null, first: 0, busy: false, again: false };
      regionState.set(region, state);
    }
    return state;
  }

  function schedule(region) {
    var state = stateOf(region);
    if (state.busy) {
      state.again = true; // re-read once more when the fetch in flight is done
      return;
    }
    var now = Date.now();
    if (state.timer === null) {
      state.first = now;
    } else if (now - state.first >= MAX_WAIT_MS) {
      return; // the pending refresh is due soon; don't push it back again
    } else {
      window.clearTimeout(state.timer);
    }
    state.timer = window.setTimeout(function () {
      refresh(region);
    }, DEBOUNCE_MS);
  }

  function editing(region) {
    var active = document.activeElement;
    return (
      active !== null &&
      region.contains(active) &&
      (active.matches("input, select, textarea") || active.isContentEditable)
    );
  }

  function refresh(region) {
    var state = stateOf(region);
    state.timer = null;
    if (!region.isConnected) {
      return; // replaced by a refresh of a region around it
    }
    if (editing(region)) {
      // Someone is choosing in a form inside it: re-read when they are done, not under them.
      state.first = Date.now();
      state.timer = window.setTimeout(function () {
        refresh(region);
      }, EDITING_RETRY_MS);
      return;
    }
    var url = new URL(region.getAttribute("data-live-src"), window.location.href);
    if (url.origin !== window.location.origin) {
      return;
    }
    state.busy = true;
    var started = Date.now();
    region.setAttribute("aria-busy", "true");
    window
      .fetch(url.href, {
        credentials: "same-origin",
        headers: { "X-Requested-With": "live" },
        cache: "no-store",
        redirect: "manual", // a login redirect must not land in the page
      })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (!response.ok || type.indexOf("text/html") !== 0) {
          throw new Error("live refresh: HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        if (!region.isConnected) {
          return;
        }
        replace(region, html);
        recheck(region, started);
        region.dispatchEvent(new CustomEvent("sg:refreshed", { bubbles: true }));
      })
      .catch(function () {
        // Stale until the next update; the page's Reload link still works.
      })
      .then(function () {
        region.removeAttribute("aria-busy");
        state.busy = false;
        if (state.again) {
          state.again = false;
          schedule(region);
        }
      });
  }

  function replace(region, html) {
    var active = document.activeElement;
    var hadFocus = active !== null && active !== region && region.contains(active);
    var focusId = hadFocus ? active.id : "";
    var focusIndex = hadFocus
      ? Array.prototype.indexOf.call(region.querySelectorAll(FOCUSABLE), active)
      : -1;
    var wasOpen = Array.prototype.map.call(region.querySelectorAll("details"), function (d) {
      return d.open;
    });

    region.innerHTML = html;

    var details = region.querySelectorAll("details");
    for (var i = 0; i < details.length && i < wasOpen.length; i += 1) {
      details[i].open = wasOpen[i];
    }
    if (!hadFocus) {
      return;
    }
    var target = focusId ? document.getElementById(focusId) : null;
    if (!target || !region.contains(target)) {
      target = focusIndex >= 0 ? region.querySelectorAll(FOCUSABLE)[focusIndex] || null : null;
    }
    if (!target) {
      if (!region.hasAttribute("tabindex")) {
        region.setAttribute("tabindex", "-1");
      }
      target = region;
    }
    target.focus({ preventScroll: true });
  }

  // Triggers inside the new content (a block sealed by the turn that caused this refresh) may
  // have been announced while the fetch was in flight, before they were on the page.
  function recheck(region, since) {
    for (var i = 0; i < recent.length; i += 1) {
      if (recent[i].at >= since) {
        scan(region, recent[i].payload);
      }
    }
  }

  // --- page life -----------------------------------------------------------------------------

  window.addEventListener("pagehide", function () {
    leaving = true;
    window.clearTimeout(retryTimer);
    retryTimer = null;
    if (socket !== null) {
      var ws = socket;
      socket = null;
      ws.close(1000);
    }
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      leaving = false; // back from the back/forward cache
      attempts = 0;
      connect();
      refreshAll();
    }
  });
  window.addEventListener("online", function () {
    if (socket === null && !refused) {
      attempts = 0;
      connect();
    }
  });

  var api = {
    on: function (kind, callback) {
      if (typeof callback !== "function") {
        throw new TypeError("sgLive.on(kind, callback) needs a function");
      }
      (listeners[kind] = listeners[kind] || []).push(callback);
      return function off() {
        var list = listeners[kind] || [];
        var at = list.indexOf(callback);
        if (at !== -1) {
          list.splice(at, 1);
        }
      };
    },
  };
  Object.defineProperty(api, "connected", {
    enumerable: true,
    get: function () {
      return socket !== null && socket.readyState === WebSocket.OPEN;
    },
  });
  window.sgLive = Object.freeze(api);

  if (!wsPath) {
    root.dataset.live = "offline"; // nothing to say in the footer: there is no socket to wait for
    return;
  }
  if (typeof window.WebSocket !== "function") {
    setState("offline");
    return;
  }
  connect();
})();
