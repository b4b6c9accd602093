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

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StreamSession {
    /// Creates a task that sends `request` over HTTP/1.1 when you call
    /// ``StreamDataTask/resume()`` (or ``StreamDataTask/receiveResponse()``), through the
    /// session's proxy settings; an `https` or `wss` URL uses TLS from the first byte.
    ///
    /// The request's URL must be `http`, `https`, `ws` or `wss` with a host; otherwise, or after
    /// the session is invalidated, the task fails as soon as it is resumed
    /// (`StreamTaskError/Code/invalidArgument`, `StreamTaskError/Code/sessionInvalidated`).
    /// So does an `http` or `ws` URL that the session's App Transport Security refuses
    /// (`StreamTaskError/Code/transportSecurityRequiresSecureConnection`, which Apple's API
    /// reports as `URLError.appTransportSecurityRequiresSecureConnection`), without connecting.
    public func dataTask(with request: URLRequest) -> StreamDataTask {
        let carrier: StreamTask
        do {
            let endpoint = try HTTPRequestBuilder.endpoint(of: request)
            if !endpoint.usesTLS, let rules = settings.transportSecurity.requirements(forHost: endpoint.host),
                !rules.allowsInsecureHTTPLoads
            {
                let refusal = rules.insecureHTTPRefusal(url: request.url?.absoluteString ?? endpoint.host)
                carrier = refusedTask(
                    host: endpoint.host, port: endpoint.port, origin: .dataTask,
                    failure: refusal.at(host: endpoint.host, port: endpoint.port))
            } else {
                carrier = streamTask(withHostName: endpoint.host, port: endpoint.port, proxy: nil, origin: .dataTask)
            }
        } catch {
            let failure = error as? StreamTaskError ?? StreamTaskError.invalidArgument("\(error)")
            carrier = refusedTask(host: "", port: 0, origin: .dataTask, failure: failure)
        }
        // The carrier's own delegate callbacks would describe the HTTP exchange as a stream.
        carrier.withShared { $0.delegateMuted = true }
        let dataTask = StreamDataTask(request: request, session: self, carrier: carrier)
        // Before anyone can resume it: the carrier is new, and nothing else knows its driver yet.
        carrier.driver.onLoop { carrier.driver.attach(dataTask) }
        return dataTask
    }
}
