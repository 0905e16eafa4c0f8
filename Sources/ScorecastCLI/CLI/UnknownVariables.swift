import Arguments
import ServiceBase

/// `SCORECAST_*` variables no setting reads: a misspelt one (`SCORECAST_HTTP_PROT`) would
/// otherwise be ignored in silence while the default applies. Every command warns about them
/// at start, with the closest real name. Pure.
enum UnknownVariables {
    /// Variables read outside the settings table: the feed client's key and secret (`events send`).
    static let clientVariables = ["SCORECAST_API_KEY", "SCORECAST_SIGNING_SECRET"]
    /// Prefixes of the test and benchmark tools' own variables.
    static let toolPrefixes = ["SCORECAST_TEST_", "SCORECAST_BENCH_"]

    /// Every name scorecast reads.
    static var known: [String] { Setting.all.map(\.name) + clientVariables }

    /// One warning per unknown `SCORECAST_*` name in `environment`, sorted by name.
    static func warnings(_ environment: [String: String]) -> [String] {
        let known = Set(Self.known)
        return environment.keys
            .filter { $0.hasPrefix("SCORECAST_") && !known.contains($0) && !toolPrefixes.contains(where: $0.hasPrefix) }
            .sorted()
            .map { name in
                "scorecast: warning: \(name) is not a scorecast setting and is ignored"
                    + Suggestion.clause(for: name, among: Self.known) + " (see scorecast config)"
            }
    }
}
