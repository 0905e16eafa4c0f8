import Testing
@testable import Scorecast

/// "Did you mean": typos find their word; unrelated words find nothing.
@Suite struct SuggestionTests {
    @Test func typosFindTheirWordAndNonsenseFindsNothing() {
        let nouns = ["apps", "channels", "games", "keys", "serve", "stats"]
        #expect(Suggestion.closest(to: "chanels", among: nouns) == "channels")
        #expect(Suggestion.closest(to: "gmaes", among: nouns) == "games")
        #expect(Suggestion.closest(to: "app", among: nouns) == "apps")
        #expect(Suggestion.closest(to: "chan", among: nouns) == "channels")
        #expect(Suggestion.closest(to: "frobnicate", among: nouns) == nil)
        #expect(Suggestion.closest(to: "", among: nouns) == nil)
        #expect(Suggestion.distance("resume", "resmue") == 1)
    }

    @Test func cliSuggestionsNameTheWholeCommand() throws {
        #expect(ScorecastCLI.suggestion(for: ["chanels", "create"]) == " (did you mean 'channels create'?)")
        #expect(ScorecastCLI.suggestion(for: ["channels", "craete"]) == " (did you mean 'channels create'?)")
        #expect(ScorecastCLI.suggestion(for: ["channels", "zzz"]).contains("channels takes: create"))
        #expect(ScorecastCLI.suggestion(for: ["frobnicate"]) == "")
        let error = #expect(throws: CommandError.self) {
            try ParsedArguments(["--bundle", "x"], options: [.value("bundle-id", "BUNDLE", "")])
        }
        #expect(error?.message == "unknown option --bundle (did you mean '--bundle-id'?)")
        let stray = #expect(throws: CommandError.self) {
            try ParsedArguments(["--json", "oops"], options: [.flag("json", "")], positionalLimit: 0)
        }
        #expect(stray?.message.contains("unexpected argument 'oops'") == true)
    }
}
