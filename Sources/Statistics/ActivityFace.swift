import Foundation

/// What one channel's phones show now, read from the bodies APNs last accepted for it: the Live
/// Activity's content-state (drawn by the dashboard as the lock-screen view and the Dynamic
/// Island's compact and expanded views) and the alert last shown, its texts in English from the
/// String Catalog. Built by ``ActivityFace/read(shown:shownAt:alert:alertAt:dateEncoding:now:)``.
package struct ActivityFace: Codable, Sendable, Equatable {
    /// When APNs accepted the body the state comes from.
    package var acceptedAt: Date
    /// `aps.event`: `update`, or `end` once the activity was ended (it stays on the lock screen
    /// until dismissed).
    package var event: String
    /// The content-state's status: `scheduled`, `live`, `suspended`, `final` or `cancelled`.
    package var status: String
    /// The home team's score.
    package var homeScore: Int
    /// The away team's score.
    package var awayScore: Int
    /// The period label ("2H", "Q3"), when the state has one.
    package var period: String?
    /// The clock as the phone shows it at the snapshot: the feed's label, else the reading as
    /// minutes and seconds (a running clock advanced to the snapshot's time); `nil` without one.
    package var clock: String?
    /// The last notable play in one line ("67' Saka · Saka curls it in").
    package var lastPlay: String?
    /// The home team's goals, oldest first ("Saka 12'", "Kane 88' (pen)").
    package var homeScorers: [String]
    /// The away team's goals, oldest first.
    package var awayScorers: [String]
    /// Red cards per team, `[home, away]`, for sports with cards.
    package var redCards: [Int]?
    /// The alert of the last accepted body that carried one; `nil` when none was accepted.
    package var alert: ShownAlert?

    /// Creates a face.
    package init(
        acceptedAt: Date, event: String, status: String, homeScore: Int, awayScore: Int, period: String?, clock: String?,
        lastPlay: String?, homeScorers: [String], awayScorers: [String], redCards: [Int]?, alert: ShownAlert?
    ) {
        self.acceptedAt = acceptedAt
        self.event = event
        self.status = status
        self.homeScore = homeScore
        self.awayScore = awayScore
        self.period = period
        self.clock = clock
        self.lastPlay = lastPlay
        self.homeScorers = homeScorers
        self.awayScorers = awayScorers
        self.redCards = redCards
        self.alert = alert
    }
}

/// An alert as the phone showed it: title and body in English (a `loc-key` resolved through
/// the String Catalog).
package struct ShownAlert: Codable, Sendable, Equatable {
    /// When APNs accepted the body that carried it.
    package var acceptedAt: Date
    /// The headline.
    package var title: String?
    /// The text under it.
    package var body: String?
    /// The sound it asked for.
    package var sound: String?

    /// Creates an alert.
    package init(acceptedAt: Date, title: String?, body: String?, sound: String?) {
        self.acceptedAt = acceptedAt
        self.title = title
        self.body = body
        self.sound = sound
    }
}
