import ScorecastCore

extension AppRecord {
    /// The app's rendering settings: its content-state mapping, date encoding, alert style and
    /// sound and dismissal delay, with the process-wide staleness per sport.
    ///
    /// Throws `ContentStateMappingError` when the stored mapping is not a valid one.
    package func renderSettings(staleness: StalenessPolicy) throws(ContentStateMappingError) -> RenderSettings {
        RenderSettings(
            mapping: try ContentStateMapping(jsonValue: contentStateMapping),
            dateEncoding: dateEncoding,
            alertStyle: alertStyle,
            alertSound: alertSound,
            dismissalDelay: Double(dismissalDelaySeconds),
            staleness: staleness)
    }
}
