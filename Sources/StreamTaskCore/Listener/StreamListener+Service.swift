//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ServiceLifecycle

extension StreamListener: Service {
    /// Runs the listener as a swift-service-lifecycle `Service`: binds it unless ``start()``
    /// has done so, then waits. On the group's graceful shutdown (or a direct call of
    /// ``shutdown(gracePeriod:)``) it stops accepting, ends ``connections`` and waits for the
    /// open connections to finish; if the group cancels it meanwhile, it cancels them.
    ///
    /// ```swift
    /// let listener = StreamListener(host: "0.0.0.0", port: 7007, configuration: .init())
    /// let group = ServiceGroup(services: [listener], gracefulShutdownSignals: [.sigterm], logger: logger)
    /// async let serving: Void = serve(listener.connections)  // ends when the listener shuts down
    /// try await group.run()
    /// ```
    public func run() async throws {
        if localAddress == nil {
            try await start()
        }
        let closed = state.withLockedValue { $0.channel?.closeFuture }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Returns on graceful shutdown, and throws when cancelled: both end the wait.
                try? await gracefulShutdown()
            }
            group.addTask {
                try? await closed?.get()
            }
            _ = await group.next()
            await withTaskCancellationHandler {
                await shutdown(gracePeriod: Task.isCancelled ? 0 : nil)
            } onCancel: {
                for task in openConnections { task.cancel() }
            }
            group.cancelAll()
        }
    }
}
