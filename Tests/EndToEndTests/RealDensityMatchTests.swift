import EndToEndSupport
import Foundation
import JSON
import ScorecastCore
import Testing

/// The real-density match generator: a feed's density, valid events, the same match from the
/// same seed.
@Suite("Real-density match: the generator")
struct RealDensityMatchTests {
    let start = Date(timeIntervalSince1970: 1_796_140_800)

    @Test func everyEventIsValidAndInOrder() throws {
        let match = RealDensityMatch(start: start)
        let validator = FeedEventValidator()
        for (index, event) in match.events.enumerated() {
            // Through the wire shape, as ingest reads it: what the binary will accept.
            let read = try validator.event(from: JSONParser().parse(Array(try event.jsonValue.encoded())), now: event.occurredAt)
            #expect(read == event)
            #expect(event.seq == index + 1)
            if index > 0 { #expect(event.occurredAt >= match.events[index - 1].occurredAt) }
        }
    }

    @Test func theDefaultMatchHasARealFeedsDensity() throws {
        let match = RealDensityMatch(start: start)
        let kinds = Dictionary(grouping: match.events, by: \.kind).mapValues(\.count)
        #expect(match.events.count == 2_847)
        #expect(kinds[.stats] == 2_724)
        #expect(kinds[.clock] == 98)
        #expect(kinds[.score] == 4)
        #expect(kinds[.videoReview] == 2)
        #expect(kinds[.card] == 5)
        #expect(kinds[.penalty] == 1)
        #expect(kinds[.substitution] == 8)
        #expect(match.events.filter { $0.disallows != nil }.count == 1)
        #expect(match.finalScore == (1, 2))
        #expect(match.events.first?.kind == .scheduled)
        #expect(match.events.last?.kind == .final)
        #expect((match.realTimeMinutes * 60).rounded() == 6_898)
    }

    @Test func theSameSeedMakesTheSameMatchAndAnotherSeedAnother() {
        let one = RealDensityMatch(seed: 11, start: start)
        #expect(one.events == RealDensityMatch(seed: 11, start: start).events)
        #expect(one.events != RealDensityMatch(seed: 12, start: start).events)
    }

    @Test func anySeedGivesAFootballMatchOfAFewThousandEvents() {
        for seed in UInt64(1)...20 {
            let match = RealDensityMatch(seed: seed, start: start)
            #expect((2_500...3_500).contains(match.events.count), "seed \(seed)")
            #expect((95...120).contains(match.realTimeMinutes), "seed \(seed)")
            let goals = match.events.filter { $0.kind == .score }.count - match.events.filter { $0.disallows != nil }.count
            #expect(match.finalScore.home + match.finalScore.away == goals, "seed \(seed)")
        }
    }
}

