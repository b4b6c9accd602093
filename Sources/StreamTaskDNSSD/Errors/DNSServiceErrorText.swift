//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Names and meanings of the daemon's `DNSServiceErrorType` codes.
///
/// The values are Apple's (`dns_sd.h`). Avahi's copy of the header stops at
/// `kDNSServiceErr_BadTime`, so the codes are spelled as numbers here rather than taken from it.
enum DNSServiceErrorText {
    private static let table: [Int32: (name: String, sentence: String)] = [
        0: ("NoError", "no error"),
        -65537: ("Unknown", "the daemon reported an unspecified failure"),
        -65538: ("NoSuchName", "no such name was found"),
        -65539: ("NoMemory", "the daemon or its client library ran out of memory"),
        -65540: (
            "BadParam",
            "a parameter was rejected (a service type looks like _name._tcp or _name._udp; names and labels are at most 63 bytes)"
        ),
        -65541: ("BadReference", "the operation's reference is not valid"),
        -65542: ("BadState", "the request is not valid in the operation's current state"),
        -65543: ("BadFlags", "the flags are not valid for this call"),
        -65544: ("Unsupported", "the daemon does not support this request"),
        -65545: ("NotInitialized", "the operation was used before it was set up"),
        -65547: ("AlreadyRegistered", "this is already registered"),
        -65548: ("NameConflict", "the name is already in use"),
        -65549: ("Invalid", "the data is not valid (for example a malformed TXT record)"),
        -65550: ("Firewall", "a firewall is in the way"),
        -65551: ("Incompatible", "the client library and the daemon are incompatible versions"),
        -65552: ("BadInterfaceIndex", "there is no such network interface, or the daemon does not use it"),
        -65553: ("Refused", "the daemon refused the request (too many clients or objects, or access denied)"),
        -65554: ("NoSuchRecord", "no such record exists"),
        -65555: ("NoAuth", "the update was not authorized"),
        -65556: ("NoSuchKey", "the TXT record has no such key"),
        -65557: ("NATTraversal", "NAT traversal failed"),
        -65558: ("DoubleNAT", "more than one NAT gateway lies between this host and the internet"),
        -65559: ("BadTime", "the server's clock is out of step"),
        -65560: ("BadSig", "a signature did not verify"),
        -65561: ("BadKey", "a key was not valid"),
        -65562: ("Transient", "a temporary failure; trying again may succeed"),
        -65563: ("ServiceNotRunning", "the DNS-SD daemon is not running"),
        -65564: ("NATPortMappingUnsupported", "the NAT gateway does not support port mapping"),
        -65565: ("NATPortMappingDisabled", "port mapping is disabled on the NAT gateway"),
        -65566: ("NoRouter", "there is no router, so no NAT port mapping"),
        -65567: ("PollingMode", "the daemon is polling instead of using long-lived queries"),
        -65568: ("Timeout", "the daemon timed out"),
        -65569: ("DefunctConnection", "the connection to the daemon broke; start the operation again"),
        -65570: ("PolicyDenied", "the system's policy denied the request (on Darwin: local network privacy)"),
        -65571: ("NotPermitted", "the operation is not permitted"),
    ]

    /// `kDNSServiceErr_…` for a known code, `DNSServiceErrorType <n>` otherwise.
    static func name(of code: Int32) -> String {
        table[code].map { "kDNSServiceErr_\($0.name)" } ?? "DNSServiceErrorType \(code)"
    }

    /// What the code means, in a few words.
    static func sentence(for code: Int32) -> String {
        table[code]?.sentence ?? "an error code this library does not know"
    }

    static let noError: Int32 = 0
    static let unknown: Int32 = -65537
    static let noSuchName: Int32 = -65538
    static let badParam: Int32 = -65540
    static let unsupported: Int32 = -65544
    static let nameConflict: Int32 = -65548
    static let invalid: Int32 = -65549
    static let badInterfaceIndex: Int32 = -65552
    static let serviceNotRunning: Int32 = -65563
    static let timeout: Int32 = -65568
    static let defunctConnection: Int32 = -65569
}
