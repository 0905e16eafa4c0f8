import Foundation

/// Where the server's programs (`initdb`, `pg_ctl`, `postgres`) are installed.
struct PostgresInstallation: Sendable, Equatable {
    let binDirectory: URL

    var initdb: String { binDirectory.appendingPathComponent("initdb").path }
    var pgCtl: String { binDirectory.appendingPathComponent("pg_ctl").path }
    var pgConfig: String { binDirectory.appendingPathComponent("pg_config").path }

    /// The options the server was built with (`pg_config --configure`), or nil when this
    /// installation has no `pg_config`.
    func configureFlags() -> String? {
        guard FileManager.default.isExecutableFile(atPath: pgConfig),
              let result = try? ProcessRunner.run(pgConfig, ["--configure"]), result.status == 0
        else { return nil }
        return result.text
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` holding `initdb` and `pg_ctl` (Debian's
    /// layout, off PATH), or `binDirectory` when given.
    static func find(binDirectory: URL? = nil, root: URL = URL(fileURLWithPath: "/usr/lib/postgresql")) throws(PostgresError) -> PostgresInstallation {
        let fileManager = FileManager.default
        func usable(_ directory: URL) -> Bool {
            fileManager.isExecutableFile(atPath: directory.appendingPathComponent("initdb").path)
                && fileManager.isExecutableFile(atPath: directory.appendingPathComponent("pg_ctl").path)
        }
        if let binDirectory {
            guard usable(binDirectory) else {
                throw PostgresError(.embeddedServerFailed, "no initdb and pg_ctl in \(binDirectory.path)")
            }
            return PostgresInstallation(binDirectory: binDirectory)
        }
        let versions = ((try? fileManager.contentsOfDirectory(atPath: root.path)) ?? [])
            .compactMap { name in Double(name).map { (name, $0) } }
            .sorted { $0.1 > $1.1 }
        for (name, _) in versions {
            let directory = root.appendingPathComponent(name).appendingPathComponent("bin")
            if usable(directory) { return PostgresInstallation(binDirectory: directory) }
        }
        throw PostgresError(
            .embeddedServerFailed,
            "the PostgreSQL server is not installed (no \(root.path)/<version>/bin/initdb); install it with `apt-get install postgresql`, or set a database URL")
    }
}
