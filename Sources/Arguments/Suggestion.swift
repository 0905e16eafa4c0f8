/// "Did you mean …?" for a mistyped command word or option: the closest known spelling, by
/// edit distance (a typo, a missing or doubled letter, two swapped ones) or by being the only
/// name that starts with what was typed. Pure.
public enum Suggestion {
    /// The candidate closest to `typed`, if one is close enough to be a likely typo.
    public static func closest(to typed: String, among candidates: [String]) -> String? {
        guard !typed.isEmpty else { return nil }
        let typed = typed.lowercased()
        let scored = candidates.map { ($0, distance(typed, $0.lowercased())) }
        let allowed = max(1, min(3, typed.count / 3))
        if let best = scored.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }), best.1 <= allowed { return best.0 }
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(typed) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// `" (did you mean 'x'?)"`, or nothing when no candidate is close.
    public static func clause(for typed: String, among candidates: [String], prefix: String = "") -> String {
        closest(to: typed, among: candidates).map { " (did you mean '\(prefix)\($0)'?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
    /// transpositions each cost 1.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
