// pitlake dashboard: click (or Enter on) a coverage cell to show its ledger entry below the
// grid. The page works without this script (every cell also has a title); no external URL.
(function () {
  "use strict";
  var source = document.getElementById("coverage-data");
  var panel = document.getElementById("cell-detail");
  if (!source || !panel) return;
  var data = JSON.parse(source.textContent);
  var labels = {};
  (data.legend || []).forEach(function (s) { labels[s.status] = s; });

  function row(dl, name, value) {
    if (value === undefined || value === null || value === "" ||
        (Array.isArray(value) && value.length === 0)) return;
    var dt = document.createElement("dt");
    dt.textContent = name;
    var dd = document.createElement("dd");
    dd.textContent = String(value);
    dl.appendChild(dt);
    dl.appendChild(dd);
  }

  function traceLines(trace) {
    return (trace || []).map(function (s) {
      var t = (s.vendor || "?") + " " + (s.outcome || "");
      if (s.attempts > 1) t += " ×" + s.attempts;
      if (s.error_type) t += " (" + s.error_type + ")";
      if (s.message) t += ": " + s.message;
      return t;
    }).join("\n");
  }

  function show(button) {
    var r = Number(button.getAttribute("data-row"));
    var c = Number(button.getAttribute("data-col"));
    var ds = data.rows[r];
    var cell = ds.cells[c];
    var style = labels[cell.status] || {};
    panel.textContent = "";
    var h = document.createElement("h3");
    h.textContent = ds.dataset + " · " + cell.date + " · " + (style.code || "") + " " + cell.status;
    panel.appendChild(h);
    var dl = document.createElement("dl");
    row(dl, "Meaning", style.meaning);
    row(dl, "Rows", cell.rows);
    row(dl, "Vendor", cell.vendor || (cell.vendors || []).join(", "));
    row(dl, "Vendor trace", traceLines(cell.trace));
    row(dl, "Message", cell.message);
    if (cell.symbols) {
      row(dl, "Symbols", Object.keys(cell.symbols).map(function (k) {
        return k + ": " + cell.symbols[k];
      }).join(", "));
    }
    row(dl, "Example symbol", cell.example_symbol);
    if (cell.entry_dates && (cell.entry_dates.length > 1 || cell.entry_dates[0] !== cell.date)) {
      row(dl, "Ledger dates", cell.entry_dates.join(", "));
    }
    row(dl, "Run", cell.run_id);
    row(dl, "Recorded at", (cell.recorded_at || "").replace("T", " ").replace(/\.\d+/, ""));
    panel.appendChild(dl);
    var old = document.querySelector(".cell.selected");
    if (old) old.classList.remove("selected");
    button.classList.add("selected");
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (t && t.classList && t.classList.contains("cell")) show(t);
  });
})();
