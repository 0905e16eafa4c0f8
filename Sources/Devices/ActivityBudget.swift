import DeliveryEngine
import Foundation
import Registry
import ScorecastCore

/// Every activity on the token path has its own hourly priority-10 budget (apns.md §5: a
/// device's budget, raised by frequent updates), spent over a rolling hour
/// (`activity_priority_sends`). An update that wants priority 10 once it is spent goes at 5
/// (counted as downgraded); the last ``finalReserve`` of it are kept for the final whistle, as on
/// channels (`SCORECAST_BUDGET_FINAL_RESERVE`). Pure.
package struct ActivityBudget: Sendable, Hashable {
    /// The rolling window the budget is spent over, in seconds; sends older than it count for
    /// nothing and are pruned.
    package static let window: TimeInterval = 3_600

    /// The built-in profiles' priority-10 updates per activity per hour.
    var profiles: BudgetProfiles
    /// Priority-10 updates per activity kept for the final whistle's update.
    var finalReserve: Int

    /// The budget of an activity of `app` on a device whose frequent-updates setting is
    /// `deviceFrequentUpdates`: the app's own budget when it sets one, else the frequent-updates
    /// profile's when the app supports them and the device's user left them on, else the standard one.
    func perHour(app: AppRecord, deviceFrequentUpdates: Bool) -> Int {
        profiles.profile(appBudget: app.budgetPerHour, frequentUpdates: app.frequentUpdates && deviceFrequentUpdates).immediatePerHour
    }

    /// Whether an update that wants `priority` goes at priority 10, with `spent` priority-10
    /// updates sent to the activity in the last hour against `budget`; only the final whistle's
    /// update (`final`) may spend the last ``finalReserve`` of it.
    func sendsImmediately(priority: Int, spent: Int, budget: Int, final: Bool) -> Bool {
        priority == 10 && spent < (final ? budget : budget - finalReserve)
    }
}
