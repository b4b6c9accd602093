/// A username and password for a proxy. The description leaves out the password.
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var description: String { "\(username):…" }
}
