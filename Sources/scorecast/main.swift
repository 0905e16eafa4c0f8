import Foundation
import Scorecast

// A parent (a test runner, some supervisors) may start us with signals blocked; SIGTERM and
// SIGINT must reach the service group, so start from an empty mask.
var unblocked = sigset_t()
sigemptyset(&unblocked)
pthread_sigmask(SIG_SETMASK, &unblocked, nil)

// Swift 6: top-level code runs on the main actor; the CLI is async all the way down.
let code = await ScorecastCLI.run(
    Array(CommandLine.arguments.dropFirst()),
    context: CommandContext(environment: ProcessInfo.processInfo.environment))
exit(code)
