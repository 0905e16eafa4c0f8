import ChildProcesses
import Foundation
import Testing

@Suite("Child processes: spawned, signalled and reaped in one place")
struct ChildProcessTests {
    /// A fresh path under the temp folder, removed afterwards by the caller.
    static func scratch(_ name: String) -> String {
        NSTemporaryDirectory() + "child-process-test-\(getpid())-\(UUID().uuidString)-\(name)"
    }

    @Test("a child's exit code, output and CPU time come back")
    func exitAndOutput() async throws {
        let output = Self.scratch("out")
        defer { unlink(output) }
        let quick = try ChildProcess(name: "sh", executable: "/bin/sh", arguments: ["-c", "echo out; exit 3"],
                                     stdoutPath: output, stderrPath: "/dev/null")
        // The limit only bounds a hang: this test is about the exit, not how soon it comes.
        let (exit, killed) = await quick.waitForExit(timeout: .seconds(60))
        #expect(exit.status == 3)
        #expect(!killed)
        #expect(exit.cpuSeconds >= 0)
        #expect(quick.standardOutput == "out\n")
        #expect(!quick.isRunning)
        #expect(quick.exit?.status == 3, "reaped once, remembered")
    }

    @Test("past its timeout a child is killed and reaped")
    func timeoutKills() async throws {
        let slow = try ChildProcess(name: "sleep", executable: "sleep", arguments: ["3600"], stdoutPath: "/dev/null", stderrPath: "/dev/null")
        let (ended, timedOut) = await slow.waitForExit(timeout: .milliseconds(200))
        #expect(timedOut)
        #expect(ended.status == 128 + SIGKILL)
    }

    @Test("standard input comes from a file; one path for both outputs interleaves them")
    func inputAndCombinedOutput() throws {
        let input = Self.scratch("in")
        let output = Self.scratch("out")
        defer {
            unlink(input)
            unlink(output)
        }
        try Data("from stdin\n".utf8).write(to: URL(fileURLWithPath: input))
        let child = try ChildProcess(
            name: "sh", executable: "/bin/sh", arguments: ["-c", "cat; echo to-stderr >&2; echo to-stdout"],
            input: .file(input), stdoutPath: output, stderrPath: output)
        #expect(child.waitUntilExit().status == 0)
        #expect(child.standardOutput == "from stdin\nto-stderr\nto-stdout\n")
    }

    @Test("SIGTERM stops a child even though the test runner blocks it: the mask is reset")
    func signalsAtTheirDefaults() throws {
        let child = try ChildProcess(name: "sleep", executable: "sleep", arguments: ["3600"], stdoutPath: "/dev/null", stderrPath: "/dev/null")
        #expect(child.isRunning)
        child.signal(SIGTERM)
        // Blocks this thread until the child ends: a SIGTERM left blocked would hang here for
        // an hour, so the exit status proves the reset.
        #expect(child.waitUntilExit().status == 128 + SIGTERM)
        child.signal(SIGKILL)  // reaped already: nothing is sent to a pid that may be reused
        #expect(child.exit?.status == 128 + SIGTERM)
    }

    @Test("a descriptor this process holds without close-on-exec does not reach the child")
    func onlyStandardDescriptorsAreInherited() throws {
        let output = Self.scratch("fds")
        defer { unlink(output) }
        let inheritable = open("/dev/null", O_RDONLY)  // no O_CLOEXEC: what a C library may leave
        #expect(inheritable > 2)
        defer { close(inheritable) }
        let child = try ChildProcess(
            name: "sh", executable: "/bin/sh", arguments: ["-c", "test -e /proc/self/fd/\(inheritable) && echo open || echo closed"],
            stdoutPath: output, stderrPath: "/dev/null")
        #expect(child.waitUntilExit().status == 0)
        #expect(child.standardOutput == "closed\n")
    }

    @Test("a child's descriptors are 0, 1 and 2 only, whatever this process holds open")
    func theChildHoldsOnlyItsStandardDescriptors() async throws {
        let inheritable = open("/dev/null", O_RDONLY)  // no O_CLOEXEC
        #expect(inheritable > 2)
        defer { close(inheritable) }
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // no O_CLOEXEC either
        defer { for end in ends { close(end) } }
        let child = try ChildProcess(name: "sleep", executable: "sleep", arguments: ["3600"], stdoutPath: "/dev/null", stderrPath: "/dev/null")
        defer {
            child.signal(SIGKILL)
            child.waitUntilExit()
        }
        // Listed from here while the child sleeps: a program listing its own would see the
        // descriptor it reads the listing with. Just after the spawn the child's loader may still
        // hold a library it is mapping (seen on slow, instrumented runs); an inherited descriptor
        // stays, so the listing is read again until it settles (the limit only bounds a failure).
        func listing() throws -> [Int32] {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd").compactMap { Int32($0) }.sorted()
        }
        let clock = ContinuousClock()
        let limit = clock.now + .seconds(60)
        var descriptors = try listing()
        while descriptors != [0, 1, 2], clock.now < limit {
            try await Task.sleep(for: .milliseconds(10))
            descriptors = try listing()
        }
        #expect(descriptors == [0, 1, 2])
    }

    @Test("a program that cannot start is an error naming it")
    func missingProgram() {
        #expect(throws: ChildProcessError.self) {
            try ChildProcess(name: "nothing", executable: "/nonexistent/program", arguments: [], stdoutPath: "/dev/null", stderrPath: "/dev/null")
        }
    }
}

extension ChildProcessTests {
    @Test("a lifeline input stays open until closed; then a child reading it to the end stops")
    func lifeline() async throws {
        let child = try ChildProcess(name: "cat", executable: "cat", arguments: [], input: .lifeline, stdoutPath: "/dev/null", stderrPath: "/dev/null")
        child.closeInput()
        let (exit, killed) = await child.waitForExit(timeout: .seconds(60))
        #expect(!killed, "cat saw the end of its input")
        #expect(exit.status == 0)
    }
}
