import Testing
@testable import ScorecastCLI

/// "Did you mean" names the whole command, noun and verb.
@Suite struct CommandSuggestionTests {
    @Test func cliSuggestionsNameTheWholeCommand() {
        #expect(CLI.suggestion(for: ["chanels", "create"]) == " (did you mean 'channels create'?)")
        #expect(CLI.suggestion(for: ["channels", "craete"]) == " (did you mean 'channels create'?)")
        #expect(CLI.suggestion(for: ["channels", "zzz"]).contains("channels takes: create"))
        #expect(CLI.suggestion(for: ["frobnicate"]) == "")
    }
}
