import ChildProcesses
import Foundation

/// Runs a command to completion on the calling thread (callers use a thread of their own) and
/// returns its exit status and combined output: a ``ChildProcess``, the project's one runner,
/// which reaps its child with `wait4` on its own pid (Foundation's `Process` is not used: on
/// Linux its `waitUntilExit` was seen to miss the child's exit and hang). Output goes through
/// a temporary file, not a pipe: a daemon the command leaves behind (the postmaster) could
/// otherwise hold a pipe open.
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
        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("scorecast-cmd-\(getpid())-\(UUID().uuidString).log").path
        defer { unlink(outputPath) }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                name: executable, executable: argv[0], arguments: Array(argv.dropFirst()) + arguments, environment: environment,
                stdoutPath: outputPath, stderrPath: outputPath)
        } catch {
            throw PostgresError(.embeddedServerFailed, "could not run \(argv[0]): \(error)")
        }
        let exit = child.waitUntilExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Output(status: exit.status, text: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
