import ScorecastCrypto
import Foundation
import HTTPServer

/// Who may read the operator routes (`/metrics`, `/v1/stats*`, the per-channel, game and app
/// statistics, `/dashboard`) when `SCORECAST_OPS_TOKEN` is set: a request carrying
/// `Authorization: Bearer <token>`, or the cookie the login form sets for the dashboard (and
/// its own fetches). Without a token they are open, which `serve` allows only on a loopback
/// address unless `SCORECAST_OPS_PUBLIC=true` (`exposureProblem`).
///
/// Tokens are compared through their SHA-256, in constant time: neither the content nor the
/// length of the token leaks through timing. The cookie holds an HMAC of the token, not the
/// token itself.
package struct OpsAccess: Sendable {
    /// The cookie the login form sets.
    package static let cookieName = "scorecast_ops"
    private let tokenDigest: [UInt8]?
    private let cookieValue: String?

    /// Access guarded by `token`, or open when it is `nil`.
    package init(token: String?) {
        tokenDigest = token.map { SHA256.hash(Array($0.utf8)) }
        cookieValue = token.map { Hex.encode(HMACSHA256.authenticate(message: Array("scorecast-ops-cookie".utf8), key: Array($0.utf8))) }
    }

    /// Whether a token is required.
    package var isGuarded: Bool { tokenDigest != nil }

    /// Why `serve` must not start with this exposure, or `nil`: an HTTP host other than a
    /// loopback address, no token, and no explicit `SCORECAST_OPS_PUBLIC=true`.
    package static func exposureProblem(host: String, token: String?, opsPublic: Bool) -> String? {
        guard token == nil, !opsPublic, !isLoopback(host) else { return nil }
        return "SCORECAST_HTTP_HOST is \(host), not a loopback address, and SCORECAST_OPS_TOKEN is not set: "
            + "/metrics, /v1/stats and /dashboard would be open to anyone who reaches the port. "
            + "Set SCORECAST_OPS_TOKEN, or SCORECAST_OPS_PUBLIC=true to serve them openly on purpose."
    }

    /// `127.0.0.0/8`, `::1` and `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// Whether `request` carries the token (Bearer) or the login cookie; always when open.
    package func admits(_ request: HTTPRequest) -> Bool {
        guard let tokenDigest, let cookieValue else { return true }
        if let authorization = request.headers["Authorization"], authorization.lowercased().hasPrefix("bearer ") {
            let given = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            if ConstantTime.equals(SHA256.hash(Array(given.utf8)), tokenDigest) { return true }
        }
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0] == Self.cookieName else { continue }
                if ConstantTime.equals(SHA256.hash(Array(parts[1].utf8)), SHA256.hash(Array(cookieValue.utf8))) { return true }
            }
        }
        return false
    }

    /// For the JSON and metrics routes: a `401` problem unless admitted, answered on the
    /// headers (before any body is read).
    package var gate: Gate {
        Gate { [self] request in
            guard admits(request) else {
                throw Problem(
                    status: .unauthorized, detail: "this operator route needs SCORECAST_OPS_TOKEN as a Bearer token",
                    headers: ["WWW-Authenticate": "Bearer realm=\"scorecast-ops\""])
            }
            return nil
        }
    }

    /// For `/dashboard`: the login form unless admitted.
    package var dashboardGate: Gate {
        Gate { [self] request in
            admits(request) ? nil : Self.loginPage(status: .unauthorized, failed: false)
        }
    }

    /// `POST /dashboard/login` (the form's target): a right token sets the cookie and goes
    /// back to the dashboard; a wrong one shows the form again.
    package func registerLogin(on router: inout Router) {
        router.post("/dashboard/login") { [self] request in
            guard let cookieValue, let tokenDigest else { return .empty(status: .seeOther, headers: ["Location": "/dashboard"]) }
            let given = request.formFields()?.first { $0.name == "token" }?.value ?? ""
            guard ConstantTime.equals(SHA256.hash(Array(given.utf8)), tokenDigest) else {
                return Self.loginPage(status: .unauthorized, failed: true)
            }
            return .empty(status: .seeOther, headers: [
                "Location": "/dashboard",
                "Set-Cookie": "\(Self.cookieName)=\(cookieValue); Path=/; HttpOnly; SameSite=Strict",
                "Cache-Control": "no-store",
            ])
        }
    }

    private static func loginPage(status: HTTPStatus, failed: Bool) -> HTTPResponse {
        let note = failed ? "<p class=\"error\">That token is not the one this server was given.</p>" : ""
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>scorecast — sign in</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>body{font:16px system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}
            input,button{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.3rem 0}.error{color:#b00}</style>
            </head><body><h1>scorecast</h1><p>The dashboard needs the operator token (<code>SCORECAST_OPS_TOKEN</code>).</p>\(note)
            <form method="post" action="/dashboard/login"><input type="password" name="token" autocomplete="current-password" autofocus required>
            <button type="submit">Sign in</button></form></body></html>
            """
        return .html(html, status: status, headers: ["Cache-Control": "no-store", "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"])
    }
}
