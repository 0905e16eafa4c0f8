/// Every activity on the token path has its own hourly priority-10 budget (apns.md §5: a
/// device's budget, raised by frequent updates), spent over a rolling hour
/// (`activity_priority_sends`). An update that wants priority 10 once it is spent goes at 5. Pure.
struct ActivityBudget: Sendable, Hashable {
    /// Priority-10 updates per activity per hour without frequent updates.
    var standardPerHour: Int
    /// The same when the app supports frequent updates and the device's user left them on.
    var frequentPerHour: Int

    /// The budget of an activity of `app` on a device whose frequent-updates setting is
    /// `deviceFrequentUpdates`: the app's own budget when it sets one, else the profile's.
    func perHour(app: AppRecord, deviceFrequentUpdates: Bool) -> Int {
        app.budgetPerHour ?? (app.frequentUpdates && deviceFrequentUpdates ? frequentPerHour : standardPerHour)
    }

    /// Whether an update that wants `priority` goes at priority 10, with `spent` priority-10
    /// updates sent to the activity in the last hour against `budget`.
    static func sendsImmediately(priority: Int, spent: Int, budget: Int) -> Bool {
        priority == 10 && spent < budget
    }
}
