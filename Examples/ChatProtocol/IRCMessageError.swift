//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a line could not be parsed, or a message could not be serialized.
///
/// Errors are compared by ``code``: `error.code == .lineTooLong`. The ``description`` is a
/// sentence that says what was wrong and where.
public struct IRCMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added in later releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Base: String, Hashable, Sendable {
            case empty
            case lineTooLong
            case tagsTooLong
            case containsNUL
            case containsLineBreak
            case invalidTags
            case invalidSource
            case missingCommand
            case invalidCommand
            case tooManyParameters
            case invalidParameter
        }

        let base: Base

        /// The line is empty or holds only spaces (receivers ignore such lines).
        public static let empty = Code(base: .empty)
        /// The message is longer than 510 bytes (512 with CR LF), tags not counted.
        public static let lineTooLong = Code(base: .lineTooLong)
        /// The tag section is longer than 8191 bytes.
        public static let tagsTooLong = Code(base: .tagsTooLong)
        /// The line, or a part of the message, holds a NUL byte.
        public static let containsNUL = Code(base: .containsNUL)
        /// The line, or a part of the message, holds a CR or LF.
        public static let containsLineBreak = Code(base: .containsLineBreak)
        /// The tag section is malformed, or a tag key is not valid.
        public static let invalidTags = Code(base: .invalidTags)
        /// The source (prefix) is empty or holds a space.
        public static let invalidSource = Code(base: .invalidSource)
        /// The line has tags or a source but no command.
        public static let missingCommand = Code(base: .missingCommand)
        /// The command is neither letters nor a three-digit numeric.
        public static let invalidCommand = Code(base: .invalidCommand)
        /// A message to send has more than 15 parameters. (Parsing never reports it: past the
        /// fourteenth, the rest of a line is the fifteenth.)
        public static let tooManyParameters = Code(base: .tooManyParameters)
        /// A parameter other than the last is empty, holds a space or starts with `:`.
        public static let invalidParameter = Code(base: .invalidParameter)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence describing the failure.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "IRCMessageError.\(code): \(message)" }
}
