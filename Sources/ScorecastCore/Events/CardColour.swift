import ScorecastActivity

/// A card's colour as the feed sends it (`yellow`, `second-yellow`, `red`): the contract's own
/// type, so the feed's word is the word the app reads.
public typealias CardColour = ContentState.CardColour
