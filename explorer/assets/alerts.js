// The alerts page of `seshat serve`: each triage button posts the alert's
// triage (its state, the reason and bug link typed beside it) to
// /api/alerts/{id}/triage as JSON, with the token typed on the page when
// the server asks one, and shows the alert as the server answers it, its
// triage history included. Every
// string is set as text (textContent), never as markup.
(function () {
  "use strict";
  const table = document.getElementById("alerts");
  if (!table || table.dataset.triage !== "on") {
    return;
  }
  table.addEventListener("click", async (ev) => {
    const button = ev.target.closest("button[data-state]");
    if (!button) {
      return;
    }
    const row = button.closest("tr.alert");
    const error = row.querySelector(".triage-error");
    error.textContent = "";
    const headers = { "Content-Type": "application/json" };
    const token = document.getElementById("triage-token");
    if (token && token.value) {
      headers.Authorization = "Bearer " + token.value;
    }
    const body = JSON.stringify({
      state: button.dataset.state,
      reason: row.querySelector("input.reason").value,
      bug: row.querySelector("input.bug").value,
    });
    let answer;
    try {
      const resp = await fetch("/api/alerts/" + encodeURIComponent(row.dataset.id) + "/triage",
        { method: "POST", headers: headers, body: body, credentials: "same-origin" });
      answer = await resp.json();
      if (!resp.ok) {
        error.textContent = answer.error || resp.statusText;
        return;
      }
    } catch (e) {
      error.textContent = String(e);
      return;
    }
    row.querySelector(".triage-state").textContent = answer.triage_state;
    let reason = row.querySelector(".triage-reason");
    if (!reason) {
      reason = document.createElement("span");
      reason.className = "triage-reason";
      row.querySelector(".triage-state").after(reason);
    }
    const t = answer.triage || {};
    reason.textContent = (t.reason ? ": " + t.reason : "") + (t.bug ? " (" + t.bug + ")" : "");
    row.dataset.triage = answer.triage_state;
    renderHistory(row.querySelector("ol.triage-history"), answer.triage_history || []);
  });

  // renderHistory lists every triage of the alert, oldest first, as the
  // page's template does.
  function renderHistory(list, history) {
    list.replaceChildren();
    history.forEach((t) => {
      const li = document.createElement("li");
      const span = (cls, text) => {
        const el = document.createElement("span");
        el.className = cls;
        el.textContent = text;
        return el;
      };
      li.append(span("when", t.time.replace("T", " ").replace(/\.\d+Z$/, "Z")), " ", span("who", t.user || "someone"), ": ", span("state", t.state));
      if (t.reason) {
        li.append(" ", span("reason", t.reason));
      }
      if (t.bug) {
        const a = document.createElement("a");
        a.href = t.bug;
        a.rel = "noopener noreferrer";
        a.textContent = "bug";
        li.append(" ", a);
      }
      list.appendChild(li);
    });
  }
})();
