//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The library's one import: the core (stream tasks, sessions, listeners, TLS, proxies, routes)
// and the HTTP data tasks that can become stream tasks. Each is also a module of its own, for a
// program that wants the core without HTTP.
@_exported import StreamTaskCore
@_exported import StreamTaskFraming
@_exported import StreamTaskHTTP

// Foundation's networking types (URLRequest, URLResponse, URLAuthenticationChallenge,
// URLCredential), which Darwin's Foundation has and Linux keeps in FoundationNetworking: a
// ported data-task delegate or challenge handler compiles with `import Foundation` and this
// import alone, as the porting rule promises.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
