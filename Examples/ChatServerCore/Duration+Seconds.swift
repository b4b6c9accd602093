extension Duration {
    /// The duration in seconds, as the library's `TimeInterval` timeouts and rates per second
    /// take it.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
