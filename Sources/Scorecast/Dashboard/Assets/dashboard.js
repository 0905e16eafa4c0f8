"use strict";
(() => {
  // Set by the page: <body data-refresh-ms data-stats-path data-live-path>.
  const CONFIG = {
    refreshMs: Number(document.body.dataset.refreshMs) || 2000,
    statsPath: document.body.dataset.statsPath || "v1/stats?window=15m",
    livePath: document.body.dataset.livePath || "v1/stats/live",
  };
  const SVG_NS = "http://www.w3.org/2000/svg";
  const COLORS = { accepted: "#37c98b", retried: "#f3a73b", failed: "#f05470", p50: "#5aa9ff", p95: "#f3a73b", p99: "#f05470" };
  const CHART = { left: 50, right: 14, top: 14, bottom: 28 };
  const root = document.documentElement;
  const errors = [];
  let renders = 0;

  function recordError(message) {
    errors.push(String(message));
    root.setAttribute("data-errors", errors.join(" | "));
  }
  window.addEventListener("error", (event) => recordError(event.message || "script error"));
  window.addEventListener("unhandledrejection", (event) => recordError(event.reason));
  const consoleError = console.error.bind(console);
  console.error = (...parts) => { recordError(parts.map(String).join(" ")); consoleError(...parts); };

  // ---- small helpers -------------------------------------------------------------
  const byId = (id) => document.getElementById(id);
  function h(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function svg(tag, attributes, content) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    if (content !== undefined) node.textContent = String(content);
    return node;
  }
  const text = (value) => (value === null || value === undefined ? "" : String(value));
  const count = (value) => { const n = Number(value); return Number.isFinite(n) && n > 0 ? n : 0; };
  const maybe = (value) => { if (value === null || value === undefined) return null; const n = Number(value); return Number.isFinite(n) ? n : null; };
  const list = (value) => (Array.isArray(value) ? value : []);
  const integer = new Intl.NumberFormat("en-US");
  const fmtCount = (value) => integer.format(count(value));
  function fmtMs(value) {
    const n = maybe(value);
    if (n === null) return "—";
    return (n < 10 ? n.toFixed(1) : Math.round(n).toString()) + " ms";
  }
  // Axis labels of latency: "7.5 ms", "250 ms", "2,500 ms" (never rounded to a neighbour).
  function fmtAxisMs(value) {
    if (value > 0 && value < 10) return value.toFixed(Number.isInteger(value) ? 0 : 1) + " ms";
    return integer.format(Math.round(value)) + " ms";
  }
  function pad(n) { return String(n).padStart(2, "0"); }
  function fmtTime(value, seconds) {
    const date = new Date(text(value));
    if (Number.isNaN(date.getTime())) return "—";
    const hm = pad(date.getHours()) + ":" + pad(date.getMinutes());
    return seconds ? hm + ":" + pad(date.getSeconds()) : hm;
  }
  function niceCeiling(value) {
    if (!(value > 0)) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
    return 10 * power;
  }
  function shortID(value) {
    const id = text(value);
    return id.length > 18 ? id.slice(0, 10) + "…" + id.slice(-6) : id;
  }

  // ---- charts --------------------------------------------------------------------
  // Draws series over `times` into `target`, sized to the element's width so text keeps
  // its size. `bars`: stacked bars, one per bucket, each series one path of rectangles.
  // Otherwise: lines with gaps where a value is null. Series paths carry class "series".
  function drawChart(target, times, series, options) {
    target.replaceChildren();
    const width = Math.max(320, Math.round(target.getBoundingClientRect().width || 640));
    const height = options.height || 220;
    target.setAttribute("viewBox", "0 0 " + width + " " + height);
    const n = times.length;
    const base = new Array(n).fill(0);
    const layers = [];
    let highest = 0;
    for (const entry of series) {
      const lower = base.slice();
      const upper = entry.values.map((value, i) => (value === null ? null : options.bars ? base[i] + value : value));
      if (options.bars) upper.forEach((value, i) => { if (value !== null) base[i] = value; });
      for (const value of upper) if (value !== null && value > highest) highest = value;
      layers.push({ entry, lower, upper });
    }
    const top = niceCeiling(highest);
    // The left margin fits the longest value label ("2,500 ms" was clipped to "500 ms").
    const ticks = [0, 1, 2, 3, 4].map((k) => options.format((top * k) / 4));
    const left = Math.max(CHART.left, 16 + 7.5 * Math.max(...ticks.map((label) => label.length)));
    const plotWidth = width - left - CHART.right;
    const plotHeight = height - CHART.top - CHART.bottom;
    const slot = n > 0 ? plotWidth / n : plotWidth;
    const x = options.bars
      ? (i) => left + slot * (i + 0.5)
      : (i) => left + (n <= 1 ? plotWidth / 2 : (i * plotWidth) / (n - 1));
    const y = (value) => CHART.top + plotHeight - (value / top) * plotHeight;

    const grid = svg("g", { class: "grid" });
    for (let k = 0; k <= 4; k++) {
      const value = (top * k) / 4;
      grid.appendChild(svg("line", { x1: left, x2: width - CHART.right, y1: y(value), y2: y(value) }));
      grid.appendChild(svg("text", { x: left - 8, y: y(value) + 4, "text-anchor": "end" }, ticks[k]));
    }
    target.appendChild(grid);
    const axis = svg("g", { class: "axis" });
    const step = Math.max(1, Math.ceil(n / (width > 900 ? 15 : 6)));
    for (let i = 0; i < n; i += step) {
      axis.appendChild(svg("text", { x: x(i), y: height - 8, "text-anchor": "middle" }, fmtTime(times[i], false)));
    }
    target.appendChild(axis);

    const hasData = layers.some((layer) => layer.upper.some((value) => value !== null && (!options.bars || value > 0)));
    target.setAttribute("data-visible-series", "0");
    if (!hasData) {
      target.appendChild(svg("text", { class: "empty", x: width / 2, y: height / 2, "text-anchor": "middle" }, "No data in this window"));
      return;
    }
    let visible = 0;
    for (const { entry, lower, upper } of layers) {
      let d = "";
      if (options.bars) {
        const barWidth = Math.max(2, slot * 0.62);
        upper.forEach((value, i) => {
          if (value === null || value <= lower[i]) return;
          const left = x(i) - barWidth / 2;
          d += "M" + left.toFixed(1) + "," + y(lower[i]).toFixed(1) + "V" + y(value).toFixed(1) + "h" + barWidth.toFixed(1) + "V" + y(lower[i]).toFixed(1) + "Z";
        });
      } else {
        let drawing = false;
        upper.forEach((value, i) => {
          if (value === null) { drawing = false; return; }
          d += (drawing ? "L" : "M") + x(i).toFixed(1) + "," + y(value).toFixed(1);
          drawing = true;
        });
      }
      if (!d) continue;
      const attributes = { class: "series" + (options.bars ? " bar" : ""), d: d, "data-series": entry.name };
      attributes[options.bars ? "fill" : "stroke"] = entry.color;
      const path = svg("path", attributes);
      path.appendChild(svg("title", {}, entry.name));
      target.appendChild(path);
      // Self-check for tests and diagnostics: is the series actually painted?
      const paint = getComputedStyle(path)[options.bars ? "fill" : "stroke"];
      const box = path.getBBox();
      if (paint && paint !== "none" && (box.width > 0 || box.height > 0)) visible += 1;
      if (!options.bars) {
        let last = upper.length - 1;
        while (last >= 0 && upper[last] === null) last--;
        if (last >= 0) target.appendChild(svg("circle", { cx: x(last), cy: y(upper[last]), r: 3.2, fill: entry.color }));
      }
    }
    target.setAttribute("data-visible-series", String(visible));
  }

  function legend(target, items) {
    target.replaceChildren(...items.map((item) => {
      const swatch = h("span", "swatch");
      swatch.style.background = item.color;
      return h("span", "item", swatch, item.label + " ", h("b", "", item.value));
    }));
  }

  // ---- panels --------------------------------------------------------------------
  function kpi(label, value, note, kind) {
    return h("div", "kpi " + (kind || ""), h("div", "label", label), h("div", "value", value), h("div", "note", note));
  }

  function fmtAge(seconds) {
    const n = maybe(seconds);
    if (n === null) return "—";
    if (n < 60) return Math.round(n) + " s";
    if (n < 3600) return Math.floor(n / 60) + " min " + pad(Math.round(n % 60)) + " s";
    return Math.floor(n / 3600) + " h " + pad(Math.floor((n % 3600) / 60)) + " min";
  }

  // Backlog and feed silence, from the live snapshot.
  function renderBacklog(live) {
    const backlog = live.backlog || {};
    const oldest = maybe(backlog.oldestPendingSeconds) || 0;
    const last = backlog.lastEventAt ? new Date(text(backlog.lastEventAt)) : null;
    const silence = last && !Number.isNaN(last.getTime()) ? Math.max(0, (new Date(text(live.generatedAt)).getTime() - last.getTime()) / 1000) : null;
    const inPlay = list(live.games).some((game) => ["live", "suspended"].includes(text(game.status)));
    byId("backlog").replaceChildren(
      kpi("Backlog", fmtCount(backlog.pending), "oldest due update waited " + fmtAge(oldest), oldest > 30 ? "failed" : ""),
      kpi("Feed", silence === null ? "no events yet" : fmtAge(silence) + " ago", "last event received", inPlay && silence !== null && silence > 300 ? "failed" : ""));
  }

  function renderKpis(stats) {
    const totals = stats.totals || {};
    const sends = totals.sends || {};
    const latency = totals.latency || {};
    const ingest = latency.ingestToSend || {};
    const answer = latency.sendToAnswer || {};
    const total = count(sends.total);
    const minutes = Math.max(1, list(stats.series).length);
    const acceptedShare = total > 0 ? ((100 * count(sends.accepted)) / total).toFixed(1) + "%" : "—";
    byId("kpis").replaceChildren(
      kpi("Sends · " + text(stats.window), fmtCount(total), Math.round(total / minutes) + " per minute"),
      kpi("Accepted", acceptedShare, fmtCount(sends.accepted) + " answered 200", "accepted"),
      kpi("Failed", fmtCount(sends.failed), "terminal APNs errors", "failed"),
      kpi("Retried", fmtCount(totals.retried), fmtCount(totals.throttled) + " throttled (429)", "retried"),
      kpi("Coalesced", fmtCount(totals.coalesced), "merged before send", "coalesced"),
      kpi("Downgraded", fmtCount(totals.downgraded), "p10 budget spent", "downgraded"),
      kpi("Ingest → send p99", fmtMs(ingest.p99Ms), "p50 " + fmtMs(ingest.p50Ms)),
      kpi("APNs answer p99", fmtMs(answer.p99Ms), "p50 " + fmtMs(answer.p50Ms)),
    );
  }

  function renderThroughput(stats) {
    const series = list(stats.series);
    const times = series.map((bucket) => bucket.start);
    const pick = (key) => series.map((bucket) => count((bucket.sends || {})[key]));
    const entries = [
      { name: "accepted", label: "accepted", color: COLORS.accepted, values: pick("accepted") },
      { name: "retried", label: "retried", color: COLORS.retried, values: pick("retried") },
      { name: "failed", label: "failed", color: COLORS.failed, values: pick("failed") },
    ];
    drawChart(byId("throughput-chart"), times, entries, { bars: true, height: 240, format: (v) => (Number.isInteger(v) ? integer.format(v) : v.toFixed(1)) });
    const sends = (stats.totals || {}).sends || {};
    legend(byId("throughput-legend"), entries.map((entry) => ({ color: entry.color, label: entry.label, value: fmtCount(sends[entry.name]) })));
  }

  function renderLatency(stats, leg, chartID, legendID) {
    const series = list(stats.series);
    const times = series.map((bucket) => bucket.start);
    const pick = (key) => series.map((bucket) => maybe(((bucket.latency || {})[leg] || {})[key]));
    const entries = [
      { name: "p50", color: COLORS.p50, values: pick("p50Ms") },
      { name: "p95", color: COLORS.p95, values: pick("p95Ms") },
      { name: "p99", color: COLORS.p99, values: pick("p99Ms") },
    ];
    drawChart(byId(chartID), times, entries, { bars: false, height: 210, format: fmtAxisMs });
    const whole = (((stats.totals || {}).latency || {})[leg]) || {};
    legend(byId(legendID), entries.map((entry) => ({ color: entry.color, label: entry.name, value: fmtMs(whole[entry.name + "Ms"]) })));
  }

  function barRow(name, detail, countText, fraction, color, tags) {
    const fill = h("div", "fill");
    fill.style.width = (Math.max(0, Math.min(1, fraction)) * 100).toFixed(1) + "%";
    fill.style.background = color;
    const row = h("div", "bar-row", h("div", "name", name, detail ? h("small", "", detail) : null), h("div", "count", countText), h("div", "track", fill));
    if (tags && tags.length) row.appendChild(h("div", "tags", ...tags));
    return row;
  }

  function renderFailures(stats) {
    const failures = list((stats.totals || {}).failures).filter((item) => count(item.count) > 0);
    const target = byId("failures");
    if (!failures.length) {
      target.replaceChildren(h("div", "empty-note", "No failures in this window"));
      return;
    }
    const highest = Math.max(...failures.map((item) => count(item.count)));
    target.replaceChildren(...failures.slice(0, 8).map((item) => {
      const reason = text(item.reason);
      const color = reason === "TooManyRequests" || reason === "ServiceUnavailable" || reason === "InternalServerError" || reason === "Timeout" ? COLORS.retried : COLORS.failed;
      return barRow(reason, null, fmtCount(item.count), count(item.count) / highest, color);
    }));
  }

  function renderBudgets(live) {
    const budgets = list(live.budgets);
    const target = byId("budgets");
    if (!budgets.length) {
      target.replaceChildren(h("div", "empty-note", "No priority-10 sends this hour"));
      return;
    }
    target.replaceChildren(...budgets.slice(0, 8).map((budget) => {
      const used = count(budget.priority10Used);
      const limit = count(budget.priority10Limit);
      const fraction = limit > 0 ? used / limit : 1;
      const color = fraction >= 1 ? COLORS.failed : fraction >= 0.7 ? COLORS.retried : COLORS.accepted;
      const tags = [];
      if (fraction >= 1) tags.push(h("span", "tag bad", "budget spent"));
      if (count(budget.downgrades) > 0) tags.push(h("span", "tag warn", fmtCount(budget.downgrades) + " downgraded"));
      if (count(budget.throttled) > 0) tags.push(h("span", "tag bad", fmtCount(budget.throttled) + " × 429"));
      const name = h("span", "mono", shortID(budget.channel));
      name.title = text(budget.channel);
      return barRow(name, text(budget.game || budget.app), used + " / " + limit, fraction, color, tags);
    }));
  }

  function renderGames(live) {
    // Only games in play: the snapshot also lists ones about to start or just finished.
    const games = list(live.games).filter((game) => ["live", "suspended"].includes(text(game.status)));
    const target = byId("games");
    if (!games.length) {
      target.replaceChildren(h("div", "empty-note", "No games in play"));
      return;
    }
    target.replaceChildren(...games.map((game) => {
      const status = ["live", "scheduled", "final"].includes(text(game.status)) ? text(game.status) : "final";
      const team = (name, score) => h("div", "team", h("span", "tname", text(name)), h("span", "score", String(count(score))));
      return h("div", "game",
        h("div", "top", h("span", "", text(game.league)), h("span", "status " + status, text(game.status))),
        team(game.home, game.homeScore),
        team(game.away, game.awayScore),
        h("div", "clock", text(game.period) + " · " + text(game.clock) + "  ·  seq " + count(game.seq) + " · " + count(game.channels) + " channel" + (count(game.channels) === 1 ? "" : "s")),
        game.lastEvent ? h("div", "last", text(game.lastEvent)) : null);
    }));
  }

  function renderDeliveries(live) {
    const rows = list(live.recentDeliveries).slice(0, 25).map((delivery) => {
      const outcome = ["accepted", "retried", "failed"].includes(text(delivery.outcome)) ? text(delivery.outcome) : "failed";
      const priority = count(delivery.priority) === 10 ? "p10" : "p5";
      const priorityCell = h("td", "", h("span", "badge " + priority, String(count(delivery.priority))));
      if (delivery.downgraded === true) priorityCell.appendChild(h("span", "down", "↓ downgraded"));
      const answer = delivery.status === null || delivery.status === undefined ? "no answer" : String(count(delivery.status));
      const channel = h("td", "channel mono", shortID(delivery.channel));
      channel.title = text(delivery.channel);
      return h("tr", "",
        h("td", "mono", fmtTime(delivery.at, true)),
        h("td", "", text(delivery.game || "—")),
        channel,
        priorityCell,
        h("td", "", h("span", "badge " + outcome, outcome)),
        h("td", "", answer + (delivery.reason ? " · " + text(delivery.reason) : "")),
        h("td", "num", fmtMs(delivery.latencyMs)),
        h("td", "num", String(count(delivery.events))),
        h("td", "num", String(count(delivery.attempt))));
    });
    const body = byId("deliveries").tBodies[0];
    if (!rows.length) {
      const cell = h("td", "empty-note", "No deliveries yet");
      cell.colSpan = 9;
      body.replaceChildren(h("tr", "", cell));
      return;
    }
    body.replaceChildren(...rows);
  }

  // Paused apps send nothing until an admin resumes them: say so above everything else.
  function renderPaused(live) {
    const paused = list(live.pausedApps);
    const target = byId("paused");
    target.hidden = paused.length === 0;
    target.replaceChildren(...paused.map((app) => h("div", "banner-line",
      h("strong", "", "PAUSED · " + text(app.app) + " (" + text(app.environment) + ")"),
      " — APNs refused its credentials (" + text(app.reason) + ") since " + fmtTime(app.since, false) + "; " +
        fmtCount(app.waitingUpdates) + " update" + (count(app.waitingUpdates) === 1 ? "" : "s") + " waiting. Fix the key, then ",
      h("code", "", "scorecast apps resume " + text(app.app) + " --environment " + text(app.environment)))));
    return paused.length;
  }

  function setStatus(ok, message, warn) {
    const pill = byId("status");
    pill.className = "pill " + (ok ? (warn ? "warn" : "ok") : "error");
    pill.textContent = message;
    document.body.setAttribute("data-status", ok ? "ok" : "error");
  }

  async function getJSON(path) {
    const response = await fetch(path, { cache: "no-store", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(path + " answered " + response.status);
    return response.json();
  }

  // The window picker: 15m by default, remembered in the URL's fragment.
  const picker = byId("window");
  const chosen = (location.hash.match(/window=(15m|1h|6h|24h)/) || [])[1];
  if (chosen) picker.value = chosen;
  picker.addEventListener("change", () => { location.hash = "window=" + picker.value; });
  const statsPath = () => picker.value === "15m" ? CONFIG.statsPath : CONFIG.statsPath.replace("window=15m", "window=" + picker.value);

  async function refresh() {
    try {
      const [stats, live] = await Promise.all([getJSON(statsPath()), getJSON(CONFIG.livePath)]);
      renderKpis(stats);
      renderThroughput(stats);
      renderLatency(stats, "ingestToSend", "latency-chart", "latency-legend");
      renderLatency(stats, "sendToAnswer", "answer-chart", "answer-legend");
      renderFailures(stats);
      renderBudgets(live);
      renderGames(live);
      renderDeliveries(live);
      const paused = renderPaused(live);
      renderBacklog(live);
      renders += 1;
      document.body.setAttribute("data-renders", String(renders));
      setStatus(true, paused ? "live · " + paused + " app" + (paused === 1 ? "" : "s") + " paused" : "live", paused > 0);
      byId("updated").textContent = "updated " + fmtTime(live.generatedAt || new Date().toISOString(), true);
    } catch (error) {
      setStatus(false, "cannot refresh: " + text(error && error.message ? error.message : error));
    } finally {
      setTimeout(refresh, CONFIG.refreshMs);
    }
  }
  refresh();
})();
