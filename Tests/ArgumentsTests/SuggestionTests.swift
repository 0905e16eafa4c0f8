import Testing
@testable import Arguments

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

    @Test func unknownOptionsAndStrayWordsAreRefusedWithAHint() {
        let error = #expect(throws: ArgumentError.self) {
            try ParsedArguments(["--bundle", "x"], options: [.value("bundle-id", "BUNDLE", "")])
        }
        #expect(error?.message == "unknown option --bundle (did you mean '--bundle-id'?)")
        let stray = #expect(throws: ArgumentError.self) {
            try ParsedArguments(["--json", "oops"], options: [.flag("json", "")], positionalLimit: 0)
        }
        #expect(stray?.message.contains("unexpected argument 'oops'") == true)
    }
}
