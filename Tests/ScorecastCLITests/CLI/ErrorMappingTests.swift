import Arguments
import Server
import Testing
@testable import ScorecastCLI

@Suite struct ErrorMappingTests {
    @Test func aBadCommandLineIsAUsageErrorWithTheParsersMessage() {
        let mapped = ErrorMapping.commandError(for: ArgumentError("unknown option --colour"))
        #expect(mapped.exitCode == .usage)
        #expect(mapped.message == "unknown option --colour")
    }

    /// The service throws `RuntimeError`s without exit codes; `serve`, `demo` and every command
    /// that connects end with the code documented for each kind.
    @Test(arguments: [
        (RuntimeError.Code.invalidSettings, ExitCode.usage),
        (.databaseUnavailable, .databaseUnavailable),
        (.failure, .failure),
    ])
    func aServiceThatCannotStartEndsWithItsDocumentedCode(_ code: RuntimeError.Code, _ exitCode: ExitCode) {
        let mapped = ErrorMapping.commandError(for: RuntimeError(code, "the reason"))
        #expect(mapped.exitCode == exitCode)
        #expect(mapped.message == "the reason")
    }
}
