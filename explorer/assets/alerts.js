// The alerts page of `seshat serve`: each triage button posts the alert's
// triage (its state, the reason and bug link typed beside it) to
// /api/alerts/{id}/triage as JSON, with the token typed on the page when
// the server asks one, and shows the alert as the server answers it. Every
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
  });
})();
