import ScorecastLogging

/// The one `info` line written per request. It carries the method, the path (never the query,
/// which may hold tokens), the status, the body bytes sent, the duration, the request id and
/// the client address; never a header or a body.
enum AccessLog {
    /// Longer paths are cut in the log.
    static let maximumPathLength = 512

    static func write(_ context: RequestContext, termination: String?, duration: Duration, to logger: Logger) {
        guard logger.isEnabled(.info) else { return }
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        var fields: [String: String] = [
            "method": String(context.methodText.prefix(32)),
            "path": String(context.target.path.prefix(maximumPathLength)),
            "status": context.status.map(String.init) ?? "-",
            "bytes": String(context.responseBytes),
            "duration_ms": String((milliseconds * 100).rounded() / 100),
            "request_id": context.requestID.isEmpty ? "-" : context.requestID,
        ]
        if let remote = context.remoteAddress { fields["remote"] = remote }
        if let termination { fields["outcome"] = termination }
        logger.info("request", fields)
    }
}
