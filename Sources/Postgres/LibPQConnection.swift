internal import CLibPQ
import Foundation
import ScorecastLogging
import Synchronization

/// Owns one libpq connection (`PGconn`). Confined to the thread that created it (libpq
/// connections are not thread-safe), so it is deliberately not `Sendable`; every call here
/// blocks that thread, never Swift's cooperative pool.
final class LibPQConnection {
    /// What a statement produced.
    struct Outcome: Sendable {
        var rows: [PostgresRow]
        /// Rows affected (`PQcmdTuples`), 0 for statements that report none.
        var affected: Int
        /// The command tag, e.g. `INSERT 0 1` or `ROLLBACK`.
        var commandTag: String

        /// Nothing: for calls that only report success.
        static let empty = Outcome(rows: [], affected: 0, commandTag: "")
    }

    /// The libpq connection; used only on the owning thread.
    let handle: OpaquePointer
    private let notices: NoticeLogger
    private let secrets: [String]
    /// This session's prepared statements. It lives and dies with the `PGconn`: a reconnect is
    /// a new `LibPQConnection` (the pool replaces broken ones), so it starts empty.
    var statements: StatementCache

    /// Opens a connection (blocking, bounded by the configuration's connect timeout).
    init(configuration: PostgresConfiguration, logger: Logger) throws(PostgresError) {
        let pairs = configuration.libpqParameters()
        let connection = Self.withCStrings(pairs.map(\.0)) { keywords in
            Self.withCStrings(pairs.map(\.1)) { values in
                PQconnectdbParams(keywords, values, 0)
            }
        }
        guard let connection else { throw PostgresError(.connectionFailed, "libpq could not allocate a connection") }
        secrets = [configuration.password ?? ""]
        statements = StatementCache(capacity: configuration.statementCacheCapacity)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection), fallback: "could not connect")
            PQfinish(connection)
            throw PostgresError(.connectionFailed, Redaction.redact(message, secrets: secrets))
        }
        handle = connection
        // Without a receiver libpq prints server notices to stderr; route them to the log.
        notices = NoticeLogger(logger: logger)
        // A FATAL error that arrives while the connection is idle (the backend was terminated)
        // also comes this way: it marks the connection as doomed before the socket closes.
        PQsetNoticeReceiver(handle, { argument, result in
            guard let argument, let result else { return }
            let notices = Unmanaged<NoticeLogger>.fromOpaque(argument).takeUnretainedValue()
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? ""
            let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V"))).map { String(cString: $0) } ?? ""
            if severity == "FATAL" || severity == "PANIC" { notices.receivedFatal = true }
            notices.logger.debug("server notice: \(primary)", ["severity": severity])
        }, Unmanaged.passUnretained(notices).toOpaque())
    }

    deinit { PQfinish(handle) }

    /// The socket, for `poll()`.
    var socket: Int32 { PQsocket(handle) }

    /// The server process serving this connection.
    var backendPID: Int32 { PQbackendPID(handle) }

    /// Whether libpq considers the connection unusable, or the server announced it is closing it.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK || notices.receivedFatal }

    /// Marks the connection unusable (its protocol state is unknown): the pool replaces it.
    func markBroken() { notices.receivedFatal = true }

    /// Whether the session is outside any transaction block (safe to hand to someone else).
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// An object that can ask the server to cancel the running statement from another thread.
    func makeCancelHandle() -> CancelHandle { CancelHandle(PQgetCancel(handle)) }

    /// Reads whatever the server sent while idle (a termination notice, notifications) without
    /// blocking, and reports whether the connection is still usable. An idle connection's socket
    /// turns readable when its backend is terminated: checking here, before a statement is
    /// sent, means a dead connection fails without having run anything.
    func consumePendingInput() -> Bool {
        // A terminated backend sends an error, then closes: the first read returns the error
        // (which libpq hands to the notice receiver when parsed), a later one finds the end of
        // the stream and marks the connection bad. Read until nothing more is waiting.
        for _ in 0..<16 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            if PQconsumeInput(handle) == 0 { return false }
            _ = PQisBusy(handle)
            if isBroken { return false }
        }
        return !isBroken
    }

    /// Throws what makes `sql` impossible to send: text that could not be encoded, or more
    /// parameters than the protocol's 16-bit count allows.
    static func checkSendable(_ sql: SQL) throws(PostgresError) {
        if let error = sql.encodingError { throw error }
        guard sql.binds.count <= Int(UInt16.max) else {
            throw PostgresError(.invalidArgument, "a statement may bind at most 65535 values, not \(sql.binds.count)")
        }
    }

    /// Runs one statement with its parameters, text results. Through the statement cache
    /// (`PQprepare` once, then `PQexecPrepared`) unless the cache is off or the statement opted
    /// out; else with `PQexecParams`, which parses and plans it every time.
    func execute(_ sql: SQL) throws(PostgresError) -> Outcome {
        try Self.checkSendable(sql)
        guard consumePendingInput() else { throw closedError() }
        let parameters = BoundParameters(sql.binds)
        let text = sql.text
        if statements.isEnabled && sql.usesStatementCache {
            return try executeCached(text, parameters, binds: sql.binds)
        }
        return try executeUnprepared(text, parameters, binds: sql.binds)
    }

    /// `PQexecParams`: the server parses, plans and runs the statement in one round trip.
    func executeUnprepared(_ text: String, _ parameters: BoundParameters, binds: [PostgresBindValue]) throws(PostgresError) -> Outcome {
        let result = parameters.withValues { values in
            PQexecParams(handle, text, parameters.count, parameters.types, values, parameters.lengths, parameters.formats, 0)
        }
        return try noteSessionChanges(outcome(of: result, binds: binds))
    }

    /// Runs several `;`-separated statements with the simple protocol (`PQexec`), e.g. a
    /// migration file. No parameters.
    func executeScript(_ script: String) throws(PostgresError) {
        if script.utf8.contains(0) { throw PostgresError(.encodingFailed, "a script contains a NUL byte") }
        guard consumePendingInput() else { throw closedError() }
        let result = PQexec(handle, script)
        // A script may drop prepared statements (`DISCARD ALL`, `DEALLOCATE`), and only its
        // last command tag comes back: ask the server which of ours are left.
        defer { if mayDeallocate(script) { reconcileStatements() } }
        _ = try outcome(of: result, binds: [])
    }

    /// Subscribes this session to `channel` (already validated).
    func listen(_ channel: String) throws(PostgresError) {
        try executeScript("LISTEN " + SQL.quoteIdentifier(channel))
    }

    /// Every notification received so far (call after `consumeInput`).
    func drainNotifications() -> [PostgresNotification] {
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            notifications.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname),
                payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
                backendPID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return notifications
    }

    /// Reads available input; `false` when the connection broke.
    func consumeInput() -> Bool { PQconsumeInput(handle) != 0 && !isBroken }

    // MARK: - The one place where libpq statuses become errors

    func outcome(of result: OpaquePointer?, binds: [PostgresBindValue]) throws(PostgresError) -> Outcome {
        guard let result else {
            throw isBroken ? closedError() : PostgresError(.queryFailed, Self.message(PQerrorMessage(handle), fallback: "no result"))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let tag = String(cString: PQcmdStatus(result))
            let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
            return Outcome(rows: status == PGRES_TUPLES_OK ? Self.copyRows(result) : [], affected: affected, commandTag: tag)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            throw PostgresError(.queryFailed, "COPY is not supported through query/execute")
        default:
            throw serverError(result, binds: binds)
        }
    }

    private func serverError(_ result: OpaquePointer, binds: [PostgresBindValue]) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue ?? 0)).map { String(cString: $0) }
        }
        let sqlState = field("C")
        let primary = field("M") ?? Self.message(PQresultErrorMessage(result), fallback: "the statement failed")
        let message = Redaction.redactBoundValues(primary, sqlState: sqlState, binds: binds)
        if isBroken {
            return PostgresError(.connectionClosed, message, sqlState: sqlState)
        }
        return PostgresError(.queryFailed, message, sqlState: sqlState, column: field("c"), constraint: field("n"))
    }

    func closedError() -> PostgresError {
        PostgresError(.connectionClosed, Self.message(PQerrorMessage(handle), fallback: "the connection to the server was lost"))
    }

    private static func copyRows(_ result: OpaquePointer) -> [PostgresRow] {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var names: [String] = []
        var types: [PostgresDataType] = []
        for column in 0..<columnCount {
            names.append(String(cString: PQfname(result, Int32(column))))
            types.append(PostgresDataType(rawValue: UInt32(PQftype(result, Int32(column)))))
        }
        var total = 0
        for row in 0..<rowCount {
            for column in 0..<columnCount { total += Int(PQgetlength(result, Int32(row), Int32(column))) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        var cells: [(start: Int, length: Int)] = []
        cells.reserveCapacity(rowCount * columnCount)
        for row in 0..<rowCount {
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    cells.append((0, -1))
                    continue
                }
                let length = Int(PQgetlength(result, Int32(row), Int32(column)))
                cells.append((bytes.count, length))
                if length > 0, let value = PQgetvalue(result, Int32(row), Int32(column)) {
                    value.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
                        bytes.append(contentsOf: UnsafeBufferPointer(start: pointer, count: length))
                    }
                }
            }
        }
        let storage = PostgresResultStorage(
            columns: PostgresColumns(names: names, dataTypes: types), bytes: bytes, cells: cells)
        return (0..<rowCount).map { PostgresRow(storage: storage, row: $0) }
    }

    static func message(_ pointer: UnsafePointer<CChar>?, fallback: String) -> String {
        let text = pointer.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return text.isEmpty ? fallback : text
    }

    /// Calls `body` with a NULL-terminated array of C strings (libpq's keyword/value arrays).
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let duplicates = strings.map { strdup($0) }
        defer { duplicates.forEach { free($0) } }
        let pointers = duplicates.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension LibPQConnection {
    /// The connection's logger.
    var logger: Logger { notices.logger }
}

/// Carries the logger into libpq's notice callback, and what it saw back out (called on the
/// connection's own thread only).
private final class NoticeLogger {
    let logger: Logger
    var receivedFatal = false
    init(logger: Logger) { self.logger = logger }
}

/// libpq's cancel object (`PGcancel`). `PQcancel` is documented as safe to call from any
/// thread, so unlike the connection this can be shared; the mutex orders it against `free`.
/// The pointer is kept as its bit pattern because C pointers are not `Sendable`.
final class CancelHandle: Sendable {
    private let address: Mutex<UInt>

    init(_ pointer: OpaquePointer?) { address = Mutex(UInt(bitPattern: pointer.map { Int(bitPattern: $0) } ?? 0)) }

    deinit { free() }

    /// Asks the server to cancel whatever the connection is running. `PQcancel` opens a
    /// connection of its own and blocks, so it runs on a fresh thread, not the caller's.
    func requestCancel() {
        Thread.detachNewThread { [self] in
            address.withLock { address in
                guard let pointer = OpaquePointer(bitPattern: address) else { return }
                var errorBuffer = [CChar](repeating: 0, count: 256)
                _ = PQcancel(pointer, &errorBuffer, Int32(errorBuffer.count))
            }
        }
    }

    /// Releases the cancel object; later requests do nothing.
    func free() {
        address.withLock { address in
            if let pointer = OpaquePointer(bitPattern: address) { PQfreeCancel(pointer) }
            address = 0
        }
    }
}
