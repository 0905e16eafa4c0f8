import Foundation
import ScorecastLogging
import Synchronization

/// A throwaway local PostgreSQL cluster for development and tests, used when no database URL
/// is configured.
///
/// The first `start()` runs `initdb` under the state folder; later starts reuse the cluster.
/// It listens on a Unix socket only (no TCP), in a folder of mode 700 inside its own folder,
/// and creates the database `scorecast`: the folder's permission is what keeps other local
/// users out, so `pg_hba.conf` admits socket connections only and is rewritten on every start
/// (which also upgrades clusters made by earlier versions, that listened on 127.0.0.1 with
/// `trust`). As root, the server's programs run as the `postgres`
/// user (they refuse root); when that user cannot reach the state folder (under `/root`, for
/// example) the cluster lives in the system temp folder instead, and the log says where.
/// A lock file keeps two processes from running the same cluster; a server left running by
/// a crashed process, or a stale `postmaster.pid`, is cleaned up on start.
public final class EmbeddedPostgres: Sendable {
    /// The database created and returned by `start()`.
    public static let databaseName = "scorecast"
    /// The port number naming the socket file (`.s.PGSQL.<port>`); nothing listens on TCP.
    static let socketPort = 5432
    /// What `pg_hba.conf` says, every start: Unix-socket connections only. Who may open the
    /// socket is decided by its folder's mode (700, owned by the server's user).
    static let accessRules = """
        # Written by scorecast on every start; edits are lost. The server listens on a Unix
        # socket only, in a folder of mode 700: only its owner (and root) can reach it.
        local all all trust

        """

    struct Running {
        var postmasterPID: pid_t
        var layout: ClusterLayout
        var lockDescriptor: Int32
    }

    private let stateDirectory: URL
    let binDirectory: URL?
    private let durable: Bool
    private let extraSettings: [PostgresServerSetting]
    let logger: Logger
    let running = Mutex<Running?>(nil)
    /// Serializes `start()` and `restart()` calls on this instance (held on their thread only).
    let starting = Mutex(())

    /// Creates a handle on the cluster kept under `stateDirectory` (nothing runs yet).
    /// `binDirectory` overrides where `initdb` and `pg_ctl` are found. `durable: false` turns
    /// off `fsync` and synchronous commit: much faster, and a machine crash can lose or corrupt
    /// the data — for test databases only. `settings` are extra `postgresql.conf` lines,
    /// written after scorecast's own (see `settingsText`) so that they win.
    public init(
        stateDirectory: URL, binDirectory: URL? = nil, durable: Bool = true, settings: [PostgresServerSetting] = [], logger: Logger
    ) {
        self.stateDirectory = stateDirectory
        self.binDirectory = binDirectory
        self.durable = durable
        self.extraSettings = settings
        self.logger = logger.named("embedded-postgres")
    }

    deinit { stop() }

    /// Prepares and starts the cluster; returns how to connect to its `scorecast` database.
    /// Blocking work (initdb, pg_ctl) runs on a thread of its own.
    public func start() async throws -> PostgresConfiguration {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result { () throws(PostgresError) in
                    try starting.withLock { _ throws(PostgresError) in try startBlocking() }
                })
            }
        }
    }

    /// Stops the server (fast shutdown) and waits for it to exit. Synchronous so it can run on
    /// exit and signal paths; does nothing when the server is not running, so calling it twice
    /// is safe.
    public func stop() {
        let current = running.withLock { running in
            defer { running = nil }
            return running
        }
        guard let current else { return }
        Self.stopServer(pid: current.postmasterPID, layout: current.layout, logger: logger)
        close(current.lockDescriptor)
    }

    /// Forgets the server without stopping it and releases the lock, as a crash would; tests
    /// use it to check that the next owner cleans up.
    func abandonForTesting() {
        let current = running.withLock { running in
            defer { running = nil }
            return running
        }
        if let current { close(current.lockDescriptor) }
    }

    /// Whether `start()` succeeded and `stop()` has not been called since.
    public var isRunning: Bool { running.withLock { $0 != nil } }

    // MARK: - Start

    private var serverUser: String? { getuid() == 0 ? "postgres" : nil }

    private func startBlocking() throws(PostgresError) -> PostgresConfiguration {
        if let configuration = runningConfiguration() { return configuration }
        let installation = try PostgresInstallation.find(binDirectory: binDirectory)
        try createFolder(stateDirectory, owner: nil)
        let lock: Int32
        do throws(PostgresError) {
            lock = try acquireLock()
        } catch {
            // Another scorecast process (e.g. `serve`) runs this cluster: share it, without
            // owning it, so that CLI commands work beside a running service.
            guard let shared = try sharedServerConfiguration() else { throw error }
            return shared
        }
        do throws(PostgresError) {
            let layout = try chooseLayout()
            try createFolder(layout.root, owner: serverUser, mode: 0o700)
            try stopLeftoverServer(layout)
            try initializeIfNeeded(layout, installation)
            let pid = try launch(layout, installation)
            running.withLock { $0 = Running(postmasterPID: pid, layout: layout, lockDescriptor: lock) }
            let configuration = Self.configuration(socketDirectory: layout.socketDirectory.path, port: Self.socketPort)
            do throws(PostgresError) {
                try createDatabaseIfMissing(configuration)
            } catch {
                stop()
                throw error
            }
            logger.info("embedded postgres started", ["socket": layout.socketDirectory.path, "data": layout.data.path])
            return configuration
        } catch {
            if running.withLock({ $0 == nil }) { close(lock) }
            throw error
        }
    }

    /// The configuration of a server that another process started on this cluster and still
    /// runs, if any. This handle does not own it: `stop()` leaves it running.
    private func sharedServerConfiguration() throws(PostgresError) -> PostgresConfiguration? {
        let layout = try chooseLayout()
        guard let info = Self.readPidFile(layout.pidFile), info.port > 0,
              Self.isPostgres(pid: info.pid, dataDirectory: layout.data)
        else { return nil }
        logger.debug("using the embedded postgres another process runs", ["socket": info.socketDirectory, "pid": "\(info.pid)"])
        return Self.configuration(socketDirectory: info.socketDirectory, port: info.port)
    }

    /// How a client reaches this cluster's `scorecast` database once a server runs on it (this
    /// handle's or another process's): its socket folder, whether or not the server runs yet.
    public func clientConfiguration() throws(PostgresError) -> PostgresConfiguration {
        Self.configuration(socketDirectory: try chooseLayout().socketDirectory.path, port: Self.socketPort)
    }

    private func runningConfiguration() -> PostgresConfiguration? {
        guard let current = running.withLock({ $0 }),
              let info = Self.readPidFile(current.layout.pidFile)
        else { return nil }
        return Self.configuration(socketDirectory: info.socketDirectory, port: info.port)
    }

    /// How to reach a server from its `postmaster.pid`: through its socket folder; a server an
    /// earlier version started (still running, TCP only) through 127.0.0.1.
    private static func configuration(socketDirectory: String, port: Int) -> PostgresConfiguration {
        PostgresConfiguration(
            host: socketDirectory.isEmpty ? "127.0.0.1" : socketDirectory, port: port, user: "postgres",
            database: databaseName, sslMode: "disable", connectTimeout: .seconds(5))
    }

    /// Takes `<state>/postgres.lock` for as long as the server runs; another process holding it
    /// is running this cluster.
    private func acquireLock() throws(PostgresError) -> Int32 {
        let path = stateDirectory.appendingPathComponent("postgres.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw PostgresError(.embeddedServerFailed, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw PostgresError(
                .embeddedServerFailed, "another process is running the embedded Postgres of \(stateDirectory.path) (\(path) is locked)")
        }
        return descriptor
    }

    private func chooseLayout() throws(PostgresError) -> ClusterLayout {
        guard let user = serverUser else { return ClusterLayout.inside(stateDirectory: stateDirectory) }
        guard let account = getpwnam(user) else {
            throw PostgresError(.embeddedServerFailed, "running as root but there is no `\(user)` user; install the server with `apt-get install postgresql`")
        }
        let uid = account.pointee.pw_uid
        let gid = account.pointee.pw_gid
        var groups = [gid_t](repeating: 0, count: 64)
        var count = Int32(groups.count)
        _ = getgrouplist(account.pointee.pw_name, gid, &groups, &count)
        guard let blocker = ClusterLayout.firstUntraversableFolder(
            on: stateDirectory, uid: uid, groups: Array(groups.prefix(Int(max(0, count)))))
        else { return ClusterLayout.inside(stateDirectory: stateDirectory) }
        let root = try fallbackRoot(owner: uid, group: gid)
        logger.notice("the postgres user cannot enter \(blocker); keeping the cluster's data in \(root.path)", ["recorded in": fallbackRecord.path])
        return ClusterLayout(root: root)
    }

    /// Where `fallbackRoot` records the folder it chose (in the state folder, which only its
    /// owner may change).
    private var fallbackRecord: URL { stateDirectory.appendingPathComponent("postgres-location") }

    /// Where the cluster lives when the server's user cannot reach the state folder: the folder
    /// recorded in `fallbackRecord` while it is still private to `owner`; else the folder an
    /// earlier version named predictably, when `owner` holds it privately (only root or `owner`
    /// could have made it so); else a new folder with a random name in the system's temporary
    /// folder, made by `mkdir` (which fails on a name that exists, whoever made it) and recorded.
    private func fallbackRoot(owner: uid_t, group: gid_t) throws(PostgresError) -> URL {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        let recorded = (try? String(contentsOf: fallbackRecord, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let earlier = temporary.appendingPathComponent(
            "scorecast-postgres-\(stateDirectory.lastPathComponent.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })-"
                + ClusterLayout.fnv1a(stateDirectory.standardizedFileURL.path))
        for candidate in [recorded.map(URL.init(fileURLWithPath:)), recorded == nil ? earlier : nil].compactMap({ $0 }) {
            var info = stat()
            guard lstat(candidate.path, &info) == 0 else { continue }
            if ClusterLayout.isPrivateFolder(info, owner: owner) {
                if candidate != recorded.map(URL.init(fileURLWithPath:)) { try record(candidate) }
                return candidate
            }
            logger.warning("not using \(candidate.path): it is not a private folder of the server's user (made by uid \(info.st_uid), mode \(String(info.st_mode & 0o777, radix: 8)))")
        }
        for _ in 0..<8 {
            let candidate = temporary.appendingPathComponent(
                ClusterLayout.fallbackFolderName(stateDirectory: stateDirectory, random: .random(in: 0 ... .max)))
            guard mkdir(candidate.path, 0o700) == 0 else {
                if errno == EEXIST { continue }
                throw PostgresError(.embeddedServerFailed, "cannot create \(candidate.path): \(String(cString: strerror(errno)))")
            }
            guard Foundation.chown(candidate.path, owner, group) == 0, chmod(candidate.path, 0o700) == 0 else {
                throw PostgresError(.embeddedServerFailed, "cannot give \(candidate.path) to the server's user: \(String(cString: strerror(errno)))")
            }
            try record(candidate)
            logger.notice("made a private folder for the cluster's data", ["folder": candidate.path])
            return candidate
        }
        throw PostgresError(.embeddedServerFailed, "cannot find a free name for the cluster's folder in \(temporary.path)")
    }

    private func record(_ folder: URL) throws(PostgresError) {
        guard FileManager.default.createFile(
            atPath: fallbackRecord.path, contents: Data((folder.path + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw PostgresError(.embeddedServerFailed, "cannot write \(fallbackRecord.path)") }
    }

    /// A server still running on this data folder was left by a process that died (we hold the
    /// lock, so no live owner exists): stop it. A `postmaster.pid` naming no live server is
    /// stale: remove it, with any stale socket lock files.
    func stopLeftoverServer(_ layout: ClusterLayout) throws(PostgresError) {
        guard let info = Self.readPidFile(layout.pidFile) else { return }
        if Self.isPostgres(pid: info.pid, dataDirectory: layout.data) {
            logger.notice("stopping a server left running by an earlier process", ["pid": "\(info.pid)"])
            Self.stopServer(pid: info.pid, layout: layout, logger: logger)
        } else {
            logger.notice("removing a stale postmaster.pid", ["pid": "\(info.pid)"])
            try? FileManager.default.removeItem(at: layout.pidFile)
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.socketDirectory.path)) ?? []
        where name.hasPrefix(".s.PGSQL.") {
            try? FileManager.default.removeItem(at: layout.socketDirectory.appendingPathComponent(name))
        }
    }

    private func initializeIfNeeded(_ layout: ClusterLayout, _ installation: PostgresInstallation) throws(PostgresError) {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: layout.initializedMarker.path) { return }
        if fileManager.fileExists(atPath: layout.data.path) {
            logger.notice("removing an unfinished cluster", ["data": layout.data.path])
            try? fileManager.removeItem(at: layout.data)
        }
        logger.info("creating a new cluster", ["data": layout.data.path])
        let result = try ProcessRunner.run(
            installation.initdb,
            ["-D", layout.data.path, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--username=postgres"]
                + (durable ? [] : ["--no-sync"]),
            asUser: serverUser, currentDirectory: layout.root)
        guard result.status == 0 else {
            throw PostgresError(.embeddedServerFailed, "initdb failed (status \(result.status)): \(Self.tail(result.text))")
        }
        // Our settings live in a file of their own, rewritten on every start.
        let include = "\n# Added by scorecast: its settings, rewritten on every start.\ninclude_if_exists = 'scorecast.conf'\n"
        let configuration = layout.data.appendingPathComponent("postgresql.conf")
        guard let handle = try? FileHandle(forWritingTo: configuration) else {
            throw PostgresError(.embeddedServerFailed, "cannot append to \(configuration.path)")
        }
        handle.seekToEndOfFile()
        handle.write(Data(include.utf8))
        try? handle.close()
        guard fileManager.createFile(atPath: layout.initializedMarker.path, contents: Data()) else {
            throw PostgresError(.embeddedServerFailed, "cannot write \(layout.initializedMarker.path)")
        }
    }

    /// Writes the settings and access rules and starts the server; returns the postmaster's pid.
    func launch(_ layout: ClusterLayout, _ installation: PostgresInstallation) throws(PostgresError) -> pid_t {
        try createFolder(layout.socketDirectory, owner: serverUser, mode: 0o700)
        if !layout.socketDirectoryIsInside {
            logger.notice("the socket folder's path would be too long for a Unix socket; using another", ["folder": layout.socketDirectory.path])
        }
        let version = (try? String(contentsOf: layout.data.appendingPathComponent("PG_VERSION"), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let settings = Self.settingsText(
            socketDirectory: layout.socketDirectory.path, durable: durable,
            walCompression: Self.walCompression(majorVersion: version, configureFlags: installation.configureFlags()),
            extra: extraSettings)
        try writeServerFile(layout.settingsFile, settings)
        try writeServerFile(layout.accessRulesFile, Self.accessRules)
        let result = try ProcessRunner.run(
            installation.pgCtl, ["-D", layout.data.path, "-l", layout.logFile.path, "-w", "-t", "60", "start"],
            asUser: serverUser, currentDirectory: layout.root)
        if result.status == 0, let info = Self.readPidFile(layout.pidFile) { return info.pid }
        let failure = Self.tail((try? String(contentsOf: layout.logFile, encoding: .utf8)) ?? result.text)
        throw PostgresError(.embeddedServerFailed, "pg_ctl could not start the server; log \(layout.logFile.path): \(failure)")
    }

    /// Replaces one of the server's configuration files (owned by the server's user, mode 600).
    private func writeServerFile(_ url: URL, _ text: String) throws(PostgresError) {
        guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw PostgresError(.embeddedServerFailed, "cannot write \(url.path)")
        }
        if let user = serverUser { try Self.chown(url.path, to: user) }
    }

    private func createDatabaseIfMissing(_ configuration: PostgresConfiguration) throws(PostgresError) {
        var administration = configuration
        administration.database = "postgres"
        let connection = try LibPQConnection(configuration: administration, logger: logger)
        let exists = try connection.execute("SELECT 1 FROM pg_database WHERE datname = \(Self.databaseName)")
        if exists.rows.isEmpty {
            try connection.executeScript("CREATE DATABASE " + SQL.quoteIdentifier(Self.databaseName))
        }
    }

    // MARK: - Files and processes

    /// Creates `url` (and its parents) and gives it to `owner` with `mode`. A folder that is
    /// already there must be a real folder (not a link) owned by us or by `owner`: in a shared
    /// folder such as `/tmp`, another user could otherwise have made it first and kept a way in.
    private func createFolder(_ url: URL, owner: String?, mode: Int? = nil) throws(PostgresError) {
        var existing = stat()
        if lstat(url.path, &existing) == 0 {
            let ownerID = owner.flatMap { getpwnam($0)?.pointee.pw_uid }
            guard existing.st_mode & S_IFMT == S_IFDIR else {
                throw PostgresError(.embeddedServerFailed, "\(url.path) exists and is not a folder; remove it")
            }
            guard existing.st_uid == getuid() || existing.st_uid == ownerID else {
                throw PostgresError(.embeddedServerFailed, "\(url.path) belongs to another user (uid \(existing.st_uid)); remove it")
            }
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw PostgresError(.embeddedServerFailed, "cannot create \(url.path): \(error.localizedDescription)")
        }
        if let owner { try Self.chown(url.path, to: owner) }
        if let mode, chmod(url.path, mode_t(mode)) != 0 {
            throw PostgresError(.embeddedServerFailed, "cannot chmod \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    private static func chown(_ path: String, to user: String) throws(PostgresError) {
        guard let account = getpwnam(user) else {
            throw PostgresError(.embeddedServerFailed, "there is no `\(user)` user")
        }
        guard Foundation.chown(path, account.pointee.pw_uid, account.pointee.pw_gid) == 0 else {
            throw PostgresError(.embeddedServerFailed, "cannot give \(path) to \(user): \(String(cString: strerror(errno)))")
        }
    }

    /// The postmaster's pid (line 1), port (line 4) and first socket folder (line 5, empty
    /// when it has none) from `postmaster.pid`.
    static func readPidFile(_ url: URL) -> (pid: pid_t, port: Int, socketDirectory: String)? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, let pid = pid_t(first.trimmingCharacters(in: .whitespaces)), pid > 0 else { return nil }
        let port = lines.count > 3 ? Int(lines[3].trimmingCharacters(in: .whitespaces)) ?? 0 : 0
        let socketDirectory = lines.count > 4 ? lines[4].trimmingCharacters(in: .whitespaces) : ""
        return (pid, port, socketDirectory)
    }

    /// Whether `pid` is a live postgres process serving `dataDirectory` (Linux `/proc`).
    static func isPostgres(pid: pid_t, dataDirectory: URL) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = status.lastIndex(of: ")")
        else { return false }
        let state = status[status.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        if state == "Z" { return false }
        guard let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return false }
        let arguments = commandLine.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.first.map { $0.hasSuffix("postgres") || $0.hasSuffix("postmaster") } == true
            && arguments.contains(dataDirectory.path)
    }

    /// Fast shutdown (SIGINT): in-flight transactions roll back, the server checkpoints and
    /// exits, removing `postmaster.pid`. Escalates to SIGQUIT after 15 s.
    static func stopServer(pid: pid_t, layout: ClusterLayout, logger: Logger) {
        guard kill(pid, SIGINT) == 0 else { return }
        if waitForExit(pid: pid, layout: layout, timeout: 15) { return }
        logger.warning("the server did not stop in time; sending SIGQUIT", ["pid": "\(pid)"])
        kill(pid, SIGQUIT)
        _ = waitForExit(pid: pid, layout: layout, timeout: 5)
    }

    private static func waitForExit(pid: pid_t, layout: ClusterLayout, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // The postmaster may be our own child: reap it, so that no zombie is left behind
            // (harmless when it is not: waitpid then fails with ECHILD).
            if waitpid(pid, nil, WNOHANG) == pid { return true }
            if !isPostgres(pid: pid, dataDirectory: layout.data) { return true }
            usleep(10_000)
        }
        return false
    }

    static func tail(_ text: String, lines: Int = 8) -> String {
        text.split(separator: "\n").suffix(lines).joined(separator: " | ")
    }
}
