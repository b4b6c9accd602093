//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskCore

extension StreamSession {
    /// Returns a task to a Bonjour service at once, suspended, as Apple's
    /// `streamTask(with:)` does: ``StreamTask/resume()`` resolves the service (its name, type
    /// and domain) and connects to its addresses in turn, directly, whatever the session's
    /// proxy. Operations queued before that wait for the connection.
    ///
    /// The task's ``StreamTask/host`` is the service's name and its ``StreamTask/port`` 0.
    /// Resolving may take half of the session's
    /// ``StreamSessionConfiguration/timeoutIntervalForRequest`` (which bounds resolving and
    /// connecting together), leaving the rest to connect; 10 s when that is 0. A service that
    /// does not resolve in that time completes the task with
    /// ``StreamTaskError/Code/hostNotFound`` (`URLError.cannotFindHost`), naming the service.
    public func streamTask(with service: NetService) -> StreamTask {
        let target = DNSSDService(name: service.name, type: service.type, domain: service.domain)
        let request = configuration.timeoutIntervalForRequest
        let limit = request > 0 ? request / 2 : 10
        return streamTask(serviceNamed: "\(target)") {
            let resolved: DNSSDResolvedService
            do {
                resolved = try await target.resolve(timeout: limit)
            } catch {
                throw StreamTaskError(
                    .hostNotFound, "the service \(target) did not resolve: \(error)", underlying: error)
            }
            guard !resolved.addresses.isEmpty else {
                throw StreamTaskError(.hostNotFound, "the service \(target) resolved to no address")
            }
            return resolved.addresses
        }
    }
}
