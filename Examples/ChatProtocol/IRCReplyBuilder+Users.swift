/// Replies about users: away messages, `USERHOST`, `ISON` and `WHOIS` (Protocol.md, section 8).
extension IRCReplyBuilder {
    /// `301`: `<nick>` is away, with its away message (cut to fit the line).
    public func away(nickname: String, text: String) -> IRCMessage {
        reply(.away, nickname, text).fitted()
    }
}
