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
@_exported import StreamTaskHTTP
