/* Copy buttons (processing and health pages: a failed job's error; connect page: snippets and a
   new token).
   A button names what it copies: <button data-copy="element-id" data-copied="…"
   data-copy-failed="…" hidden>, with a `.copy-status` element next to it (same parent) for the
   result. Buttons are rendered hidden (they need this script) and shown here, also in regions
   live.js has just re-fetched. Without this script the text is still there to select and copy
   by hand; when the clipboard is refused, the text is selected for Ctrl+C. */
(function () {
  "use strict";

  function reveal(root) {
    root.querySelectorAll("button[data-copy][hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  function select(element) {
    if (typeof element.select === "function") {
      element.focus();
      element.select();
      return;
    }
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function say(button, text, failed) {
    var status = button.parentElement.querySelector(".copy-status");
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("failed", !!failed);
    window.clearTimeout(status._sgTimer);
    status._sgTimer = window.setTimeout(function () { status.textContent = ""; }, 4000);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.dataset.copy);
    if (!source) return;
    var text = typeof source.value === "string" ? source.value : source.textContent;
    var fail = function () {
      var details = source.closest("details");
      if (details) details.open = true;
      select(source);
      say(button, button.dataset.copyFailed, true);
    };
    if (!navigator.clipboard || !window.isSecureContext) {
      fail();
      return;
    }
    navigator.clipboard.writeText(text).then(function () {
      say(button, button.dataset.copied, false);
    }, fail);
  });

  document.addEventListener("sg:refreshed", function (event) {
    reveal(event.target instanceof Element ? event.target : document);
  });

  reveal(document);
})();
