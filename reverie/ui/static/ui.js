// Reverie UI: small enhancements over plain server-rendered pages (everything works without this file).
// - "why" loads a line's provenance inline when its <details> opens (the page link is the fallback);
// - buttons with data-confirm ask before posting;
// - a page the back button brings back from the browser's cache is loaded again (it would show
//   memory as it was, not as it is), unless its form holds what someone typed;
// - a text sent while the server could not answer is kept in the tab, and its form offers it back;
// - the Dream page follows the run's progress until it finishes, then reloads to show the result
//   (it says so when the server stops answering, and reloads when it answers something else);
// - a signed-in page remembers its server's prefix (localStorage is per origin, so per port): a link
//   to this server from elsewhere (/timeline) then finds its way to /<prefix>/timeline; signing out
//   forgets it.
"use strict";

(function () {
  var body = document.body;
  if (!body || !body.dataset.storageKey) return;
  var key = body.dataset.storageKey, store;
  try { store = window.localStorage; } catch (e) { return; }
  if (body.dataset.prefix) { store.setItem(key, body.dataset.prefix); return; }
  if (body.dataset.signedOut === "1") { store.removeItem(key); return; }
  var prefix = store.getItem(key), path = window.location.pathname;
  if (body.dataset.signin === "1" && prefix && path !== prefix && path.indexOf(prefix + "/") !== 0) {
    window.location.replace(prefix + path + window.location.search + window.location.hash);
  }
})();

document.addEventListener("toggle", function (event) {
  var details = event.target;
  if (!details.matches || !details.matches("details.why") || !details.open || details.dataset.loaded) return;
  details.dataset.loaded = "1";
  var body = details.querySelector(".why-body");
  body.textContent = "looking…";
  fetch(details.dataset.why, {credentials: "same-origin"})
    .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
    .then(function (html) { body.innerHTML = html; })  // our server's escaped fragment
    .catch(function () { body.textContent = "could not load it: reload the page"; delete details.dataset.loaded; });
}, true);

document.addEventListener("submit", function (event) {
  var button = event.submitter || event.target.querySelector("[data-confirm]");
  if (button && button.dataset && button.dataset.confirm && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});

// Back (or forward) to a page the browser keeps in its back-forward cache: it shows memory as it was
// when it loaded, and anything may have changed since (another tab, Dream, an agent, a restore), so
// it is loaded again and shows memory as it is now. A form someone typed into is kept as typed
// (its save is checked against the state it was made from: merged, refused or the conflict page),
// unless a form was posted from this tab since it loaded (the page it led to moved on from it).
var loadedAt = Date.now();
document.addEventListener("submit", function (event) {
  if (event.defaultPrevented || (event.target.method || "").toLowerCase() !== "post") return;
  try { window.sessionStorage.setItem("reverie-posted", String(Date.now())); } catch (e) { /* none */ }
});
function typedInto() {
  return Array.prototype.some.call(document.querySelectorAll("form input, form textarea"), function (f) {
    return f.type !== "hidden" && f.value !== f.defaultValue;
  });
}
window.addEventListener("pageshow", function (event) {
  if (!event.persisted) return;
  var posted = 0;
  try { posted = Number(window.sessionStorage.getItem("reverie-posted") || 0); } catch (e) { /* none */ }
  if (posted > loadedAt || !typedInto()) window.location.reload();
});

// A text sent while the server could not answer (stopped, restarting): the browser shows its own
// error page, and the form page behind it is not kept (no-store), so what was typed would be lost.
// It is kept in this tab's storage until a page of the server answers the post (its message, the
// text shown back, the conflict page); until then, the same form offers it back.
(function () {
  var store, key = "reverie-unsent", body = document.body;
  try { store = window.sessionStorage; } catch (e) { return; }
  if (!store || !body) return;
  function here() {  // this page's address without the server's id, which a restart changes
    var path = window.location.pathname, prefix = body.dataset.prefix || "";
    if (prefix && path.indexOf(prefix + "/") === 0) path = path.slice(prefix.length);
    return path + window.location.search;
  }
  document.addEventListener("submit", function (event) {
    var form = event.target, field = form.elements && form.elements.namedItem("text");
    if (event.defaultPrevented || (form.method || "").toLowerCase() !== "post") return;
    if (!field || !field.value || !field.value.trim()) return;
    var sent = {page: here(), workspace: body.dataset.workspace || "", text: field.value};
    try { store.setItem(key, JSON.stringify(sent)); } catch (e) { /* none */ }
  });
  var unsent = null;
  try { unsent = JSON.parse(store.getItem(key) || "null"); } catch (e) { unsent = null; }
  if (!unsent || typeof unsent.text !== "string") return;
  if (document.querySelector("[data-flash], #typed-back, #resolved")) { store.removeItem(key); return; }
  var field = document.querySelector("form.stack [name=text]");
  // (the same form of the same workspace: another server on this port, another workspace's form)
  if (!field || unsent.page !== here() || unsent.workspace !== (body.dataset.workspace || "")) return;
  var note = document.createElement("div");
  note.id = "unsent";
  note.className = "flash error";
  note.setAttribute("role", "alert");
  var say = document.createElement("p");
  say.textContent = "The text you last sent from this form got no answer from the server: it may " +
    "not be saved (the Memory screen shows what is). ";
  var again = document.createElement("button");
  again.type = "button";
  again.textContent = "Put it back in the form";
  again.addEventListener("click", function () {
    field.value = unsent.text;
    store.removeItem(key);
    note.remove();
  });
  say.appendChild(again);
  note.appendChild(say);
  field.form.parentNode.insertBefore(note, field.form);
})();

function followDream(box) {
  var phase = document.getElementById("dream-phase");
  var detail = document.getElementById("dream-detail");
  var lost = null;
  function poll() {
    fetch(box.dataset.poll, {credentials: "same-origin"})
      .then(function (r) {
        // not the run's state (the session ended, or the server restarted under a new id and
        // knows neither this session nor the run): the page is loaded again and says what is now
        if (!r.ok) { window.location.reload(); return null; }
        return r.json();
      })
      .then(function (state) {
        if (state === null) return;
        lost = null;
        if (!state.running) { window.location.reload(); return; }
        if (phase) phase.textContent = state.phase;
        if (detail) detail.textContent = state.detail;
        window.setTimeout(poll, 300);
      })
      .catch(function () {
        // no answer (the server stopped or restarts): the progress shown is no longer known
        if (lost === null) lost = new Date();
        if (detail) detail.textContent = "No answer from the server since " + lost.toLocaleTimeString() +
          ": how the run goes is not known (asking again every second).";
        window.setTimeout(poll, 1000);
      });
  }
  poll();
}

document.addEventListener("DOMContentLoaded", function () {
  var box = document.getElementById("dream-job");
  if (box && box.dataset.running === "1") followDream(box);
});
