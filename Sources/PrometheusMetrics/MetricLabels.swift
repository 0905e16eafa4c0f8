/// The label set of one metric: the names are fixed by the type, declared up front, and each
/// observation supplies one value per name.
///
/// Conforming types should take their values from small, closed sets (enums of outcomes,
/// reasons, priorities, an app's bundle id). Never label with channel ids, device tokens or
/// anything else that grows without bound: the registry caps the distinct combinations per
/// metric and folds the excess into an `other` series.
public protocol MetricLabels: Hashable, Sendable {
    /// The label names, in the order `values` lists their values.
    static var names: [String] { get }

    /// The label values of this observation, one per entry of `names`, in the same order.
    var values: [String] { get }
}

/// The empty label set, for metrics with a single series.
public struct NoLabels: MetricLabels {
    /// No label names.
    public static let names: [String] = []

    /// No label values.
    public var values: [String] { [] }

    /// Creates the empty label set.
    public init() {}
}
