/// A "Saturday": `matches` matches, each replaying one pattern of event times (the bundled
/// match's), kick-offs spread evenly over `kickoffSpreadSeconds`, the whole day compressed
/// `speed` times. Pure: the timetable only, no I/O.
struct SaturdaySchedule: Sendable, Equatable {
    /// One event of one match and when it is due.
    struct Entry: Sendable, Equatable {
        /// The match, 0-based.
        var match: Int
        /// The event's index in the pattern.
        var event: Int
        /// When it is due, seconds after the start of the replay (compressed).
        var due: Double
    }

    /// Matches played.
    let matches: Int
    /// Time compression: 1 is real pace, S plays S seconds of the day per second.
    let speed: Double
    /// Real seconds over which the kick-offs are spread.
    let kickoffSpreadSeconds: Double
    /// Every event of every match, by due time (then match, then event).
    let entries: [Entry]
    /// The day's length at real pace, seconds (the last event of the last match).
    let realSeconds: Double

    /// Plans the day; `pattern` holds the real-time offsets (seconds) of one match's events,
    /// in order. Throws when a count or a time is out of range.
    init(pattern: [Double], matches: Int, speed: Double, kickoffSpreadSeconds: Double) throws(BenchError) {
        guard matches > 0 else { throw BenchError("a Saturday needs at least one match, got \(matches)") }
        guard speed.isFinite, speed >= 1 else {
            throw BenchError("--saturday-speed takes a number ≥ 1 (1 = real pace), got \(speed)")
        }
        guard kickoffSpreadSeconds.isFinite, kickoffSpreadSeconds >= 0 else {
            throw BenchError("the kick-off spread must be ≥ 0 seconds, got \(kickoffSpreadSeconds)")
        }
        guard !pattern.isEmpty, pattern.allSatisfy({ $0.isFinite && $0 >= 0 }), zip(pattern, pattern.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw BenchError("the match pattern must be non-empty, non-negative times in order")
        }
        self.matches = matches
        self.speed = speed
        self.kickoffSpreadSeconds = kickoffSpreadSeconds
        var entries: [Entry] = []
        entries.reserveCapacity(matches * pattern.count)
        for match in 0..<matches {
            let kickoff = Self.kickoffOffset(match: match, of: matches, spread: kickoffSpreadSeconds)
            for (event, offset) in pattern.enumerated() {
                entries.append(Entry(match: match, event: event, due: (kickoff + offset) / speed))
            }
        }
        self.entries = entries.sorted { ($0.due, $0.match, $0.event) < ($1.due, $1.match, $1.event) }
        realSeconds = Self.kickoffOffset(match: matches - 1, of: matches, spread: kickoffSpreadSeconds) + (pattern.last ?? 0)
    }

    /// Match `match`'s start, real seconds after the first: evenly spread, the first at 0.
    static func kickoffOffset(match: Int, of matches: Int, spread: Double) -> Double {
        matches > 1 ? spread * Double(match) / Double(matches - 1) : 0
    }

    /// The day's length as replayed, seconds.
    var compressedSeconds: Double { realSeconds / speed }

    /// The most events due within one second of the replay (the bursts).
    var peakEventsPerSecond: Int {
        var counts: [Int: Int] = [:]
        for entry in entries { counts[Int(entry.due), default: 0] += 1 }
        return counts.values.max() ?? 0
    }

    /// Events per second averaged over the replay.
    var averageEventsPerSecond: Double {
        compressedSeconds > 0 ? Double(entries.count) / compressedSeconds : Double(entries.count)
    }
}
