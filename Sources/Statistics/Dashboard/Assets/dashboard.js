"use strict";
(() => {
  // Set by the page: <body data-refresh-ms data-stats-path data-live-path data-game-path>.
  const CONFIG = {
    refreshMs: Number(document.body.dataset.refreshMs) || 2000,
    statsPath: document.body.dataset.statsPath || "v1/stats?window=15m",
    livePath: document.body.dataset.livePath || "v1/stats/live",
    gamePath: document.body.dataset.gamePath || "v1/games/{id}/live",
  };
  const SVG_NS = "http://www.w3.org/2000/svg";
  const COLORS = { accepted: "#37c98b", retried: "#f3a73b", failed: "#f05470", p50: "#5aa9ff", p95: "#f3a73b", p99: "#f05470", alerting: "#c58bff" };
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
  // Axis ticks are quarters of 1, 2, 2.5 or 5 × 10^n: shown exactly ("6.25", "18.75", "2,500"),
  // never rounded to a neighbour.
  const exact = new Intl.NumberFormat("en-US", { maximumFractionDigits: 6 });
  const fmtCount = (value) => integer.format(count(value));
  function fmtMs(value) {
    const n = maybe(value);
    if (n === null) return "—";
    return (n < 10 ? n.toFixed(1) : integer.format(Math.round(n))) + " ms";
  }
  const fmtAxisMs = (value) => exact.format(value) + " ms";
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
      if (entry.dashed) attributes["stroke-dasharray"] = "6 4";
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
  function renderBacklog(live, stats) {
    const answer = (((stats.totals || {}).latency || {}).sendToAnswer) || {};
    const backlog = live.backlog || {};
    const oldest = maybe(backlog.oldestPendingSeconds) || 0;
    const last = backlog.lastEventAt ? new Date(text(backlog.lastEventAt)) : null;
    const silence = last && !Number.isNaN(last.getTime()) ? Math.max(0, (new Date(text(live.generatedAt)).getTime() - last.getTime()) / 1000) : null;
    const inPlay = list(live.games).some((game) => ["live", "suspended"].includes(text(game.status)));
    byId("backlog").replaceChildren(
      kpi("Backlog", fmtCount(backlog.pending), "oldest due update waited " + fmtAge(oldest), oldest > 30 ? "failed" : ""),
      kpi("Feed", silence === null ? "no events yet" : fmtAge(silence) + " ago", feedNote(stats), inPlay && silence !== null && silence > 300 ? "failed" : ""),
      kpi("APNs answer p99", fmtMs(answer.p99Ms), "p50 " + fmtMs(answer.p50Ms)));
  }

  // The feed tile's note: refused events in the window, by reason (a feed sending garbage).
  function feedNote(stats) {
    const refused = count(((stats.totals || {}).events || {}).rejected);
    if (refused === 0) return "last event received · none refused";
    const reasons = list(stats.refusals).map((entry) => text(entry.reason).replace(/_/g, " ") + " " + fmtCount(entry.count));
    return fmtCount(refused) + " refused: " + reasons.join(", ");
  }

  function renderKpis(stats) {
    const totals = stats.totals || {};
    const sends = totals.sends || {};
    const latency = totals.latency || {};
    const ingest = latency.ingestToSend || {};
    const alerting = latency.alertingIngestToSend || {};
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
      // Ingest → send. Alerts are sent at once; routine updates are held back on purpose
      // (shaping), so the headline is the alerting p99, and all updates' p99 sits below it.
      kpi("Alerts p99", fmtMs(alerting.p99Ms), "all updates p99 " + fmtMs(ingest.p99Ms)),
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
    drawChart(byId("throughput-chart"), times, entries, { bars: true, height: 240, format: (v) => exact.format(v) });
    const sends = (stats.totals || {}).sends || {};
    legend(byId("throughput-legend"), entries.map((entry) => ({ color: entry.color, label: entry.label, value: fmtCount(sends[entry.name]) })));
  }

  function renderLatency(stats, leg, chartID, legendID) {
    const series = list(stats.series);
    const times = series.map((bucket) => bucket.start);
    const pick = (key) => series.map((bucket) => maybe(((bucket.latency || {})[leg] || {})[key]));
    const entries = [
      { name: "p50", label: "p50", color: COLORS.p50, values: pick("p50Ms"), key: "p50Ms" },
      { name: "p95", label: "p95", color: COLORS.p95, values: pick("p95Ms"), key: "p95Ms" },
      { name: "p99", label: "p99", color: COLORS.p99, values: pick("p99Ms"), key: "p99Ms" },
    ];
    const totals = ((stats.totals || {}).latency || {});
    const whole = totals[leg] || {};
    const items = entries.map((entry) => ({ color: entry.color, label: entry.label, value: fmtMs(whole[entry.key]) }));
    if (leg === "ingestToSend") {
      const alerting = series.map((bucket) => maybe((((bucket.latency || {}).alertingIngestToSend) || {}).p99Ms));
      entries.push({ name: "alerting p99", label: "alerts p99", color: COLORS.alerting, values: alerting, dashed: true });
      items.push({ color: COLORS.alerting, label: "alerts p99", value: fmtMs((totals.alertingIngestToSend || {}).p99Ms) });
    }
    drawChart(byId(chartID), times, entries, { bars: false, height: 210, format: fmtAxisMs });
    legend(byId(legendID), items);
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

  // A feed may create a game from its events alone, without team names: such a side is
  // called "Home" or "Away" rather than left blank.
  function teamName(name, side) {
    return text(name) || (side === "home" ? "Home" : "Away");
  }

  // A game as an operator calls it: "Arsenal – Chelsea", or its id while it has no team names.
  function gameName(game) {
    if (!game) return "";
    return text(game.home) || text(game.away) ? teamName(game.home, "home") + " – " + teamName(game.away, "away") : text(game.game);
  }

  function renderBudgets(live) {
    const budgets = list(live.budgets);
    const games = new Map(list(live.games).map((game) => [text(game.game), game]));
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
      // Named by its game; the channel id (shortened, whole on hover) says which channel.
      const game = budget.game ? games.get(text(budget.game)) : null;
      const name = h("span", "", game ? gameName(game) : text(budget.game || budget.app));
      name.title = text(budget.channel);
      return barRow(name, shortID(budget.channel), used + " / " + limit, fraction, color, tags);
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
      const card = h("div", "game",
        h("div", "top", h("span", "", text(game.league)), h("span", "status " + status, text(game.status))),
        team(teamName(game.home, "home"), game.homeScore),
        team(teamName(game.away, "away"), game.awayScore),
        h("div", "clock", text(game.period) + " · " + text(game.clock) + "  ·  seq " + count(game.seq) + " · " + count(game.channels) + " channel" + (count(game.channels) === 1 ? "" : "s")),
        game.lastEvent ? h("div", "last", text(game.lastEvent)) : null);
      // Opens the game view (kept in the URL, so it survives a reload and can be shared).
      card.setAttribute("role", "button");
      card.setAttribute("tabindex", "0");
      card.setAttribute("data-game", text(game.game));
      if (text(game.game) === selectedGame()) card.classList.add("selected");
      const open = () => setHash("game", text(game.game));
      card.addEventListener("click", open);
      card.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(); } });
      return card;
    }));
  }

  function renderDeliveries(live) {
    fillDeliveries(byId("deliveries"), list(live.recentDeliveries));
  }

  function fillDeliveries(table, deliveries) {
    const rows = deliveries.slice(0, 25).map((delivery) => {
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
    const body = table.tBodies[0];
    if (!rows.length) {
      const cell = h("td", "empty-note", "No deliveries yet");
      cell.colSpan = 9;
      body.replaceChildren(h("tr", "", cell));
      return;
    }
    body.replaceChildren(...rows);
  }

  // Every app's channels against APNs' limit per app; warn colour from 90 % (the API's nearLimit).
  function renderChannelUsage(live) {
    const apps = list(live.channelUsage);
    const target = byId("channel-usage");
    if (!apps.length) {
      target.replaceChildren(h("div", "empty-note", "No apps registered"));
      return;
    }
    // The 8 most used (the snapshot lists them most used first); the rest in one line.
    const more = apps.length > 8 ? [h("div", "empty-note", "and " + (apps.length - 8) + " more app" + (apps.length === 9 ? "" : "s") + " with fewer channels")] : [];
    target.replaceChildren(...apps.slice(0, 8).map((entry) => {
      const usage = entry.channels || {};
      const used = count(usage.used);
      const limit = count(usage.limit);
      const full = limit > 0 && count(usage.remaining) === 0;
      const color = full ? COLORS.failed : usage.nearLimit === true ? COLORS.retried : COLORS.accepted;
      const tags = [];
      if (full) tags.push(h("span", "tag bad", "limit reached: no new channels"));
      else if (usage.nearLimit === true) tags.push(h("span", "tag warn", fmtCount(usage.remaining) + " left"));
      if (count(usage.retiring) > 0) tags.push(h("span", "tag", fmtCount(usage.retiring) + " retiring"));
      return barRow(text(entry.app), text(entry.environment), fmtCount(used) + " / " + fmtCount(limit), limit > 0 ? used / limit : 1, color, tags);
    }), ...more);
  }

  // ---- the game view -------------------------------------------------------------
  function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, "")); }
  function selectedGame() { return hashParams().get("game") || ""; }
  function setHash(name, value) {
    const params = hashParams();
    if (value) params.set(name, value); else params.delete(name);
    location.hash = params.toString();
  }

  function renderGameView(view, problem) {
    const panel = byId("game-view");
    const id = selectedGame();
    panel.hidden = !id;
    if (!id) return;
    if (!view) {
      byId("gv-title").textContent = id;
      byId("gv-sub").textContent = problem || "loading…";
      for (const part of ["gv-channels", "gv-deliveries"]) byId(part).tBodies[0].replaceChildren();
      byId("gv-budget").replaceChildren();
      byId("gv-alerts").replaceChildren();
      byId("gv-faces").replaceChildren();
      return;
    }
    const game = view.game || {};
    byId("gv-title").textContent = teamName(game.home, "home") + " " + count(game.homeScore) + " – " + count(game.awayScore) + " " + teamName(game.away, "away");
    byId("gv-sub").textContent = [text(game.league), text(game.status), text(game.period) + " " + text(game.clock), "seq " + count(game.seq)].join(" · ");

    const channels = list(view.channels);
    const rows = channels.map((channel) => {
      const budget = channel.budget || null;
      const name = h("td", "channel mono", shortID(channel.channel));
      name.title = text(channel.channel);
      return h("tr", "",
        name,
        h("td", "", text(channel.app) + " (" + text(channel.environment) + ")"),
        h("td", "", text(channel.status)),
        h("td", "", channel.pendingUpdate === true ? "yes" : "no"),
        h("td", "num", budget ? count(budget.priority10Used) + " / " + count(budget.priority10Limit) : "—"));
    });
    const channelBody = byId("gv-channels").tBodies[0];
    if (!rows.length) {
      const cell = h("td", "empty-note", "No channel carries this game");
      cell.colSpan = 5;
      channelBody.replaceChildren(h("tr", "", cell));
    } else {
      channelBody.replaceChildren(...rows);
    }

    // The game's budget: its live channels' priority-10 sends this hour, together.
    const budgets = channels.filter((channel) => channel.budget && ["active", "retiring"].includes(text(channel.status))).map((channel) => channel.budget);
    const used = budgets.reduce((sum, budget) => sum + count(budget.priority10Used), 0);
    const limit = budgets.reduce((sum, budget) => sum + count(budget.priority10Limit), 0);
    const downgrades = budgets.reduce((sum, budget) => sum + count(budget.downgrades), 0);
    const throttled = budgets.reduce((sum, budget) => sum + count(budget.throttled), 0);
    const fraction = limit > 0 ? used / limit : 0;
    const tags = [];
    if (downgrades > 0) tags.push(h("span", "tag warn", fmtCount(downgrades) + " downgraded"));
    if (throttled > 0) tags.push(h("span", "tag bad", fmtCount(throttled) + " × 429"));
    byId("gv-budget").replaceChildren(budgets.length
      ? barRow("priority 10", budgets.length + " channel" + (budgets.length === 1 ? "" : "s"), used + " / " + limit, fraction,
        fraction >= 1 ? COLORS.failed : fraction >= 0.7 ? COLORS.retried : COLORS.accepted, tags)
      : h("div", "empty-note", "No live channel"));

    const alerts = list(view.pendingAlerts);
    const generated = new Date(text(view.generatedAt)).getTime();
    byId("gv-alerts").replaceChildren(...(alerts.length ? alerts.map((alert) => {
      const queued = new Date(text(alert.queuedAt)).getTime();
      const waited = Number.isNaN(queued) || Number.isNaN(generated) ? null : Math.max(0, (generated - queued) / 1000);
      return h("div", "alert-row",
        h("span", "when", waited === null ? "—" : fmtAge(waited)),
        h("span", "what", text(alert.text)),
        h("span", "where mono", shortID(alert.channel) + " · event " + text(alert.event)));
    }) : [h("div", "empty-note", "None: every alert was accepted by APNs")]));

    fillDeliveries(byId("gv-deliveries"), list(view.recentDeliveries));
    renderFaces(game, channels);
  }

  // ---- what the fans see ---------------------------------------------------------
  // Each channel's Live Activity as its phones show it now, drawn from `face` (the bodies APNs
  // last accepted, texts already in English): the lock screen, the Dynamic Island compact and
  // expanded, and the alert last shown. Codes and colours are the game's own (registered, else
  // the feed's, else the server's fallback), the ones its Live Activities carry: never guessed here.
  const FACES_SHOWN = 4;
  const teamCode = (identity) => text(identity && identity.code) || "—";
  const HEX_COLOUR = /^#[0-9A-F]{6}$/;
  // The code on the team's colours, as an app would draw its badge.
  function codeBadge(identity) {
    const badge = h("span", "code", teamCode(identity));
    if (identity && HEX_COLOUR.test(text(identity.primaryColour)) && HEX_COLOUR.test(text(identity.secondaryColour))) {
      badge.style.backgroundColor = identity.primaryColour;
      badge.style.color = identity.secondaryColour;
    }
    return badge;
  }

  function renderFaces(game, channels) {
    const target = byId("gv-faces");
    const shown = channels.filter((channel) => channel.face);
    if (!shown.length) {
      target.replaceChildren(h("div", "empty-note", "No update accepted by APNs yet: phones show nothing of this game"));
      return;
    }
    const home = teamName(game.home, "home");
    const away = teamName(game.away, "away");
    const more = shown.length > FACES_SHOWN
      ? [h("div", "empty-note", "and " + (shown.length - FACES_SHOWN) + " more channel" + (shown.length - FACES_SHOWN === 1 ? "" : "s"))]
      : [];
    target.replaceChildren(...shown.slice(0, FACES_SHOWN).map((channel) => drawFace(channel, game, home, away)), ...more);
  }

  function drawFace(channel, game, home, away) {
    const face = channel.face;
    const ended = text(face.event) === "end" || ["final", "cancelled"].includes(text(face.status));
    const state = ended ? (text(face.status) === "cancelled" ? "Called off" : "Final") : text(face.status) === "live" ? "Live" : text(face.status);
    const clock = [text(face.period), text(face.clock)].filter((part) => part !== "").join(" · ");
    const redCards = (side) => {
      const cards = list(face.redCards);
      const n = count(cards[side === "home" ? 0 : 1]);
      return Array.from({ length: Math.min(n, 3) }, () => h("span", "red-card"));
    };
    const identity = (side) => side === "home" ? game.homeIdentity : game.awayIdentity;
    const team = (name, side) => h("div", "ls-team " + side, codeBadge(identity(side)), name, ...redCards(side));

    const lockScreen = h("div", "ls",
      h("div", "ls-head", h("span", "", text(game.league)), h("span", "ls-state" + (ended ? " ended" : ""), state)),
      h("div", "ls-board",
        team(home, "home"),
        h("div", "", h("div", "ls-score", count(face.homeScore) + " – " + count(face.awayScore)), h("div", "ls-clock", clock)),
        team(away, "away")),
      face.lastPlay ? h("div", "ls-play", text(face.lastPlay)) : null,
      list(face.homeScorers).length || list(face.awayScorers).length
        ? h("div", "ls-scorers", h("div", "home", list(face.homeScorers).map(text).join(", ")), h("div", "away", list(face.awayScorers).map(text).join(", ")))
        : null);
    lockScreen.setAttribute("data-part", "lock-screen");

    const compact = h("div", "di-compact",
      h("span", "", teamCode(game.homeIdentity) + " " + count(face.homeScore)),
      h("span", "", count(face.awayScore) + " " + teamCode(game.awayIdentity)));
    compact.setAttribute("data-part", "island-compact");
    const expanded = h("div", "di-expanded",
      h("div", "di-row",
        h("div", "di-side home", teamCode(game.homeIdentity), h("b", "", String(count(face.homeScore)))),
        h("div", "di-center", ended ? state : clock || state),
        h("div", "di-side away", teamCode(game.awayIdentity), h("b", "", String(count(face.awayScore))))),
      face.lastPlay ? h("div", "di-bottom", text(face.lastPlay)) : null);
    expanded.setAttribute("data-part", "island-expanded");

    const alert = face.alert
      ? h("div", "shown-alert",
        face.alert.title ? h("div", "alert-title", text(face.alert.title)) : null,
        face.alert.body ? h("div", "alert-body", text(face.alert.body)) : null,
        h("div", "alert-when", "accepted " + fmtTime(face.alert.acceptedAt, true) + (face.alert.sound ? " · sound " + text(face.alert.sound) : "")))
      : h("div", "shown-alert empty-note", "No alert shown yet");
    alert.setAttribute("data-part", "alert");

    const caption = h("div", "face-caption",
      h("span", "mono", shortID(channel.channel)),
      h("span", "", text(channel.app)),
      h("span", "", "accepted " + fmtTime(face.acceptedAt, true)),
      channel.pendingUpdate === true ? h("span", "tag warn", "newer update waiting") : null);
    const root = h("div", "face",
      caption,
      h("div", "", h("div", "phone-label", "Lock screen"), lockScreen),
      h("div", "", h("div", "phone-label", "Dynamic Island · compact and expanded"), h("div", "islands", compact, expanded)),
      h("div", "", h("div", "phone-label", "Alert last shown"), alert));
    root.setAttribute("data-channel", text(channel.channel));
    root.setAttribute("data-event", text(face.event));
    return root;
  }

  // ---- self-check: no text is cut off ---------------------------------------------
  // Records on <body data-clipped> every text that does not fit where it is drawn: an
  // element whose content is wider than its box while its overflow is hidden (an ellipsis),
  // a text that sticks out of its card, or a chart label outside its chart. Empty when all fit.
  function checkClipping() {
    const clipped = [];
    const describe = (node) => (node.id ? "#" + node.id : node.className ? "." + String(node.className).split(" ")[0] : node.tagName.toLowerCase()) + " \"" + text(node.textContent).slice(0, 40) + "\"";
    const holdsText = (node) => Array.from(node.childNodes).some((child) => child.nodeType === Node.TEXT_NODE && child.textContent.trim() !== "");
    for (const node of document.querySelectorAll("main *, header *")) {
      if (node instanceof SVGElement || ["SELECT", "OPTION", "BUTTON"].includes(node.tagName) || !holdsText(node) || node.closest("[hidden]")) continue;
      const style = getComputedStyle(node);
      if (style.display === "none") continue;
      if (style.overflow !== "visible" && node.scrollWidth > node.clientWidth + 1) { clipped.push(describe(node)); continue; }
      const container = node.closest(".card, .kpi, .game, .banner, header.top");
      if (container && container !== node) {
        const box = node.getBoundingClientRect();
        const frame = container.getBoundingClientRect();
        const wrap = node.closest(".table-wrap");
        if (!wrap && (box.right > frame.right + 1 || box.left < frame.left - 1)) clipped.push(describe(node));
      }
    }
    for (const chart of document.querySelectorAll("svg.chart")) {
      if (chart.closest("[hidden]")) continue;
      const view = (chart.getAttribute("viewBox") || "0 0 0 0").split(" ").map(Number);
      for (const label of chart.querySelectorAll("text")) {
        const box = label.getBBox();
        if (box.x < view[0] - 0.5 || box.y < view[1] - 0.5 || box.x + box.width > view[0] + view[2] + 0.5 || box.y + box.height > view[1] + view[3] + 0.5) {
          clipped.push("#" + chart.id + " \"" + text(label.textContent) + "\"");
        }
      }
    }
    if (clipped.length) document.body.setAttribute("data-clipped", clipped.join(" | "));
    else document.body.removeAttribute("data-clipped");
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
  // The URL decides (so Back and a shared link show the same window).
  const syncPicker = () => {
    const chosen = hashParams().get("window");
    picker.value = ["15m", "1h", "6h", "24h"].includes(chosen) ? chosen : "15m";
  };
  syncPicker();
  picker.addEventListener("change", () => setHash("window", picker.value === "15m" ? "" : picker.value));
  byId("gv-close").addEventListener("click", () => setHash("game", ""));
  const statsPath = () => picker.value === "15m" ? CONFIG.statsPath : CONFIG.statsPath.replace("window=15m", "window=" + picker.value);

  // The game view's snapshot: null and a reason when it cannot be had (an unknown game is
  // a note in the view, not a broken dashboard).
  async function getGame(id) {
    if (!id) return { view: null, problem: null };
    const response = await fetch(CONFIG.gamePath.replace("{id}", encodeURIComponent(id)), { cache: "no-store", headers: { Accept: "application/json" } });
    if (response.status === 404) return { view: null, problem: "there is no game " + id };
    if (!response.ok) throw new Error("the game view answered " + response.status);
    return { view: await response.json(), problem: null };
  }

  let timer = null;
  async function refresh() {
    clearTimeout(timer);
    try {
      const [stats, live, game] = await Promise.all([getJSON(statsPath()), getJSON(CONFIG.livePath), getGame(selectedGame())]);
      renderKpis(stats);
      renderThroughput(stats);
      renderLatency(stats, "ingestToSend", "latency-chart", "latency-legend");
      renderLatency(stats, "sendToAnswer", "answer-chart", "answer-legend");
      renderFailures(stats);
      renderBudgets(live);
      renderGames(live);
      renderChannelUsage(live);
      renderDeliveries(live);
      const paused = renderPaused(live);
      renderBacklog(live, stats);
      renderGameView(game.view, game.problem);
      checkClipping();
      renders += 1;
      document.body.setAttribute("data-renders", String(renders));
      setStatus(true, paused ? "live · " + paused + " app" + (paused === 1 ? "" : "s") + " paused" : "live", paused > 0);
      byId("updated").textContent = "updated " + fmtTime(live.generatedAt || new Date().toISOString(), true);
    } catch (error) {
      setStatus(false, "cannot refresh: " + text(error && error.message ? error.message : error));
    } finally {
      clearTimeout(timer);
      timer = setTimeout(refresh, CONFIG.refreshMs);
    }
  }
  // A game opened or closed, or another window picked: show it now, not at the next tick.
  window.addEventListener("hashchange", () => { syncPicker(); renderGameView(null, null); refresh(); });
  refresh();
})();
