import Foundation
import JSON
import Synchronization

/// How important a log line is; lines below the logger's threshold are dropped.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    /// The lower-case name used in configuration and in every line.
    public var name: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }

    /// Parses a level name such as `info`; `nil` for anything else.
    public init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = level
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The shape of a written line: human text, or one JSON object per line for collectors.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json
}

/// Where lines go. The default writes to standard error, one `write(2)` per line so lines
/// from different threads never interleave.
public protocol LogSink: Sendable {
    /// Writes one finished line (without its newline).
    func write(line: String)
}

/// Writes each line to standard error.
public struct StandardErrorSink: LogSink {
    /// Creates the sink.
    public init() {}

    public func write(line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// Keeps lines in memory; tests read them back.
public final class MemorySink: LogSink {
    private let storage = Mutex<[String]>([])

    /// Creates an empty sink.
    public init() {}

    public func write(line: String) { storage.withLock { $0.append(line) } }

    /// Every line written so far.
    public var lines: [String] { storage.withLock { $0 } }
}

/// A levelled, structured logger: a label (the component), metadata carried along, a threshold
/// and a format. A value type: `with(_:)` returns a logger carrying more metadata.
///
/// Never pass a secret (token, key, API key) as a message or metadata value.
public struct Logger: Sendable {
    /// The component that writes, e.g. `http` or `worker`.
    public let label: String
    /// Lines below this level are dropped.
    public var level: LogLevel
    /// Text or JSON lines.
    public var format: LogFormat
    /// Key-value pairs added to every line.
    public var metadata: [String: String]
    private let sink: any LogSink

    /// Creates a logger writing to `sink` (standard error by default).
    public init(
        label: String,
        level: LogLevel = .info,
        format: LogFormat = .text,
        metadata: [String: String] = [:],
        sink: any LogSink = StandardErrorSink()
    ) {
        self.label = label
        self.level = level
        self.format = format
        self.metadata = metadata
        self.sink = sink
    }

    /// The same logger with another label, keeping level, format, metadata and sink.
    public func named(_ label: String) -> Logger {
        Logger(label: label, level: level, format: format, metadata: metadata, sink: sink)
    }

    /// The same logger with extra metadata on every line.
    public func with(_ extra: [String: String]) -> Logger {
        var copy = self
        copy.metadata.merge(extra) { _, new in new }
        return copy
    }

    /// Whether a line at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes `message` at `level` with optional extra metadata.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, _ extra: [String: String] = [:]) {
        guard isEnabled(level) else { return }
        var fields = metadata
        fields.merge(extra) { _, new in new }
        sink.write(line: LogLine.render(
            time: Date(), level: level, label: label, message: message(), metadata: fields, format: format))
    }

    public func trace(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.trace, message(), extra) }
    public func debug(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.debug, message(), extra) }
    public func info(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.info, message(), extra) }
    public func notice(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.notice, message(), extra) }
    public func warning(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.warning, message(), extra) }
    public func error(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.error, message(), extra) }
    public func critical(_ message: @autoclosure () -> String, _ extra: [String: String] = [:]) { log(.critical, message(), extra) }
}

/// Renders one log line; pure so that formats are tested without a sink.
public enum LogLine {
    /// The line for one record, text (`time level label: message key=value…`) or a JSON object.
    public static func render(
        time: Date, level: LogLevel, label: String, message: String, metadata: [String: String], format: LogFormat
    ) -> String {
        let stamp = timestamp(time)
        let keys = metadata.keys.sorted()
        switch format {
        case .text:
            var line = "\(stamp) \(level.name.uppercased()) \(label): \(message)"
            for key in keys { line += " \(key)=\(quotedIfNeeded(metadata[key]!))" }
            return line
        case .json:
            var line = "{\"time\":\(JSONValue.quoted(stamp)),\"level\":\(JSONValue.quoted(level.name)),\"label\":\(JSONValue.quoted(label)),\"message\":\(JSONValue.quoted(message))"
            for key in keys where !["time", "level", "label", "message"].contains(key) {
                line += ",\(JSONValue.quoted(key)):\(JSONValue.quoted(metadata[key]!))"
            }
            return line + "}"
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon).timeZone(separator: .omitted))
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) || value.isEmpty ? JSONValue.quoted(value) : value
    }
}
