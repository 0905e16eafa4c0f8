// Times the JSON module's writer and parser on broadcast-shaped bodies. Compiled by
// json-codec-ab.sh against the module's sources at two commits, so both run in one sitting.
import Foundation

/// A football match's broadcast body: content-state with scorers, a clock, team names.
func body(_ index: Int) -> JSONValue {
    let scorers: [JSONValue] = (0..<8).map { scorer in
        .object([
            "player": .string("Player \(scorer) Ødegaard"), "minute": .string("\(10 + scorer)'"),
            "side": .string(scorer % 2 == 0 ? "home" : "away"),
        ])
    }
    let state: JSONValue = .object([
        "homeScore": .integer(index % 5), "awayScore": .integer(2), "period": .string("2H"),
        "clock": .object(["start": .double(786_000_000.125), "paused": .bool(false)]), "scorers": .array(scorers),
        "status": .string("live"), "homeName": .string("Arsenal \"The Gunners\""), "awayName": .string("Chelsea"),
    ])
    return .object([
        "aps": .object([
            "timestamp": .integer(1_764_000_000 + index), "event": .string("update"), "content-state": state,
            "stale-date": .integer(1_764_000_900), "relevance-score": .double(0.75),
        ])
    ])
}

let mode = CommandLine.arguments.dropFirst().first ?? "encode"
let values = (0..<1_000).map(body)
let texts = values.map { try! $0.encoded() }
let rounds = 100
var checksum = 0
let start = DispatchTime.now().uptimeNanoseconds
for _ in 0..<rounds {
    switch mode {
    case "encode": for value in values { checksum &+= try! value.encoded().count }
    default: for text in texts { if case .object(let members) = try! JSONParser().parse(text) { checksum &+= members.count } }
    }
}
let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds - start)
print(String(format: "%.2f", nanoseconds / Double(rounds * values.count) / 1_000), checksum)
