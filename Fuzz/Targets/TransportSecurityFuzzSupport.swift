//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// For the transport-security fuzz targets (ats-exceptions, certificate-der). Their code names
// `StreamTLSConfiguration.Version`, so StreamTLSConfiguration.swift is compiled in; that file
// also stores certificates, keys and pins, whose types need NIOSSL (TLSCertificate,
// TLSPrivateKey) or a certificate (TLSPin). The transport-security code never touches them, so
// these empty stand-ins take their place, with just the members StreamTLSConfiguration.swift
// names, and the targets build from our sources alone, without SwiftNIO SSL or BoringSSL.

public struct TLSCertificate: Sendable, Hashable {
    static func chain(pemFile: String) throws -> [TLSCertificate] { [] }
}

public struct TLSPrivateKey: Sendable, Hashable {
    init(pemFile: String) throws {}
}

public struct TLSPin: Sendable, Hashable {}
