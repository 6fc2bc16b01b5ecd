/* Processing page: copy a failed job's complete error text to the clipboard. The copy buttons
   are rendered hidden (they need this script) and shown here, also in regions live.js has just
   re-fetched. Without this script the error text is still there to select and copy by hand. */
(function () {
  "use strict";

  function reveal(root) {
    root.querySelectorAll("button.copy-error[hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  function select(element) {
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
    var button = event.target.closest("button.copy-error");
    if (!button) return;
    var source = document.getElementById(button.dataset.copy);
    if (!source) return;
    var text = source.textContent;
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
