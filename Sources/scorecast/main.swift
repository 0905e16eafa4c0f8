import Foundation
import ScorecastCLI

// A parent (a test runner, some supervisors) may start us with signals blocked; SIGTERM and
// SIGINT must reach the service group, so start from an empty mask.
var unblocked = sigset_t()
sigemptyset(&unblocked)
pthread_sigmask(SIG_SETMASK, &unblocked, nil)
// A server writes to sockets peers may reset at any time: such a write must fail with EPIPE,
// not end the process.
signal(SIGPIPE, SIG_IGN)

// Swift 6: top-level code runs on the main actor; the CLI is async all the way down.
let code = await CLI.run(
    Array(CommandLine.arguments.dropFirst()),
    context: CommandContext(environment: ProcessInfo.processInfo.environment))
// Everything the command started has been stopped explicitly by now. `_exit` skips the C
// libraries' exit-time destructors (OpenSSL, libpq), which can block on threads those
// libraries keep; a stop that hung there once left a test waiting past its 10 s limit.
fflush(nil)
_exit(code)
