/// The built-in dashboard served at `GET /dashboard`: one self-contained HTML page (inline CSS,
/// plain JavaScript, inline SVG; no external scripts, fonts, images or CDNs, so it works offline
/// and behind a strict Content-Security-Policy).
///
/// Every 2 seconds it fetches `v1/stats?window=15m` (`StatsResponse`; the window picker, kept
/// in the URL's `#window=…`, changes it) and `v1/stats/live`
/// (`LiveStatsResponse`), relative to its own URL so it also works under a path prefix, and
/// draws: headline counts (sends, accepted, failed, retried and throttled, coalesced,
/// downgraded, latency), throughput by outcome, latency percentiles of both legs, failures by
/// reason, the channels closest to their priority-10 budget, live games and recent deliveries;
/// a red banner names every paused app (and the status pill stops saying a plain "live").
/// All data reaches the page through `textContent` and `setAttribute`, never as markup.
///
/// For tests and diagnostics the page records its state on the document: `data-renders` on
/// `<body>` counts successful refreshes, `data-errors` on `<html>` lists script errors and
/// `data-status` on `<body>` is `ok` or `error`, and each chart's `data-visible-series` counts
/// the series it actually painted.
public enum DashboardPage {
    /// The `Content-Type` to serve the page with.
    public static let contentType = "text/html; charset=utf-8"

    /// A `Content-Security-Policy` header value matching the page: nothing may load from
    /// anywhere, only same-origin `fetch` is allowed. (The page also carries it as a meta tag.)
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"

    /// How often the page refreshes, in milliseconds.
    public static let refreshMilliseconds = 2_000

    /// The statistics request the page makes, relative to its own URL.
    public static let statsPath = "v1/stats?window=15m"

    /// The live snapshot request the page makes, relative to its own URL.
    public static let livePath = "v1/stats/live"

    /// The complete page.
    public static let html: String = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <meta name="color-scheme" content="dark">
        <title>scorecast · dashboard</title>
        <link rel="icon" href="data:,">
        <style>
        \(style)
        </style>
        </head>
        <body data-status="loading" data-renders="0">
        \(body)
        <script>
        const CONFIG = {refreshMs: \(refreshMilliseconds), statsPath: "\(statsPath)", livePath: "\(livePath)"};
        \(script)
        </script>
        </body>
        </html>

        """

    /// The static markup: the frame the script fills in.
    static let body = #"""
        <header class="top">
          <div class="brand"><span class="logo" aria-hidden="true"></span><h1>scorecast</h1><span class="sub">Live Activity broadcasts</span></div>
          <div class="meta"><label class="muted">window <select id="window" aria-label="Statistics window"><option value="15m">15 min</option><option value="1h">1 hour</option><option value="6h">6 hours</option><option value="24h">24 hours</option></select></label><span id="status" class="pill">connecting…</span><span id="updated" class="muted"></span></div>
        </header>
        <main>
          <section id="paused" class="banner" role="alert" hidden></section>
          <section id="kpis" class="kpis" aria-label="Headline figures"></section>
          <section id="backlog" class="kpis backlog" aria-label="Backlog and feed"></section>
          <section class="grid">
            <article class="card wide">
              <div class="card-head"><h2>Throughput</h2><span class="hint">broadcast sends per bucket by outcome, over the chosen window</span><div id="throughput-legend" class="legend"></div></div>
              <svg id="throughput-chart" class="chart" role="img" aria-label="Sends per minute by outcome"></svg>
            </article>
            <article class="card">
              <div class="card-head"><h2>Latency · ingest → send</h2><div id="latency-legend" class="legend"></div></div>
              <svg id="latency-chart" class="chart" role="img" aria-label="Ingest to send latency percentiles"></svg>
            </article>
            <article class="card">
              <div class="card-head"><h2>Latency · send → APNs answer</h2><div id="answer-legend" class="legend"></div></div>
              <svg id="answer-chart" class="chart" role="img" aria-label="Send to APNs answer latency percentiles"></svg>
            </article>
            <article class="card">
              <div class="card-head"><h2>Failures by reason</h2><span class="hint">retried and failed attempts</span></div>
              <div id="failures" class="bars"></div>
            </article>
            <article class="card">
              <div class="card-head"><h2>Budgets closest to the limit</h2><span class="hint">priority-10 sends this hour</span></div>
              <div id="budgets" class="bars"></div>
            </article>
            <article class="card wide">
              <div class="card-head"><h2>Live games</h2></div>
              <div id="games" class="games"></div>
            </article>
            <article class="card wide">
              <div class="card-head"><h2>Recent deliveries</h2><span class="hint">newest first</span></div>
              <div class="table-wrap">
                <table id="deliveries">
                  <thead><tr><th>Time</th><th>Game</th><th>Channel</th><th>Priority</th><th>Outcome</th><th>APNs answer</th><th class="num">Latency</th><th class="num">Events</th><th class="num">Attempt</th></tr></thead>
                  <tbody></tbody>
                </table>
              </div>
            </article>
          </section>
        </main>
        <footer class="muted">Refreshes every 2 s from <code>/v1/stats</code> and <code>/v1/stats/live</code>. Prometheus metrics at <code>/metrics</code>.</footer>
        """#
}
