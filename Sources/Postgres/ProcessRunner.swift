import Foundation

/// Runs a command to completion with `posix_spawn` and a blocking `waitpid`, on the calling
/// thread (callers use a thread of their own), and returns its exit status and combined
/// output. Foundation's `Process` is not used: on Linux its `waitUntilExit` was seen to miss
/// the child's exit and hang. Output goes through a temporary file, not a pipe: a daemon the
/// command leaves behind (the postmaster) could otherwise hold a pipe open.
enum ProcessRunner {
    struct Output {
        var status: Int32
        var text: String
    }

    /// Runs `executable` with `arguments`; `asUser` runs it through `runuser -u <user> --`.
    static func run(
        _ executable: String,
        _ arguments: [String],
        asUser user: String? = nil,
        currentDirectory: URL? = nil
    ) throws(PostgresError) -> Output {
        var argv = user.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []
        // `env -C` changes folder as the target user (glibc's addchdir_np is not importable).
        if let currentDirectory { argv += ["/usr/bin/env", "-C", currentDirectory.path] }
        argv.append(executable)
        // A clean environment: no PG* variables of the caller, a locale that exists everywhere.
        let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8"]
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("scorecast-cmd-\(getpid())-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var pid: pid_t = 0
        let spawnResult = withCStringArray(argv + arguments) { argvPointer in
            withCStringArray(environment) { environmentPointer in
                posix_spawn(&pid, argv[0], &actions, nil, argvPointer, environmentPointer)
            }
        }
        guard spawnResult == 0 else {
            throw PostgresError(.embeddedServerFailed, "could not run \(argv[0]): \(String(cString: strerror(spawnResult)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw PostgresError(.embeddedServerFailed, "could not wait for \(argv[0]): \(String(cString: strerror(errno)))")
            }
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // Decoded by hand: WIFEXITED/WEXITSTATUS are macros Swift cannot import.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exitStatus, text: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
