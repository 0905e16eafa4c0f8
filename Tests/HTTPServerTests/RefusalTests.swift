import Foundation
import HTTPServer
import Testing
import TestSupport

/// Refusals a client must be able to read: problem+json, never an HTML page or a reset.
@Suite struct RefusalTests {
    private func expectProblem(_ exchange: RawHTTP.Exchange, status: Int, mentioning text: String) {
        #expect(exchange.status == status)
        let (headers, body) = exchange.headersAndBody
        #expect(headers["content-type"] == "application/problem+json")
        let problem = (try? jsonObject(body)) ?? [:]
        #expect(problem["status"] as? Int == status)
        #expect((problem["detail"] as? String)?.contains(text) == true)
    }

    @Test func aSixtyKilobyteHeaderIs431ProblemJSON() async throws {
        try await withServer(testRouter()) { server in
            let token = String(repeating: "a", count: 60 << 10)
            let exchange = try await RawHTTP.exchange(
                port: server.port, "GET /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            expectProblem(exchange, status: 431, mentioning: "32768 bytes")
            // Under the limit passes.
            let fine = try await RawHTTP.exchange(
                port: server.port, "GET /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token.prefix(20 << 10))\r\nConnection: close\r\n\r\n")
            #expect(fine.status == 200)
        }
    }

    @Test func aTenMegabyteBodySentWithoutWaitingGetsAReadable413() async throws {
        try await withServer(testRouter()) { server in
            // The whole request is written before anything is read, as a client that does not
            // wait for 100-continue does: the answer must still arrive, not a reset.
            let body = [UInt8](repeating: 0x61, count: 10 << 20)
            let head = Array("POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
            let exchange = try await RawHTTP.exchange(port: server.port, parts: [head, body], readTimeout: 30)
            expectProblem(exchange, status: 413, mentioning: "1048576 bytes")
            #expect(exchange.closedByServer)
        }
    }

    @Test func aTenMegabyteChunkedBodyGetsA413() async throws {
        try await withServer(testRouter()) { server in
            let chunk = String(repeating: "a", count: 64 << 10)
            let hex = String(chunk.utf8.count, radix: 16)
            var request = "POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            for _ in 0..<160 { request += "\(hex)\r\n\(chunk)\r\n" }
            request += "0\r\n\r\n"
            let exchange = try await RawHTTP.exchange(port: server.port, request, readTimeout: 30)
            expectProblem(exchange, status: 413, mentioning: "1048576 bytes")
        }
    }

    @Test func twoDifferentContentLengthsAre400ProblemJSON() async throws {
        try await withServer(testRouter()) { server in
            let exchange = try await RawHTTP.exchange(
                port: server.port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
            expectProblem(exchange, status: 400, mentioning: "conflicting Content-Length")
            #expect(exchange.closedByServer, "the body's end is unknown: the connection is not reused")
            // The same length repeated is one length.
            let same = try await RawHTTP.exchange(
                port: server.port,
                "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
            #expect(same.status == 200)
        }
    }

    @Test func anUnknownTransferCodingIs501ProblemJSON() async throws {
        try await withServer(testRouter()) { server in
            let exchange = try await RawHTTP.exchange(
                port: server.port, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            expectProblem(exchange, status: 501, mentioning: "'xchunked' is not supported")
            #expect(exchange.closedByServer)
            let both = try await RawHTTP.exchange(
                port: server.port, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            expectProblem(both, status: 400, mentioning: "both Transfer-Encoding and Content-Length")
        }
    }

    @Test func aFloodOfAThousandSmallHeadersIs431ProblemJSON() async throws {
        try await withServer(testRouter()) { server in
            // About 70 KB in 1,000 fields: small ones cost libmicrohttpd more buffer per byte.
            let fields = (0..<1_000).map { "X-Flood-\($0): " + String(repeating: "v", count: 54) + "\r\n" }.joined()
            #expect(fields.utf8.count > 68_000)
            let exchange = try await RawHTTP.exchange(
                port: server.port, "GET /echo HTTP/1.1\r\nHost: x\r\n" + fields + "Connection: close\r\n\r\n", readTimeout: 30)
            expectProblem(exchange, status: 431, mentioning: "32768 bytes")
        }
    }
}
