//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// IRCv3 tag escaping on any text: unescaping undoes escaping, and a value carried in a message
// arrives as it was sent. Unescaping arbitrary text (a peer's) never traps.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIRCTag(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    _ = IRCTag.unescape(Substring(text))
    let escaped = IRCTag.escape(text)
    require(
        !escaped.utf8.contains { $0 == 0x20 || $0 == 0x3B || $0 == 0x0D || $0 == 0x0A },
        "escaped value \(escaped.debugDescription) holds a separator")
    require(IRCTag.unescape(Substring(escaped)) == text, "unescape(escape(\(text.debugDescription))) differs")

    // The same text as a key: valid keys serialize, invalid ones are refused on both sides.
    let keyed = IRCMessage(tags: [IRCTag(key: text)], command: "TAGMSG", parameters: ["#chat"])
    if IRCTag.isValidKey(text) {
        require(
            (try? keyed.serialized()) != nil || text.utf8.count > IRCLimits.tagSectionLength - 3,
            "valid key \(text.debugDescription) did not serialize")
    } else {
        require((try? keyed.serialized()) == nil, "invalid key \(text.debugDescription) serialized")
    }

    guard !text.utf8.contains(0) else { return 0 }
    let message = IRCMessage(
        tags: [IRCTag(key: "+example.com/value", value: text)], command: "TAGMSG", parameters: ["#chat"])
    guard let line = try? message.serialized() else {
        require(
            escaped.utf8.count + 20 > IRCLimits.tagSectionLength,
            "a tag value of \(text.utf8.count) bytes did not serialize")
        return 0
    }
    guard let parsed = try? IRCMessage(parsing: line) else {
        require(false, "the line \(line.debugDescription) did not parse")
        return 0
    }
    let value = parsed.tags.first?.value
    require(
        parsed.tags.count == 1 && (value == text || (text.isEmpty && value == nil)),
        "the tag value \(text.debugDescription) arrived as \(String(describing: value))")
    return 0
}
