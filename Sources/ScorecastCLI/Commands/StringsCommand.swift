import ScorecastCore

/// `scorecast strings`: the String Catalog of every alert key, for the iOS app.
enum StringsCommand {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["strings"], summary: "Print the English String Catalog (Localizable.xcstrings) of every alert key",
            details: """
                The catalog the ScorecastActivity package ships. After changing AlertCatalog, regenerate it:
                  scorecast strings > Sources/ScorecastActivity/Localizable.xcstrings
                """
        ) { _, context in
            context.terminal.print(AlertCatalog.stringCatalog)
        }
    ]
}
