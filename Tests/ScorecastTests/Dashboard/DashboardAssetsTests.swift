import Foundation
import HTTPServer
@testable import Statistics
import Testing
import TestSupport

/// The dashboard's files as the router serves them: the right types, the policy, caching by
/// entity tag, and a page that loads nothing from anywhere but the server.
@Suite struct DashboardAssetsTests {
    private func router() -> Router {
        var router = Router()
        DashboardPage.register(on: &router, gate: nil)
        return router
    }

    private func get(_ path: String, ifNoneMatch: String? = nil) async throws -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if let ifNoneMatch { headers.add("If-None-Match", ifNoneMatch) }
        return try await router().respond(to: HTTPRequest(method: .get, path: path, headers: headers))
    }

    @Test func eachFileIsServedWithItsTypeThePolicyAndAnEntityTag() async throws {
        let expected = [
            "/dashboard": ("dashboard.html", "text/html; charset=utf-8"),
            "/dashboard/dashboard.css": ("dashboard.css", "text/css; charset=utf-8"),
            "/dashboard/dashboard.js": ("dashboard.js", "text/javascript; charset=utf-8"),
        ]
        #expect(Set(DashboardPage.assets.keys) == Set(expected.values.map(\.0)))
        var tags: Set<String> = []
        for (path, (file, type)) in expected {
            let response = try await get(path)
            #expect(response.status == .ok, "\(path)")
            #expect(response.headers["Content-Type"] == type, "\(path)")
            #expect(response.headers["Content-Security-Policy"] == DashboardPage.contentSecurityPolicy, "\(path)")
            #expect(response.headers["Cache-Control"] == "no-cache", "\(path)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            let onDisk = try Data(contentsOf: ScorecastProcess.packageRoot.appendingPathComponent("Sources/Statistics/Dashboard/Assets/\(file)"))
            #expect(response.body == Array(onDisk), "\(path) is not Assets/\(file)")
            let tag = try #require(response.headers["ETag"])
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 26, "\(tag)")
            tags.insert(tag)

            // A browser that has these bytes is told so, without them.
            let revalidated = try await get(path, ifNoneMatch: "\"stale\", \(tag)")
            #expect(revalidated.status == .notModified)
            #expect(revalidated.body.isEmpty)
            #expect(revalidated.headers["ETag"] == tag)
            #expect(try await get(path, ifNoneMatch: "\"stale\"").status == .ok)
        }
        #expect(tags.count == 3, "one tag per file")
        do {
            _ = try await get("/dashboard/nothing.js")
            Issue.record("a file the dashboard does not have was served")
        } catch let problem as Problem {
            #expect(problem.status == .notFound)
        }
    }

    @Test func thePageLoadsOnlyItsOwnFilesAndCarriesThePolicy() throws {
        let html = String(decoding: DashboardPage.page.body, as: UTF8.self)
        let everything = DashboardPage.assets.values.map { String(decoding: $0.body, as: UTF8.self) }.joined(separator: "\n")
        // The only src/href are the page's own two files (relative, so a path prefix works) and data: URLs.
        let references = html.matches(of: /(?i)(?:src|href)\s*=\s*"([^"]*)"/).map { String($0.output.1) }
        #expect(references.sorted() == ["dashboard/dashboard.css", "dashboard/dashboard.js", "data:,"], "\(references)")
        #expect(!everything.contains("https://"))
        #expect(everything.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/2000/svg") })
        // No inline script or style for the policy to allow.
        #expect(!html.contains("<style") && html.matches(of: /<script>/).isEmpty && !html.contains(" style=\""))
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"\(DashboardPage.contentSecurityPolicy)\">"))
        #expect(!everything.contains("innerHTML") && !everything.contains("outerHTML") && !everything.contains("insertAdjacentHTML")
            && !everything.contains("document.write"))
        #expect(html.contains("data-stats-path=\"v1/stats?window=15m\"") && html.contains("data-live-path=\"v1/stats/live\""))
    }
}
