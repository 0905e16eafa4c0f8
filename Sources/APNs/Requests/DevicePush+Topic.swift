extension DevicePush {
    /// `<bundleId>.push-type.liveactivity`: the `apns-topic` of every Live Activity device push
    /// (push-to-start and updates to an activity's own token, apns.md §7).
    public static func liveActivityTopic(bundleID: String) -> String {
        bundleID + APNsValidation.liveActivityTopicSuffix
    }
}
