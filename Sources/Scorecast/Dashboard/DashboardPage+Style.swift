extension DashboardPage {
    /// The page's CSS: a dark operations theme, system fonts only.
    static let style = #"""
        :root {
          --bg: #0d1220; --panel: #151c2e; --panel-2: #1b2439; --line: #26304a; --text: #e7ecf6;
          --muted: #8e9ab3; --accepted: #37c98b; --retried: #f3a73b; --failed: #f05470;
          --p50: #5aa9ff; --p95: #f3a73b; --p99: #f05470; --accent: #7c8cff;
        }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--text); }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; }
        .muted { color: var(--muted); }
        header.top { display: flex; align-items: center; justify-content: space-between; padding: 18px 28px;
          border-bottom: 1px solid var(--line); background: linear-gradient(180deg, #121a2d, var(--bg)); }
        .brand { display: flex; align-items: baseline; gap: 12px; }
        .logo { width: 14px; height: 14px; border-radius: 4px; align-self: center;
          background: linear-gradient(135deg, var(--accent), var(--accepted)); }
        h1 { margin: 0; font-size: 20px; letter-spacing: .3px; }
        .sub { color: var(--muted); font-size: 13px; }
        .meta { display: flex; align-items: center; gap: 12px; font-size: 13px; }
        .pill { display: inline-flex; align-items: center; gap: 7px; padding: 4px 11px; border-radius: 999px;
          background: var(--panel-2); border: 1px solid var(--line); font-size: 12px; font-weight: 600; }
        .pill::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--muted); }
        .pill.ok::before { background: var(--accepted); box-shadow: 0 0 0 3px rgba(55, 201, 139, .18); }
        .pill.error { color: #ffd0d8; border-color: rgba(240, 84, 112, .5); }
        .pill.error::before { background: var(--failed); }
        .pill.warn { color: #ffe3b8; border-color: rgba(243, 167, 59, .6); }
        .pill.warn::before { background: var(--retried); }
        .banner { background: rgba(240, 84, 112, .14); border: 1px solid rgba(240, 84, 112, .6); border-radius: 12px;
          padding: 10px 14px; margin-bottom: 16px; color: #ffd0d8; }
        .banner[hidden] { display: none; }
        .kpis.backlog { grid-template-columns: repeat(2, minmax(0, 1fr)); }
        .banner-line + .banner-line { margin-top: 6px; }
        main { padding: 20px 28px 8px; }
        .kpis { display: grid; grid-template-columns: repeat(8, minmax(0, 1fr)); gap: 12px; margin-bottom: 16px; }
        .kpi { background: var(--panel); border: 1px solid var(--line); border-radius: 12px; padding: 12px 14px; min-width: 0; }
        .kpi .label { color: var(--muted); font-size: 11.5px; text-transform: uppercase; letter-spacing: .6px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .kpi .value { font-size: 26px; font-weight: 700; margin-top: 4px; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .kpi .note { color: var(--muted); font-size: 12px; margin-top: 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .kpi.accepted .value { color: var(--accepted); }
        .kpi.failed .value { color: var(--failed); }
        .kpi.retried .value, .kpi.downgraded .value { color: var(--retried); }
        .kpi.coalesced .value { color: var(--accent); }
        .grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; }
        .card { background: var(--panel); border: 1px solid var(--line); border-radius: 14px; padding: 14px 16px 16px; min-width: 0; }
        .card.wide { grid-column: 1 / -1; }
        .card-head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; margin-bottom: 8px; }
        h2 { margin: 0; font-size: 15px; font-weight: 650; }
        .hint { color: var(--muted); font-size: 12px; }
        .legend { margin-left: auto; display: flex; gap: 14px; font-size: 12px; color: var(--muted); }
        .legend .item { display: inline-flex; align-items: center; gap: 6px; white-space: nowrap; }
        .legend .swatch { width: 10px; height: 10px; border-radius: 3px; }
        .legend b { color: var(--text); font-weight: 600; font-variant-numeric: tabular-nums; }
        svg.chart { display: block; width: 100%; height: auto; }
        .chart .grid line { stroke: var(--line); stroke-width: 1; }
        .chart .grid text, .chart .axis text { fill: var(--muted); font-size: 11px; }
        .chart .empty { fill: var(--muted); font-size: 13px; }
        .chart path.series:not(.bar) { fill: none; stroke-width: 2.2; stroke-linejoin: round; stroke-linecap: round; }
        .chart path.bar { stroke: none; }
        .bars { display: flex; flex-direction: column; gap: 10px; }
        .bar-row { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 4px 12px; align-items: center; }
        .bar-row .name { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .bar-row .name small { color: var(--muted); margin-left: 8px; font-size: 12px; }
        .bar-row .count { font-variant-numeric: tabular-nums; font-weight: 600; }
        .bar-row .track { grid-column: 1 / -1; height: 8px; border-radius: 999px; background: var(--panel-2); overflow: hidden; }
        .bar-row .fill { height: 100%; border-radius: 999px; }
        .bar-row .tags { grid-column: 1 / -1; display: flex; gap: 6px; flex-wrap: wrap; }
        .tag { font-size: 11.5px; padding: 1px 8px; border-radius: 999px; background: var(--panel-2); color: var(--muted); border: 1px solid var(--line); }
        .tag.warn { color: var(--retried); border-color: rgba(243, 167, 59, .4); }
        .tag.bad { color: var(--failed); border-color: rgba(240, 84, 112, .45); }
        .empty-note { color: var(--muted); padding: 18px 0; text-align: center; }
        .games { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 12px; }
        .game { background: var(--panel-2); border: 1px solid var(--line); border-radius: 12px; padding: 12px 14px; min-width: 0; }
        .game .top { display: flex; justify-content: space-between; align-items: center; font-size: 12px; color: var(--muted); }
        .status { font-size: 11px; font-weight: 700; letter-spacing: .6px; padding: 2px 8px; border-radius: 999px; text-transform: uppercase; }
        .status.live { background: rgba(240, 84, 112, .16); color: #ff8da1; }
        .status.scheduled { background: rgba(124, 140, 255, .16); color: #aeb8ff; }
        .status.final { background: rgba(142, 154, 179, .16); color: var(--muted); }
        .team { display: flex; justify-content: space-between; align-items: baseline; margin-top: 6px; font-size: 15px; }
        .team .tname { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .team .score { font-size: 24px; font-weight: 750; font-variant-numeric: tabular-nums; margin-left: 12px; }
        .game .clock { margin-top: 6px; font-size: 12.5px; color: var(--text); }
        .game .last { margin-top: 4px; font-size: 12px; color: var(--muted); display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
        .table-wrap { overflow-x: auto; }
        table { width: 100%; border-collapse: collapse; font-size: 13px; }
        th { text-align: left; color: var(--muted); font-weight: 600; font-size: 11.5px; text-transform: uppercase; letter-spacing: .5px; padding: 6px 10px; border-bottom: 1px solid var(--line); }
        td { padding: 7px 10px; border-bottom: 1px solid rgba(38, 48, 74, .6); white-space: nowrap; }
        td.channel { max-width: 220px; overflow: hidden; text-overflow: ellipsis; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        .badge { display: inline-block; font-size: 11.5px; font-weight: 650; padding: 1px 8px; border-radius: 6px; }
        .badge.accepted { background: rgba(55, 201, 139, .15); color: var(--accepted); }
        .badge.retried { background: rgba(243, 167, 59, .15); color: var(--retried); }
        .badge.failed { background: rgba(240, 84, 112, .15); color: var(--failed); }
        .badge.p10 { background: rgba(124, 140, 255, .16); color: #b5beff; }
        .badge.p5 { background: rgba(142, 154, 179, .14); color: var(--muted); }
        .down { color: var(--retried); margin-left: 6px; font-size: 12px; }
        footer { padding: 10px 28px 22px; font-size: 12px; }
        @media (max-width: 1100px) { .kpis { grid-template-columns: repeat(4, minmax(0, 1fr)); } .grid { grid-template-columns: 1fr; } }
        """#
}
