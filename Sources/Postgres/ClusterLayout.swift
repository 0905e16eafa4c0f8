import Foundation

/// Where an embedded cluster keeps its files, and the pure decisions about that place.
struct ClusterLayout: Sendable, Equatable {
    /// The folder holding everything below (owned by the server's user, mode 700).
    let root: URL

    var data: URL { root.appendingPathComponent("data") }
    /// The folder of the server's Unix socket, the only way in (no TCP): `<root>/run`, mode 700,
    /// so that no other local user can reach the socket. When that path is too long for a Unix
    /// socket, a folder in `/tmp` named after a hash of `root` (also mode 700, checked on
    /// creation to be a real folder of the right owner).
    var socketDirectory: URL {
        let inside = root.appendingPathComponent("run")
        if Self.socketFits(in: inside) { return inside }
        return URL(fileURLWithPath: "/tmp").appendingPathComponent("scorecast-pg-\(Self.fnv1a(root.standardizedFileURL.path))")
    }
    var logFile: URL { root.appendingPathComponent("postgres.log") }
    /// Written after a successful `initdb`; a data folder without it is a failed attempt.
    var initializedMarker: URL { root.appendingPathComponent("initialized") }
    var pidFile: URL { data.appendingPathComponent("postmaster.pid") }
    var settingsFile: URL { data.appendingPathComponent("scorecast.conf") }
    var accessRulesFile: URL { data.appendingPathComponent("pg_hba.conf") }

    /// Whether the socket lives inside `root` (its path fits a Unix socket address).
    var socketDirectoryIsInside: Bool { Self.socketFits(in: root.appendingPathComponent("run")) }

    /// Unix socket paths are limited to 107 bytes (`sun_path`).
    static func socketFits(in folder: URL) -> Bool { folder.path.utf8.count + "/.s.PGSQL.65535".utf8.count <= 107 }

    /// `<state>/postgres`: where the cluster lives when the server's user can reach the state folder.
    static func inside(stateDirectory: URL) -> ClusterLayout {
        ClusterLayout(root: stateDirectory.appendingPathComponent("postgres"))
    }

    /// The name of a folder in the system's temporary folder for a cluster whose state folder the
    /// server's user cannot reach: the state folder's name, for people, and `random`, so that no
    /// other local user can make the folder first (a predictable name there is theirs to take).
    static func fallbackFolderName(stateDirectory: URL, random: UInt64) -> String {
        let name = stateDirectory.lastPathComponent.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return "scorecast-postgres-\(name.isEmpty ? "state" : name)-\(String(random, radix: 16))"
    }

    /// Whether `info` describes a folder fit to hold a cluster: a real folder (not a link),
    /// owned by `owner`, that no one else may enter (mode 700). Anything else in a shared
    /// temporary folder may have been made, or be watched, by another local user.
    static func isPrivateFolder(_ info: stat, owner: uid_t) -> Bool {
        info.st_mode & S_IFMT == S_IFDIR && info.st_uid == owner && info.st_mode & 0o777 == 0o700
    }

    /// A stable 64-bit FNV-1a hash in hex (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// The first folder on the way to `url` (itself included) that a user with `uid` and
    /// `groups` may not search (`x` permission), or `nil` when every one is searchable.
    /// Folders that do not exist yet are skipped: they will be created searchable.
    static func firstUntraversableFolder(on url: URL, uid: uid_t, groups: [gid_t]) -> String? {
        var path = ""
        for component in url.standardizedFileURL.pathComponents {
            path = component == "/" ? "/" : (path == "/" ? "/" : path + "/") + component
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            let mode = info.st_mode
            let searchable: Bool
            if uid == 0 {
                searchable = true
            } else if info.st_uid == uid {
                searchable = mode & S_IXUSR != 0
            } else if groups.contains(info.st_gid) {
                searchable = mode & S_IXGRP != 0
            } else {
                searchable = mode & S_IXOTH != 0
            }
            if !searchable { return path }
        }
        return nil
    }
}
