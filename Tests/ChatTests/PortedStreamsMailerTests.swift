//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import StreamTaskTestSupport
import Testing

/// The Darwin SMTP client over socket streams (Tests/DarwinPrograms/StreamsMailer.swift),
/// ported by the script, sends a mail through aiosmtpd with TLS asked of its streams through
/// `socketSecurityLevelKey`: mid-stream after STARTTLS's go-ahead, or before opening them for
/// SMTPS. The test CA is trusted as Linux programs trust one, through `SSL_CERT_FILE`.
@Suite(.timeLimit(.minutes(2))) struct PortedStreamsMailerTests {
    static let body = ["Sent over socket streams.", ".a dot-stuffed line", "The end."]

    private func send(
        implicitTLS: Bool, trusting: Bool, subject: String
    ) async throws -> (ObservedProcess, Aiosmtpd, MailTestCA) {
        let ca = try await MailTestCA.make()
        let smtp = try await Aiosmtpd.start(certificate: ca.serverPEM, key: ca.serverKey, implicitTLS: implicitTLS)
        let mailer = try ObservedProcess(
            try BuiltProducts.path("ported-streams-mailer"),
            (implicitTLS ? ["--smtps"] : []) + ["127.0.0.1", "\(smtp.port)", "darwin@example.com", "linux@example.com"]
                + [subject] + Self.body,
            environment: trusting ? ["SSL_CERT_FILE": ca.caPEM] : ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""])
        #expect(await mailer.waitForExit(seconds: 40), "\(mailer.output)")
        return (mailer, smtp, ca)
    }

    @Test func theMailerUpgradesItsStreamsAfterSTARTTLS() async throws {
        let (mailer, smtp, ca) = try await send(implicitTLS: false, trusting: true, subject: "Upgraded streams")
        defer { ca.remove() }
        let output = mailer.output
        #expect(mailer.child.exitCode == 0, "\(output)\naiosmtpd: \(smtp.process.output.suffix(2000))")
        for line in [
            "input opened", "output opened, space available: true",
            "asked for TLS: true, level kCFStreamSocketSecurityLevelNegotiatedSSL",
            // Until the handshake is done, what the program sends waits for hasSpaceAvailable.
            "space before the handshake: false",
            "TLS is on; the server offers STARTTLS: false",
            "the server accepted the mail: 250 ",
            "the server closed the connection",
        ] {
            #expect(output.contains(line), "\(line) missing from: \(output)")
        }
        try smtp.expectDelivered(subject: "Upgraded streams", body: Self.body)
        await mailer.stop()
        await smtp.stop()
    }

    @Test func theMailerSpeaksTLSFromTheFirstByteWithTheLevelSetBeforeOpening() async throws {
        let (mailer, smtp, ca) = try await send(implicitTLS: true, trusting: true, subject: "SMTPS streams")
        defer { ca.remove() }
        let output = mailer.output
        #expect(mailer.child.exitCode == 0, "\(output)\naiosmtpd: \(smtp.process.output.suffix(2000))")
        // With the level set before opening, the streams open once TLS is up, as Darwin's do.
        #expect(output.contains("input opened"), "\(output)")
        #expect(output.contains("output opened, space available: true"), "\(output)")
        #expect(output.contains("TLS is on; the server offers STARTTLS: false"), "\(output)")
        #expect(output.contains("the server accepted the mail: 250 "), "\(output)")
        #expect(!output.contains("asked for TLS"), "no STARTTLS step: \(output)")
        try smtp.expectDelivered(subject: "SMTPS streams", body: Self.body)
        await mailer.stop()
        await smtp.stop()
    }

    @Test(arguments: [false, true]) func anUntrustedServerFailsTheStreamsAndGetsNoMail(implicitTLS: Bool) async throws {
        let (mailer, smtp, ca) = try await send(implicitTLS: implicitTLS, trusting: false, subject: "Never sent")
        defer { ca.remove() }
        let output = mailer.output
        #expect(mailer.child.exitCode == 3, "\(output)")
        // The handshake fails before the first command over TLS: EHLO after the go-ahead, or
        // the greeting itself.
        let step = implicitTLS ? "greeting" : "ehlo"
        #expect(output.contains("stream error in step \(step): NSURLErrorDomain -1202"), "\(output)")
        if implicitTLS {
            #expect(!output.contains("opened"), "streams asked for TLS open only once it is up: \(output)")
        }
        #expect(!output.contains("accepted the mail"), "\(output)")
        #expect(try smtp.receivedMails().isEmpty)
        await mailer.stop()
        await smtp.stop()
    }
}
