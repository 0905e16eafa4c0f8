import Foundation
@testable import HTTPServer
import Testing

/// The pure rules behind the slow-body and framing refusals, with instants computed, not waited for.
@Suite struct BodyRateTests {
    private let start = ContinuousClock.now

    private func book(rate: Int) -> ConnectionDeadlines<ContinuousClock.Instant> {
        var book = ConnectionDeadlines<ContinuousClock.Instant>(
            headerTimeout: .seconds(10), bodyTimeout: .seconds(60), minimumBodyRate: rate, rateGracePeriod: .seconds(5))
        book.opened(1, descriptor: 7, now: start)
        book.headersReceived(1, requestID: "r1", now: start)
        return book
    }

    @Test func aBodyBelowTheRateIsLateOnlyAfterTheGracePeriod() {
        var book = book(rate: 1_000)
        book.bodyProgress(1, bytes: 100)
        #expect(book.expire(now: start.advanced(by: .seconds(4))).isEmpty, "within the grace period nothing counts")
        // 4,000 bytes by 5 s: 800 bytes a second, under 1,000.
        book.bodyProgress(1, bytes: 3_900)
        let late = book.expire(now: start.advanced(by: .seconds(5)))
        #expect(late == [.init(descriptor: 7, lateness: .slowBody, requestID: "r1")])
        #expect(book.expire(now: start.advanced(by: .seconds(6))).isEmpty, "reported once")
    }

    @Test func aBodyAtTheRateIsNotLateUntilItsDeadline() {
        var book = book(rate: 1_000)
        for second in 1...59 {
            book.bodyProgress(1, bytes: 1_000)
            #expect(book.expire(now: start.advanced(by: .seconds(second))).isEmpty, "at \(second) s")
        }
        book.bodyProgress(1, bytes: 1_000)
        #expect(book.expire(now: start.advanced(by: .seconds(60))).map(\.lateness) == [.body])
    }

    @Test func noMinimumRateLeavesOnlyTheDeadline() {
        var book = book(rate: 0)
        #expect(book.expire(now: start.advanced(by: .seconds(59))).isEmpty)
        #expect(book.expire(now: start.advanced(by: .seconds(60))).map(\.lateness) == [.body])
    }

    @Test func aCompleteBodyOwesNothing() {
        var book = book(rate: 1_000)
        book.bodyReceived(1)
        #expect(book.expire(now: start.advanced(by: .seconds(120))).isEmpty)
        // The next request's headers are due from its response on, and have no rate.
        book.requestFinished(1, now: start.advanced(by: .seconds(120)))
        #expect(book.expire(now: start.advanced(by: .seconds(130))).map(\.lateness) == [.headers])
    }

    @Test(arguments: [
        (["Content-Length": "5"], nil),
        (["Content-Length": "5, 5"], nil),
        (["Content-Length": "5", "content-length": "05"], nil),
        (["Transfer-Encoding": "chunked"], nil),
        (["Transfer-Encoding": "Chunked"], nil),
        (["Content-Length": "5", "content-length": "6"], 400),
        (["Content-Length": "5, 6"], 400),
        (["Content-Length": "-5"], 400),
        (["Content-Length": ""], 400),
        (["Transfer-Encoding": "xchunked"], 501),
        (["Transfer-Encoding": "gzip, chunked"], 501),
        (["Transfer-Encoding": "chunked, chunked"], 400),
        (["Transfer-Encoding": "chunked", "Content-Length": "5"], 400),
    ] as [([String: String], Int?)])
    func framing(_ fields: [String: String], status: Int?) {
        var headers = HTTPHeaders()
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { headers.add(name, value) }
        #expect(RequestFraming.problem(in: headers)?.status.code == status, "\(fields)")
    }
}
