// The ScorecastCore module; see Package.swift for its place in the layers.
