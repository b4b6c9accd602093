//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `IRCMessage(parsing:)` on any bytes: it never traps, and what it accepts survives the wire:
// serialized and parsed again it is the same message, and serializes to the same line.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIRCMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    let message: IRCMessage
    do {
        message = try IRCMessage(parsing: line)
    } catch {
        require(error is IRCMessageError, "parsing threw \(error), not an IRCMessageError")
        return 0
    }
    require(message.parameters.count <= IRCLimits.parameterCount, "\(message.parameters.count) parameters")
    require(message.command == message.command.uppercased(), "command \(message.command) not upper-cased")
    _ = message.numeric
    if let nickname = message.sourceNickname {
        require(
            !nickname.unicodeScalars.contains { $0 == "!" || $0 == "@" },
            "the nickname \(nickname.debugDescription) of \(message.source!.debugDescription) runs past its ! or @")
    }
    _ = message.description

    let fitted = message.fitted()
    require(
        fitted.messageLength <= IRCLimits.messageLength || fitted.parameters.last?.isEmpty != false,
        "fitted() left \(fitted.messageLength) bytes with a last parameter to cut")

    let text: String
    do {
        text = try message.serialized()
    } catch {
        // Only growth can stop a parsed message from serializing: U+FFFD (3 bytes) in place
        // of an invalid byte, or tag values whose escapes are longer than the bytes they stand for.
        let code = (error as? IRCMessageError)?.code
        require(code == .lineTooLong || code == .tagsTooLong, "a parsed message did not serialize: \(error)")
        return 0
    }
    let again: IRCMessage
    do {
        again = try IRCMessage(parsing: Array(text.utf8))
    } catch {
        require(false, "the serialized line \(text.debugDescription) did not parse: \(error)")
        return 0
    }
    require(normalized(again) == normalized(message), "round trip changed \(message) into \(again)")
    require((try? again.serialized()) == text, "serializing again changed \(text.debugDescription)")
    return 0
}

/// A tag with an empty value is written without `=`, and read back without a value.
private func normalized(_ message: IRCMessage) -> IRCMessage {
    var message = message
    message.tags = message.tags.map { IRCTag(key: $0.key, value: $0.value?.isEmpty == true ? nil : $0.value) }
    return message
}
