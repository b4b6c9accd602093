extension StringProtocol {
    /// What is between the brackets when the text is wrapped in them, as an IPv6 address is in
    /// a URL (`[::1]`); `nil` otherwise.
    package var insideBrackets: SubSequence? {
        hasPrefix("[") && hasSuffix("]") ? dropFirst().dropLast() : nil
    }
}
