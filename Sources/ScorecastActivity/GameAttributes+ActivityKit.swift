// ActivityKit exists only in Apple's iOS SDK: elsewhere (Linux, macOS) the types stay plain
// Codable structs with the same JSON, so the server and the app share one definition.
#if canImport(ActivityKit) && os(iOS)
import ActivityKit

extension GameAttributes: ActivityAttributes {
    /// The dynamic part of the activity, decoded by ActivityKit from each update's `content-state`.
    public typealias ContentState = ScorecastActivity.ContentState
}
#endif
