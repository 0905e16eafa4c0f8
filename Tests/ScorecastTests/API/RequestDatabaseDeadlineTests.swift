import HTTPServer
import Postgres
@testable import Server
import Testing

/// Every request runs under the database wait, and what a stalled or absent database makes a
/// route throw leaves as a `503` that says when to retry.
@Suite struct RequestDatabaseDeadlineTests {
    private static let limit = Duration.milliseconds(1500)

    private func router(_ handler: @escaping Handler) -> Router {
        var router = Router()
        router.use(RequestDatabaseDeadline(limit: Self.limit).middleware)
        router.get("/r", handler: handler)
        return router
    }

    private func problem(from handler: @escaping Handler) async -> Problem? {
        await #expect(throws: Problem.self) { _ = try await router(handler).respond(to: HTTPRequest(method: .get, path: "/r")) }
    }

    @Test func aRouteWaitsOnTheDatabaseNoLongerThanTheLimit() async throws {
        let before = ContinuousClock.now
        let response = try await router { _ in
            guard case .at(let instant) = PostgresDeadline.ofCurrentTask else { return HTTPResponse(status: .internalServerError) }
            return HTTPResponse(status: instant <= ContinuousClock.now + Self.limit && instant > before ? .ok : .conflict)
        }.respond(to: HTTPRequest(method: .get, path: "/r"))
        #expect(response.status == .ok)
    }

    @Test func aDatabaseThatDidNotAnswerIsA503WithRetryAfter() async {
        for code in [PostgresError.Code.timeout, .connectionFailed, .connectionClosed] {
            let problem = await problem { _ in throw PostgresError(code, "no answer") }
            #expect(problem?.status == .serviceUnavailable && problem?.headers["Retry-After"] == "1", "\(code): \(String(describing: problem))")
        }
        let cancelled = await problem { _ in
            throw PostgresError(.queryFailed, "canceling statement due to statement timeout", sqlState: PostgresError.SQLState.queryCanceled)
        }
        #expect(cancelled?.status == .serviceUnavailable)
    }

    @Test func aRoutes503GetsARetryAfterAndKeepsItsOwn() async {
        let bare = await problem { _ in throw Problem.serviceUnavailable("the registry is unavailable") }
        #expect(bare?.headers["Retry-After"] == "1" && bare?.detail == "the registry is unavailable")
        let own = await problem { _ in throw Problem(status: .serviceUnavailable, detail: "later", headers: ["Retry-After": "60"]) }
        #expect(own?.headers.values(for: "Retry-After") == ["60"])
        let notFound = await problem { _ in throw Problem.notFound("no such game") }
        #expect(notFound?.status == .notFound && notFound?.headers["Retry-After"] == nil)
    }

    @Test func aStatementTheDatabaseRefusedIsNotCalledUnavailable() async {
        await #expect(throws: PostgresError.self) {
            _ = try await router { _ in
                throw PostgresError(.queryFailed, "duplicate key", sqlState: PostgresError.SQLState.uniqueViolation)
            }.respond(to: HTTPRequest(method: .get, path: "/r"))
        }
    }
}
