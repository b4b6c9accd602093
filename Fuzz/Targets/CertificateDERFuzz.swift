//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `DERReader`, `CertificateStrength(der:)` and `certificateRefusal(chain:)` on a chain of any
// bytes, as a hostile TLS peer may present it. Nothing traps, and:
//
// - `DERReader.all()` finds what a plain reading of tag, length and contents finds (`nil` for
//   the same inputs): elements whose encodings follow one another and add up to the input
//   exactly, at every depth and whatever index the slice starts at; object identifiers read
//   as dotted numbers, arc by arc;
// - a certificate `CertificateStrength` reads starts with a SEQUENCE; its key kind is the one
//   its key's algorithm names; an RSA key has as many bits as its modulus (so no more than 8
//   times the input's size), an EC key a known curve's size, Edwards keys 256 or 448 bits and
//   other keys none; `hasStrongKey` is the documented rule for that kind and size;
//   `hasStrongSignatureHash` holds for SHA-256 or stronger and Edwards signatures only; it is
//   self-issued exactly when issuer and subject are the same;
// - `certificateRefusal` refuses exactly the chains with a certificate it cannot read, one
//   signed with a weaker hash (a self-issued one aside) or, where forward secrecy is required,
//   one with a weak key; it names the first such certificate by position, with that rule's
//   code (a transport-security one) and what is wrong, and a chain cut after it is refused
//   the same way.
//
// Input: a flags byte (bit 0: forward secrecy not required; bits 1-2: the host; bit 3: an
// entry matched; bits 4-7: where the slices start), the number of certificates less one (0-3),
// the lengths of all but the last (2 bytes each, big-endian), then the certificates, leaf first.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCertificateDER(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let count = 1 + Int(input.byte() % 4)
    var lengths: [Int] = []
    for _ in 1..<count {
        let high = Int(input.byte())
        lengths.append(high << 8 | Int(input.byte()))
    }
    var rest = input.rest[...]
    var chain: [[UInt8]] = []
    for length in lengths {
        chain.append(Array(rest.prefix(length)))
        rest = rest.dropFirst(length)
    }
    chain.append(Array(rest))

    let offset = Int(flags >> 4)
    for der in chain {
        var budget = 4000
        checkElements(der[...], depth: 0, budget: &budget)
        // The same bytes in a slice that does not start at 0, as the contents of an element are.
        let shifted = [UInt8](repeating: 0xA5, count: offset) + der
        checkElements(shifted[offset...], depth: 0, budget: &budget)
        checkStrength(der)
    }
    checkRefusal(chain, flags: flags)
    return 0
}

// MARK: DER

/// Tag, length and contents, one element after another, as DERReader means to read them: a
/// one-byte tag, a definite length in one byte or in 1 to 4 more (more cannot fit a
/// certificate; DER's shortest form is not insisted on), then that many bytes.
private func plainReading(_ bytes: ArraySlice<UInt8>) -> [(tag: UInt8, contents: Range<Int>)]? {
    var elements: [(tag: UInt8, contents: Range<Int>)] = []
    var position = bytes.startIndex
    while position != bytes.endIndex {
        guard bytes.endIndex - position >= 2 else { return nil }
        let tag = bytes[position]
        let first = Int(bytes[position + 1])
        var start = position + 2
        var length = first
        if first >= 0x80 {
            let size = first - 0x80
            guard (1...4).contains(size), bytes.endIndex - start >= size else { return nil }
            length = bytes[start..<start + size].reduce(0) { $0 * 256 + Int($1) }
            start += size
        }
        guard bytes.endIndex - start >= length else { return nil }
        elements.append((tag, start..<start + length))
        position = start + length
    }
    return elements
}

private func checkElements(_ bytes: ArraySlice<UInt8>, depth: Int, budget: inout Int) {
    let elements = DERReader(bytes).all()
    let plain = plainReading(bytes)
    let at = "\(bytes.count) bytes at \(bytes.startIndex), depth \(depth)"
    require(
        (elements == nil) == (plain == nil),
        "\(at): all() gives \(elements.map { "\($0.count) elements" } ?? "nil"), a plain reading \(plain.map { "\($0.count) elements" } ?? "nil")"
    )
    guard let elements, let plain else { return }
    require(elements.count == plain.count, "\(at): \(elements.count) elements, a plain reading finds \(plain.count)")
    // Each element's encoding starts where the previous one ends: together they are the input.
    var end = bytes.startIndex
    for (index, (element, expected)) in zip(elements, plain).enumerated() {
        let range = element.contents.startIndex..<element.contents.endIndex
        require(
            element.tag == expected.tag && range == expected.contents,
            "\(at): element \(index) is tag \(element.tag), contents \(range); a plain reading finds tag \(expected.tag), contents \(expected.contents)"
        )
        let header = range.lowerBound - end
        require((2...6).contains(header), "\(at): element \(index) has a \(header)-byte tag and length")
        end = range.upperBound
    }
    require(end == bytes.endIndex, "\(at): the elements' encodings add up to \(end - bytes.startIndex) bytes")
    for element in elements where depth < 24 && budget > 0 {
        budget -= 1
        if element.tag == DERReader.objectIdentifier { checkDotted(element.contents) }
        require(
            element.children?.count == DERReader(element.contents).all()?.count,
            "\(at): children differ from the contents read")
        checkElements(element.contents, depth: depth + 1, budget: &budget)
    }
}

/// An object identifier's arcs, each base 128 with the high bit on all but its last byte, the
/// first two packed into one (40 × first + second); `nil` when an arc has over 7 bytes, too
/// long to check here (DERReader stops reading such an identifier).
private func plainDotted(_ oid: ArraySlice<UInt8>) -> String? {
    var arcs: [UInt64] = []
    var value: UInt64 = 0
    var width = 0
    for byte in oid {
        value = value << 7 | UInt64(byte & 0x7f)
        width += 1
        guard width <= 7 else { return nil }
        if byte & 0x80 == 0 {
            arcs.append(value)
            value = 0
            width = 0
        }
    }
    guard let first = arcs.first else { return "" }
    let top = min(first / 40, 2)
    return ([top, first - top * 40] + arcs.dropFirst()).map { String($0) }.joined(separator: ".")
}

private func checkDotted(_ oid: ArraySlice<UInt8>) {
    let dotted = DERReader.dotted(oid)
    require(
        dotted.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) },
        "the object identifier \(Array(oid)) reads as \(dotted.debugDescription)")
    if let expected = plainDotted(oid) {
        require(dotted == expected, "the object identifier \(Array(oid)) reads as \(dotted), not \(expected)")
    }
}

// MARK: Certificates

private let keyKinds = [
    "1.2.840.113549.1.1.1": "RSA", "1.2.840.10045.2.1": "EC", "1.3.101.112": "Ed25519", "1.3.101.113": "Ed448",
]
private let strongSignatures: Set = [
    "sha256WithRSAEncryption", "sha384WithRSAEncryption", "sha512WithRSAEncryption", "ecdsa-with-SHA256",
    "ecdsa-with-SHA384", "ecdsa-with-SHA512", "Ed25519", "Ed448", "rsassaPss-with-SHA256", "rsassaPss-with-SHA384",
    "rsassaPss-with-SHA512",
]
private let weakSignatures: Set = [
    "md2WithRSAEncryption", "md5WithRSAEncryption", "sha1WithRSAEncryption", "sha224WithRSAEncryption",
    "ecdsa-with-SHA1", "ecdsa-with-SHA224", "dsa-with-sha1", "rsassaPss-with-SHA1", "rsassaPss-with-SHA224",
]

/// The fields of a certificate, read plainly: `Certificate ::= SEQUENCE { tbs, signatureAlgorithm, … }`,
/// `tbs ::= SEQUENCE { [0] version?, serial, signature, issuer, validity, subject, subjectPublicKeyInfo, … }`.
private struct PlainCertificate {
    var signatureOID: String?
    var issuer: ArraySlice<UInt8>
    var subject: ArraySlice<UInt8>
    var keyOID: String?
    var rsaModulusBits: Int?

    init?(_ der: [UInt8]) {
        guard let top = plainReading(der[...]), let certificate = top.first, certificate.tag == 0x30,
            let parts = plainReading(der[certificate.contents]), parts.count >= 2,
            var tbs = plainReading(der[parts[0].contents]), let algorithm = plainReading(der[parts[1].contents])
        else { return nil }
        signatureOID = algorithm.first.flatMap { $0.tag == 6 ? plainDotted(der[$0.contents]) : nil }
        if tbs.first?.tag == 0xA0 { tbs.removeFirst() }
        guard tbs.count >= 6, let keyInfo = plainReading(der[tbs[5].contents]), keyInfo.count == 2,
            let keyAlgorithm = plainReading(der[keyInfo[0].contents]), let keyOID = keyAlgorithm.first
        else { return nil }
        issuer = der[tbs[2].contents]
        subject = der[tbs[4].contents]
        self.keyOID = plainDotted(der[keyOID.contents])
        // RSAPublicKey ::= SEQUENCE { modulus INTEGER, … }, in the BIT STRING after its unused-bits byte.
        let key = keyInfo[1]
        if key.tag == 3, key.contents.count > 1,
            let sequence = plainReading(der[(key.contents.lowerBound + 1)..<key.contents.upperBound])?.first,
            sequence.tag == 0x30, let modulus = plainReading(der[sequence.contents])?.first, modulus.tag == 2
        {
            let digits = der[modulus.contents].drop { $0 == 0 }
            rsaModulusBits = digits.first.map { digits.count * 8 - $0.leadingZeroBitCount } ?? 0
        }
    }
}

private func checkStrength(_ der: [UInt8]) {
    guard let strength = CertificateStrength(der: der) else { return }
    let what = "a certificate of \(der.count) bytes read as \(strength)"
    require(plainReading(der[...])?.first?.tag == DERReader.sequence, "\(what): it does not start with a SEQUENCE")
    guard let plain = PlainCertificate(der) else {
        return require(false, "\(what): a plain reading finds no certificate")
    }
    require(
        strength.isSelfIssued == (plain.issuer == plain.subject),
        "\(what): self-issued \(strength.isSelfIssued), but issuer and subject are \(plain.issuer == plain.subject ? "equal" : "not")"
    )
    if let keyOID = plain.keyOID {
        require(
            strength.keyKind == keyKinds[keyOID] ?? "key algorithm \(keyOID)",
            "\(what): the key's algorithm is \(keyOID)")
    }
    switch strength.keyKind {
    case "RSA":
        require(strength.keyBits == plain.rsaModulusBits, "\(what): the modulus has \(plain.rsaModulusBits ?? -1) bits")
        if let bits = strength.keyBits {
            require(bits >= 0 && bits <= 8 * der.count, "\(what): \(bits) bits in \(der.count) bytes")
        }
    case "EC":
        require(
            strength.keyBits.map { [192, 224, 256, 384, 521].contains($0) } ?? true, "\(what): no curve has that size")
    case "Ed25519": require(strength.keyBits == 256, "\(what): Ed25519 keys have 256 bits")
    case "Ed448": require(strength.keyBits == 448, "\(what): Ed448 keys have 448 bits")
    default: require(strength.keyBits == nil, "\(what): the size of an unknown kind of key is unknown")
    }
    let strongKey =
        switch strength.keyKind {
        case "RSA": (strength.keyBits ?? 0) >= 2048
        case "EC": (strength.keyBits ?? 0) >= 256
        case "Ed25519", "Ed448": true
        default: false
        }
    require(strength.hasStrongKey == strongKey, "\(what): hasStrongKey is \(strength.hasStrongKey)")
    require(
        strength.keyDescription.hasPrefix(strength.keyKind)
            && strength.keyDescription.contains(strength.keyBits.map { "\($0)-bit" } ?? "size unknown"),
        "\(what): the description \(strength.keyDescription.debugDescription)")
    let name = strength.signatureAlgorithm
    require(
        strength.hasStrongSignatureHash == strongSignatures.contains(name),
        "\(what): a signature with \(name) counted \(strength.hasStrongSignatureHash ? "strong" : "weak")")
    require(
        strongSignatures.contains(name) || weakSignatures.contains(name)
            || (plain.signatureOID.map { $0 == name } ?? true)
            || (plain.signatureOID == "1.2.840.113549.1.1.10" && name.hasPrefix("rsassaPss with ")),
        "\(what): the signature algorithm is \(plain.signatureOID ?? "unread")")
}

// MARK: The refusal

private let transportSecurityCodes: [StreamTaskError.Code] = [
    .transportSecurityRequiresSecureConnection, .transportSecurityMinimumVersion, .transportSecurityCipherSuite,
    .transportSecurityKeySize, .transportSecurityHashAlgorithm, .transportSecurityTrust,
]

private func checkRefusal(_ chain: [[UInt8]], flags: UInt8) {
    let host = ["example.com", "192.0.2.1", "legacy.example.com", "2001:db8::1"][Int(flags >> 1) & 3]
    let entry: String? = flags & 8 != 0 ? "example.com" : nil
    let forwardSecrecy = flags & 1 == 0
    let rules = TransportSecurityRequirements(
        host: host, exceptionDomain: entry, exception: .init(requiresForwardSecrecy: forwardSecrecy))
    let refusal = rules.certificateRefusal(chain: chain)

    // The first certificate that breaks a rule, by the rules.
    var first: (position: Int, code: StreamTaskError.Code, detail: String)? = nil
    for (position, der) in chain.enumerated() {
        guard let strength = CertificateStrength(der: der) else {
            first = (position, .transportSecurityHashAlgorithm, "could not read")
            break
        }
        if !strength.isSelfIssued, !strength.hasStrongSignatureHash {
            first = (position, .transportSecurityHashAlgorithm, "signed with \(strength.signatureAlgorithm)")
            break
        }
        if forwardSecrecy, !strength.hasStrongKey {
            first = (position, .transportSecurityKeySize, "has an \(strength.keyDescription) key")
            break
        }
    }
    let sizes = chain.map(\.count)
    guard let first else {
        return require(
            refusal == nil, "a chain of \(sizes) bytes that meets the rules is refused: \(refusal?.message ?? "")")
    }
    guard let refusal else {
        return require(
            false, "a chain of \(sizes) bytes is not refused, though certificate \(first.position + 1) \(first.detail)")
    }
    require(
        transportSecurityCodes.contains(refusal.code) && refusal.code.isTransportSecurity,
        "refused with \(refusal.code), not a transport-security code")
    require(refusal.code == first.code, "refused with \(refusal.code), not \(first.code): \(refusal.message)")
    let which = first.position == 0 ? "the server's certificate" : "certificate \(first.position + 1) of its chain"
    require(refusal.message.contains("\(which) for \(host)"), "the refusal does not name \(which): \(refusal.message)")
    require(refusal.message.contains(first.detail), "the refusal does not say \(first.detail): \(refusal.message)")
    if first.position > 0 {
        require(!refusal.message.contains("the server's certificate"), "the refusal names the leaf: \(refusal.message)")
    }
    if first.code == .transportSecurityKeySize {
        let place =
            entry.map { "in its NSExceptionDomains entry \"\($0)\"" }
            ?? "in an NSExceptionDomains entry for \"\(host)\""
        require(
            refusal.message.contains("set NSExceptionRequiresForwardSecrecy to NO \(place)"),
            "the refusal does not name the exception that allows the key: \(refusal.message)")
    }
    // What follows the first certificate refused changes nothing.
    let cut = rules.certificateRefusal(chain: Array(chain.prefix(first.position + 1)))
    require(
        cut?.code == refusal.code && cut?.message == refusal.message,
        "the chain cut after certificate \(first.position + 1) is refused otherwise: \(cut?.message ?? "not at all")")
}
