import Testing
@testable import Scorecast

/// "Did you mean" names the whole command, noun and verb.
@Suite struct CommandSuggestionTests {
    @Test func cliSuggestionsNameTheWholeCommand() {
        #expect(ScorecastCLI.suggestion(for: ["chanels", "create"]) == " (did you mean 'channels create'?)")
        #expect(ScorecastCLI.suggestion(for: ["channels", "craete"]) == " (did you mean 'channels create'?)")
        #expect(ScorecastCLI.suggestion(for: ["channels", "zzz"]).contains("channels takes: create"))
        #expect(ScorecastCLI.suggestion(for: ["frobnicate"]) == "")
    }
}
