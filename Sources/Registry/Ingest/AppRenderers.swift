import ScorecastCore
import Synchronization

/// Each app's renderer, kept while the app's row stays the same. Building one parses and checks
/// the app's content-state mapping; ingest used to build it for every app in every transaction,
/// which at one event per transaction (a Saturday's pace) was 7 % of `serve`'s CPU.
/// Holds one entry per app (apps are never deleted); a changed row replaces its app's entry.
package final class AppRenderers: Sendable {
    private struct Entry {
        var app: AppRecord
        var renderer: Result<LiveActivityRenderer, ContentStateMappingError>
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    /// An empty set.
    package init() {}

    /// The renderer of `app`: the one built for an identical row before, else `build(app)`'s,
    /// kept for next time (a refused mapping too, so that it is not parsed again either).
    package func renderer(
        for app: AppRecord, build: (AppRecord) throws(ContentStateMappingError) -> LiveActivityRenderer
    ) -> Result<LiveActivityRenderer, ContentStateMappingError> {
        if let known = entries.withLock({ $0[app.id] }), known.app == app { return known.renderer }
        let built: Result<LiveActivityRenderer, ContentStateMappingError>
        do throws(ContentStateMappingError) {
            built = .success(try build(app))
        } catch {
            built = .failure(error)
        }
        entries.withLock { $0[app.id] = Entry(app: app, renderer: built) }
        return built
    }
}
