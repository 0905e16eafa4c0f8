import Arguments
import Testing
@testable import Scorecast

@Suite struct ErrorMappingTests {
    @Test func aBadCommandLineIsAUsageErrorWithTheParsersMessage() {
        let mapped = ErrorMapping.commandError(for: ArgumentError("unknown option --colour"))
        #expect(mapped.exitCode == .usage)
        #expect(mapped.message == "unknown option --colour")
    }
}
