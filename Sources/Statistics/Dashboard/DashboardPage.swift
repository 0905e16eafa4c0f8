import ScorecastCrypto
import Foundation
import HTTPServer

/// The built-in dashboard served at `GET /dashboard`: a page, a style sheet and a script
/// (`Dashboard/Assets/dashboard.html`, `.css`, `.js`, SwiftPM resources embedded in the binary),
/// plain JavaScript and inline SVG; no external scripts, fonts, images or
/// CDNs, so it works offline and behind a strict Content-Security-Policy.
///
/// The page loads `dashboard/dashboard.css` and `dashboard/dashboard.js` and fetches
/// `v1/stats?window=15m` (`StatsResponse`; the window picker, kept in the URL's `#window=…`,
/// changes it), `v1/stats/live` (`LiveStatsResponse`) and, for the game an operator opens,
/// `v1/games/{id}/stats` and `v1/games/{id}/live` — all relative to its own URL, so it also
/// works under a path prefix — every 2 seconds. The game view draws each channel's Live
/// Activity as its phones show it (`face`: the lock screen, the Dynamic Island compact and
/// expanded, the alert last shown; each drawing marked `data-part`). All data reaches the page
/// through `textContent` and `setAttribute`, never as markup.
///
/// For tests and diagnostics the page records its state on the document: `data-renders` on
/// `<body>` counts successful refreshes, `data-errors` on `<html>` lists script errors and
/// `data-status` on `<body>` is `ok` or `error`, each chart's `data-visible-series` counts
/// the series it actually painted, and `data-clipped` on `<body>` names every text cut off
/// (ellipsized, sticking out of its card, or outside its chart; absent when all fit).
package enum DashboardPage {
    /// One file of the dashboard, ready to serve.
    package struct Asset: Sendable {
        /// The file name, e.g. `dashboard.js`.
        package let name: String
        /// The `Content-Type` it is served with.
        package let contentType: String
        /// Its bytes.
        package let body: [UInt8]
        /// A strong `ETag` (quoted), from the SHA-256 of the bytes: a browser revalidates and
        /// gets `304 Not Modified` until the binary serves different bytes.
        package let entityTag: String
    }

    /// The `Content-Security-Policy` of every dashboard response: nothing may load from
    /// anywhere but the server itself, no inline script or style runs, only same-origin
    /// `fetch` is allowed. (`dashboard.html` also carries it as a meta tag; a test keeps the two
    /// equal.)
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"

    /// Every response revalidates: the bytes change only with the binary, and a stale script
    /// against a newer API is worse than one round trip answered `304`.
    package static let cacheControl = "no-cache"

    /// The page, its style sheet and its script, by file name.
    package static let assets: [String: Asset] = Dictionary(
        uniqueKeysWithValues: embeddedFiles.map { name, body in
            let digest = SHA256.hexDigest(body).prefix(24)
            return (name, Asset(name: name, contentType: contentType(of: name), body: body, entityTag: "\"\(digest)\""))
        })

    /// The files of `Dashboard/Assets/`, which SwiftPM embeds (`.embedInCode` in Package.swift)
    /// as `PackageResources.<name with dots as underscores>`; it offers no list, so this is it.
    private static let embeddedFiles: [(name: String, body: [UInt8])] = [
        ("dashboard.html", PackageResources.dashboard_html),
        ("dashboard.css", PackageResources.dashboard_css),
        ("dashboard.js", PackageResources.dashboard_js),
    ]

    /// The page itself.
    package static var page: Asset { assets["dashboard.html"]! }

    /// The answer to a `GET` of `asset`: the bytes, or `304` when `ifNoneMatch` names its tag.
    package static func response(for asset: Asset, ifNoneMatch: String?) -> HTTPResponse {
        var headers: HTTPHeaders = [
            "Content-Type": asset.contentType, "Content-Security-Policy": contentSecurityPolicy,
            "Cache-Control": cacheControl, "ETag": asset.entityTag, "X-Content-Type-Options": "nosniff",
        ]
        let tags = (ifNoneMatch ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tags.contains(asset.entityTag) || tags.contains("W/" + asset.entityTag) || tags.contains("*") {
            headers.remove("Content-Type")
            return .empty(status: .notModified, headers: headers)
        }
        return HTTPResponse(status: .ok, headers: headers, body: asset.body)
    }

    /// Adds `GET /dashboard` (the page) and `GET /dashboard/<file>` (its style sheet and script)
    /// to `router`, behind `gate`.
    package static func register(on router: inout Router, gate: Gate?) {
        let page = page
        router.get("/dashboard", gate: gate) { request in
            response(for: page, ifNoneMatch: request.headers["If-None-Match"])
        }
        for asset in assets.values where asset.name != page.name {
            router.get("/dashboard/" + asset.name, gate: gate) { request in
                response(for: asset, ifNoneMatch: request.headers["If-None-Match"])
            }
        }
    }

    private static func contentType(of name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        return "application/octet-stream"
    }
}
