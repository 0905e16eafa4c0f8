import CurlHTTP
import Foundation

/// One memory sample of `scorecast serve`: RSS from `/proc`, heap in use from its `/metrics`.
struct MemorySample: Sendable {
    /// Seconds since the window started.
    var seconds: Double
    /// Resident set size, bytes.
    var rssBytes: Int
    /// `scorecast_heap_in_use_bytes` (bytes malloc handed out and not had back); `nil` when
    /// `/metrics` did not answer or does not carry it.
    var heapInUseBytes: Int?
}

/// Samples a `serve`'s memory once a second until cancelled.
enum MemorySampler {
    /// The samples of `serve`, taken until the calling task is cancelled.
    static func run(_ serve: ServeProcess) async -> [MemorySample] {
        var samples: [MemorySample] = []
        let started = ContinuousClock.now
        while !Task.isCancelled {
            if let sample = ProcFS.sample(pid: serve.process.pid) {
                let heap = await heapInUse(port: serve.httpPort, opsToken: serve.opsToken)
                samples.append(MemorySample(seconds: (ContinuousClock.now - started).seconds, rssBytes: sample.rssBytes, heapInUseBytes: heap))
            }
            try? await Task.sleep(for: .seconds(1))
        }
        return samples
    }

    /// `scorecast_heap_in_use_bytes` from the `/metrics` of the serve on `port`.
    private static func heapInUse(port: Int, opsToken: String?) async -> Int? {
        let headers = opsToken.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
        let request = CurlHTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/metrics", headers: headers)
        guard port > 0, let answer = try? await CurlHTTPConnection.perform(request, timeout: .seconds(5)), answer.status == 200 else {
            return nil
        }
        return gauge("scorecast_heap_in_use_bytes", in: String(decoding: answer.body, as: UTF8.self)).map { Int($0) }
    }

    /// The value of the unlabelled series `name` in a Prometheus text exposition.
    static func gauge(_ name: String, in exposition: String) -> Double? {
        let line = exposition.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)) }
    }
}
