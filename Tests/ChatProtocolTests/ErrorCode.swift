//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

@testable import ChatProtocol

/// The code of the ``IRCMessageError`` that `body` throws; `nil` when it throws none.
func errorCode(_ body: () throws -> Any) -> IRCMessageError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as IRCMessageError {
        return error.code
    } catch {
        return nil
    }
}
