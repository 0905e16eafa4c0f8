import Foundation
import Synchronization
import JSON

/// The part of the simulator's state that APNs itself would keep across a restart — channels
/// and their budget counters — saved as `<stateDirectory>/state.json`.
///
/// Written after every channel create and delete (rare) and when the simulator stops, through
/// a temporary file renamed over the old one, so a crash leaves the previous whole file. Budget
/// counters of sends after the last write are lost on a crash (not on a clean stop).
final class SimulatorStateFile: Sendable {
    /// What is saved.
    struct Snapshot: Codable, Sendable {
        var version = 1
        var channels: [ChannelRecord]
        var budgets: BudgetLedger
    }

    let url: URL
    /// Serialises writers; the generation makes sure an older snapshot never replaces a newer one.
    private let written = Mutex<UInt64>(0)

    init(stateDirectory: String) {
        url = URL(fileURLWithPath: stateDirectory).appendingPathComponent("state.json")
    }

    /// The saved snapshot, or `nil` when there is none.
    /// - Throws: `SimulatorError.state` naming the file when it cannot be read back.
    func load() throws(SimulatorError) -> Snapshot? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONCoding.decode(Snapshot.self, from: Data(contentsOf: url), dates: .foundationDefault)
        } catch {
            throw .state("cannot read the simulator's saved state \(url.path): \(error) (remove the file to start empty)")
        }
    }

    /// Writes `snapshot` taken at `generation`, unless a later one was written already.
    func save(_ snapshot: Snapshot, generation: UInt64) throws {
        try written.withLock { last in
            guard generation > last else { return }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = url.appendingPathExtension("tmp")
            try Data(JSONCoding.encode(snapshot, dates: .foundationDefault)).write(to: temporary)
            if rename(temporary.path, url.path) != 0 {
                throw SimulatorError.state("cannot replace \(url.path): \(String(cString: strerror(errno)))")
            }
            last = generation
        }
    }
}
