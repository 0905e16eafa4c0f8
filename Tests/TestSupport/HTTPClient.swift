import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal HTTP client for tests: one request, status, headers and body back.
public enum TestHTTP {
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        return URLSession(configuration: configuration)
    }()

    /// Sends a request and returns status, lower-cased headers and body.
    public static func request(
        _ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        guard let target = URL(string: url) else { throw TestSupportError("bad URL \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestSupportError("not an HTTP response") }
        var lowered: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { lowered[key.lowercased()] = value }
        }
        return (http.statusCode, lowered, [UInt8](data))
    }

    /// `GET url`.
    public static func get(_ url: String, headers: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: [UInt8]) {
        try await request("GET", url, headers: headers)
    }

    /// A JSON object from `bytes`, or a failure naming what was received.
    public static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw TestSupportError("not a JSON object: \(String(decoding: bytes, as: UTF8.self))")
        }
        return object
    }
}
