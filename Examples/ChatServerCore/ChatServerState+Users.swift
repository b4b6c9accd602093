import ChatProtocol

/// `AWAY` (Protocol.md, section 8).
extension ChatServerState {
    /// With a non-empty text, marks the client away (`306`), the text cut to `AWAYLEN` bytes;
    /// without one, or with an empty one, marks it back (`305`).
    mutating func away(_ context: inout CommandContext) {
        guard let text = context.parameters.first, !text.isEmpty else {
            clients[context.id]?.awayMessage = nil
            context.send(context.replies.reply(.unaway))
            return
        }
        clients[context.id]?.awayMessage = IRCLimits.truncated(text, toBytes: IRCLimits.awayLength)
        context.send(context.replies.reply(.nowAway))
    }
}
