/* The graph page's canvas (SPEC §13.4): loads graph_data.json, draws it with vis-network (peer
 * build, vendored), opens a clicked node's fragment in the side panel, expands neighbourhoods and
 * focuses search hits on demand. No framework, no build step. Everything from memory reaches the
 * page as text: labels are drawn on the canvas, and the panel's HTML is the server's escaped
 * fragment. Sets window.sgGraphReady once the first layout has settled and listeners are on. */
(function () {
  "use strict";

  var canvas = document.getElementById("graph-canvas");
  if (!canvas || !window.vis) return;

  var app = document.getElementById("graph-app");
  var panel = document.getElementById("node-panel");
  var loading = document.getElementById("graph-loading");
  var counts = document.getElementById("graph-counts");
  var searchForm = document.getElementById("graph-search");
  var searchInput = document.getElementById("g-q");
  var matches = document.getElementById("g-matches");
  var status = document.getElementById("g-q-status");
  var controls = document.getElementById("graph-controls");
  var strings = JSON.parse(document.getElementById("graph-strings").textContent);
  var lang = document.documentElement.lang || undefined;

  var source = new URL(canvas.dataset.src, window.location.href);
  var params = new URLSearchParams(source.search);
  params.delete("q");
  var focus = params.getAll("focus");
  var nodes = new vis.DataSet();
  var edges = new vis.DataSet();
  var network = null;
  var selected = null;

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, key) {
      return key in values ? String(values[key]) : "";
    });
  }

  function nodeUrl(id, extra) {
    var url = canvas.dataset.nodeUrl.replace(/\/0\/$/, "/" + encodeURIComponent(id) + "/");
    var query = new URLSearchParams(canvas.dataset.nodeQuery || "");
    Object.keys(extra || {}).forEach(function (key) { query.set(key, extra[key]); });
    var text = query.toString();
    return text ? url + "?" + text : url;
  }

  function dataUrl(extra) {
    var query = new URLSearchParams(params);
    query.delete("focus");
    focus.forEach(function (id) { query.append("focus", id); });
    Object.keys(extra || {}).forEach(function (key) { query.set(key, extra[key]); });
    return source.pathname + "?" + query.toString();
  }

  function showCounts(data) {
    if (!counts) return;
    counts.textContent = fill(counts.dataset.template, {
      shown: nodes.length.toLocaleString(lang),
      total: Number(data.total_nodes).toLocaleString(lang),
    });
  }

  function rememberFocus() {
    // Every view is a URL: a reload shows the same neighbourhoods.
    var query = new URLSearchParams(window.location.search);
    query.delete("focus");
    query.delete("q");
    focus.forEach(function (id) { query.append("focus", id); });
    window.history.replaceState(null, "", window.location.pathname + "?" + query.toString());
  }

  function fetchJson(url) {
    return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          var error = new Error(fill(strings.failed, { status: response.status }));
          error.response = response;
          throw error;
        }
        return response.json();
      });
  }

  // --- the node panel ------------------------------------------------------------------------

  function loadPanel(id) {
    panel.setAttribute("aria-busy", "true");
    return fetch(nodeUrl(id, { partial: "detail" }), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(fill(strings.panel_failed, { status: response.status }));
        return response.text();
      })
      .then(function (html) {
        // The server's escaped fragment, parsed inertly (scripts never run from DOMParser).
        var doc = new DOMParser().parseFromString(html, "text/html");
        panel.replaceChildren.apply(panel, Array.prototype.slice.call(doc.body.childNodes));
        panel.removeAttribute("aria-busy");
        if (window.matchMedia("(max-width: 860px)").matches) panel.scrollIntoView({ block: "start" });
      })
      .catch(function (error) {
        var p = document.createElement("p");
        p.className = "errorlist";
        p.textContent = error.message;
        panel.replaceChildren(p);
        panel.removeAttribute("aria-busy");
      });
  }

  panel.addEventListener("click", function (event) {
    var expand = event.target.closest("[data-expand]");
    if (expand) {
      event.preventDefault();
      api.expand(expand.dataset.expand, expand.dataset.depth);
      return;
    }
    var link = event.target.closest("[data-node-link]");
    if (link && !event.ctrlKey && !event.metaKey && !event.shiftKey && nodes.get(Number(link.dataset.nodeLink))) {
      event.preventDefault();
      api.select(Number(link.dataset.nodeLink), { move: true });
    }
  });

  // --- merging data onto the canvas ------------------------------------------------------------

  function settle(iterations) {
    network.setOptions({ physics: { enabled: true } });
    network.stabilize(iterations);
  }

  function placeNear(newNodes, newEdges) {
    // New nodes start next to a node already on the canvas, so the short settle stays local.
    var ring = {};
    newNodes.forEach(function (node) {
      var anchor = null;
      newEdges.some(function (edge) {
        var other = edge.from === node.id ? edge.to : edge.to === node.id ? edge.from : null;
        if (other !== null && nodes.get(other)) { anchor = other; return true; }
        return false;
      });
      if (anchor === null) return;
      var k = (ring[anchor] = (ring[anchor] || 0) + 1);
      var at = network.getPosition(anchor);
      var angle = k * 2.39996;
      var reach = 70 + 12 * Math.sqrt(k) * 6;
      node.x = at.x + reach * Math.cos(angle);
      node.y = at.y + reach * Math.sin(angle);
    });
  }

  function merge(data) {
    var fresh = data.nodes.filter(function (n) { return !nodes.get(n.id); });
    placeNear(fresh, data.edges);
    nodes.add(fresh);
    data.nodes.forEach(function (n) {
      if (data.focus.indexOf(n.id) >= 0) nodes.update({ id: n.id, borderWidth: 3 });
    });
    edges.update(data.edges);
    showCounts(data);
    if (fresh.length) settle(60);
    return fresh.length;
  }

  // --- the public API (used by the buttons, the search box and the browser tests) -------------

  var api = {
    network: null,
    nodes: nodes,
    edges: edges,
    select: function (id, options) {
      id = Number(id);
      if (!nodes.get(id)) return Promise.resolve(false);
      selected = id;
      network.selectNodes([id]);
      if (options && options.move) {
        network.focus(id, { scale: Math.max(network.getScale(), 0.8), animation: { duration: 300 } });
      }
      return loadPanel(id).then(function () { return true; });
    },
    expand: function (id, depth) {
      id = String(id);
      if (focus.indexOf(id) < 0) focus.push(id);
      var extra = depth ? { depth: String(depth) } : {};
      return fetchJson(dataUrl(extra)).then(function (data) {
        merge(data);
        rememberFocus();
        return api.select(Number(id), { move: true });
      });
    },
    search: function (text) {
      return fetchJson(dataUrl({ q: text })).then(function (data) {
        var hit = data.search && data.search.node;
        if (hit === null || hit === undefined) {
          status.textContent = fill(strings.no_match, { text: text });
          return null;
        }
        if (focus.indexOf(String(hit)) < 0) focus.push(String(hit));
        merge(data);
        rememberFocus();
        status.textContent = fill(strings.focused, { text: text });
        return api.select(hit, { move: true }).then(function () { return hit; });
      });
    },
    domPosition: function (id) {
      // Where node `id` is on the page (CSS pixels), for a real mouse click.
      var point = network.canvasToDOM(network.getPosition(Number(id)));
      var box = canvas.getBoundingClientRect();
      return { x: box.left + point.x, y: box.top + point.y };
    },
    selected: function () { return selected; },
  };
  window.sgGraph = api;

  // --- search-to-focus --------------------------------------------------------------------------

  function localMatches(text) {
    var needle = text.trim().toLocaleLowerCase();
    if (!needle) return [];
    return nodes.get({
      filter: function (n) { return (n.name || n.label).toLocaleLowerCase().indexOf(needle) >= 0; },
    }).slice(0, 8);
  }

  searchInput.addEventListener("input", function () {
    var found = localMatches(searchInput.value);
    matches.replaceChildren.apply(matches, found.map(function (n) {
      var li = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "btn link";
      button.textContent = n.name || n.label;
      button.addEventListener("click", function () { api.select(n.id, { move: true }); });
      li.appendChild(button);
      return li;
    }));
    matches.hidden = found.length === 0;
    status.textContent = found.length ? fill(strings.matches, { count: found.length }) : "";
  });

  searchForm.addEventListener("submit", function (event) {
    var text = searchInput.value.trim();
    if (!text) return;
    event.preventDefault();
    status.textContent = strings.loading;
    api.search(text).catch(function (error) { status.textContent = error.message; });
  });

  var historyBox = document.getElementById("g-history");
  historyBox.addEventListener("change", function () {
    if (controls.requestSubmit) controls.requestSubmit(); else controls.submit();
  });

  // --- first load ---------------------------------------------------------------------------------

  app.hidden = false;

  function ready() {
    network.once("afterDrawing", function () {
      performance.mark("sg-graph:ready");
      window.sgGraphReady = true;
    });
    network.redraw();
  }

  // The page embeds the first drawing's data (the same JSON graph_data serves).
  var embedded = document.getElementById("graph-data");
  var first = embedded
    ? Promise.resolve(JSON.parse(embedded.textContent))
    : fetchJson(source.pathname + source.search);
  first
    .then(function (data) {
      performance.mark("sg-graph:data");
      if (loading) loading.remove();
      nodes.add(data.nodes);
      edges.add(data.edges);
      network = new vis.Network(canvas, { nodes: nodes, edges: edges }, data.options);
      api.network = network;
      network.on("click", function (event) {
        if (event.nodes.length) api.select(event.nodes[0]);
      });
      var settling = true;
      performance.mark("sg-graph:network");
      network.on("stabilizationIterationsDone", function () {
        performance.mark("sg-graph:settled");
        // Freeze the layout: nodes stay where they settled (dragging still works).
        network.setOptions({ physics: { enabled: false } });
        if (settling) { settling = false; ready(); }
      });
      showCounts(data);
      if (!data.nodes.length) { settling = false; ready(); }
      var hit = data.search && data.search.node;
      if (hit !== null && hit !== undefined) api.select(hit);
    })
    .catch(function (error) {
      if (loading) loading.textContent = error.message;
    });
})();
