/// An app's priority-10 budget per channel per hour.
///
/// Apple publishes no numbers (apns.md §5): third parties report about 15 priority-10 updates an
/// hour without `NSSupportsLiveActivitiesFrequentUpdates`. The defaults stay below that on
/// purpose — 12 for ``standard``, 60 for ``frequentUpdates`` — and every app may set its own.
/// Above its budget a channel is sent at priority 5 (free, possibly delayed), never dropped.
public struct BudgetProfile: Sendable, Hashable, CustomStringConvertible {
    /// `standard` or `frequent-updates` (or an app's own name).
    public var name: String
    /// Priority-10 sends allowed per channel per hour window.
    public var immediatePerHour: Int

    /// Apps without frequent updates: 12 per hour.
    public static let standard = BudgetProfile(name: "standard", immediatePerHour: 12)
    /// Apps declaring `NSSupportsLiveActivitiesFrequentUpdates`: 60 per hour.
    public static let frequentUpdates = BudgetProfile(name: "frequent-updates", immediatePerHour: 60)

    /// Creates a profile; a negative budget counts as 0.
    public init(name: String, immediatePerHour: Int) {
        self.name = name
        self.immediatePerHour = max(0, immediatePerHour)
    }

    /// The built-in profile called `name`, if any.
    public static func named(_ name: String) -> BudgetProfile? {
        [standard, frequentUpdates].first { $0.name == name }
    }

    /// The text shown in logs and error messages.
    public var description: String { "\(name) (\(immediatePerHour)/h)" }
}

/// The per-hour figures of the two built-in profiles as configured
/// (`SCORECAST_BUDGET_STANDARD_PER_HOUR`, `SCORECAST_BUDGET_FREQUENT_PER_HOUR`), and the one
/// rule that resolves the budget of a channel or activity from them.
public struct BudgetProfiles: Sendable, Hashable {
    /// Priority-10 sends per hour without frequent updates.
    public var standardPerHour: Int
    /// The same with frequent updates.
    public var frequentPerHour: Int

    /// Creates the profiles; a negative figure counts as 0.
    public init(standardPerHour: Int = BudgetProfile.standard.immediatePerHour, frequentPerHour: Int = BudgetProfile.frequentUpdates.immediatePerHour) {
        self.standardPerHour = max(0, standardPerHour)
        self.frequentPerHour = max(0, frequentPerHour)
    }

    /// The budget of an app that sets `appBudget` (its own, `nil`: none) and has
    /// `frequentUpdates` on (on the token path: the app and the device both): its own budget
    /// when it sets one, else the matching profile's.
    public func profile(appBudget: Int?, frequentUpdates: Bool) -> BudgetProfile {
        let name = frequentUpdates ? BudgetProfile.frequentUpdates.name : BudgetProfile.standard.name
        return BudgetProfile(name: name, immediatePerHour: appBudget ?? (frequentUpdates ? frequentPerHour : standardPerHour))
    }
}
