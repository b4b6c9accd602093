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

/// The Darwin SMTP client (Tests/DarwinPrograms/SMTPMailer.swift), ported by the script, sends
/// a mail through aiosmtpd, which requires STARTTLS. The program leaves server trust to the
/// default handling; the test CA becomes trusted the way Linux makes a CA trusted for OpenSSL
/// programs: `SSL_CERT_FILE` in the environment.
@Suite(.timeLimit(.minutes(2))) struct PortedSMTPMailerTests {
    static let body = ["Hello from Darwin code.", ".a line that begins with a dot", "", "The end."]

    @Test func theMailerUpgradesAndSendsAMailTrustedThroughSSLCertFile() async throws {
        let ca = try await MailTestCA.make()
        defer { ca.remove() }
        let smtp = try await Aiosmtpd.start(certificate: ca.serverPEM, key: ca.serverKey)
        defer { Task { await smtp.stop() } }
        let mailer = try ObservedProcess(
            try BuiltProducts.path("ported-smtp-mailer"),
            ["127.0.0.1", "\(smtp.port)", "darwin@example.com", "linux@example.com", "Ported mail"] + Self.body,
            environment: ["SSL_CERT_FILE": ca.caPEM])
        #expect(await mailer.waitForExit(seconds: 30), "\(mailer.output)")
        let output = mailer.output
        #expect(mailer.child.exitCode == 0, "\(output)\naiosmtpd: \(smtp.process.output.suffix(2000))")
        for line in [
            "challenge NSURLAuthenticationMethodServerTrust for 127.0.0.1:\(smtp.port)",
            "TLS is on; the server offers STARTTLS again: false",
            "the server accepted the mail: 250 ",
            "our side is closed",
            "the server closed the connection",
            "metrics: TLS 1.3",
            "metrics: connecting started no earlier than the earliest begin date",
            "metrics: to port \(smtp.port),",
            "mail to linux@example.com completed, priority 0.25",
            // A stream task knows neither in advance: Apple's 0 and NSURLSessionTransferSizeUnknown.
            "expected to send 0, to receive -1",
            "progress finished: true",
            "session invalidated\n",
        ] {
            #expect(output.contains(line), "\(line) missing from: \(output)")
        }
        // The task's byte counts are the application bytes the program wrote and read.
        let counts = try #require(output.split(separator: "\n").first { $0.hasPrefix("sent ") })
        let numbers = counts.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count == 4 && numbers[0] == numbers[1] && numbers[2] == numbers[3], "\(counts)")
        #expect(numbers.first ?? 0 > 0, "\(counts)")

        // The mail arrived intact: headers, and the body with its dot-stuffed line as written.
        try smtp.expectDelivered(subject: "Ported mail", body: Self.body)
        await mailer.stop()
    }

    @Test func withoutSSLCertFileTheTestCAIsUntrusted() async throws {
        let ca = try await MailTestCA.make()
        defer { ca.remove() }
        let smtp = try await Aiosmtpd.start(certificate: ca.serverPEM, key: ca.serverKey)
        defer { Task { await smtp.stop() } }
        let mailer = try ObservedProcess(
            try BuiltProducts.path("ported-smtp-mailer"),
            ["127.0.0.1", "\(smtp.port)", "darwin@example.com", "linux@example.com", "Never sent", "x"],
            environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""])
        #expect(await mailer.waitForExit(seconds: 30), "\(mailer.output)")
        let output = mailer.output
        #expect(mailer.child.exitCode == 3, "\(output)")
        // Apple's code, -1202: URLError.Code has it. (swift-corelibs-foundation's global
        // NSURLErrorServerCertificateUntrusted is -1203, one off, as are its other SSL constants.)
        #expect(URLError.Code.serverCertificateUntrusted.rawValue == -1202)
        #expect(output.contains("the server's certificate is not trusted: NSURLErrorDomain -1202"), "\(output)")
        #expect(output.contains("session invalidated"), "\(output)")
        #expect(!output.contains("accepted the mail"), "\(output)")
        #expect(try smtp.receivedMails().isEmpty)
        await mailer.stop()
    }
}

/// A CA and a server certificate for 127.0.0.1 and localhost it issued, made with `openssl`.
struct MailTestCA {
    let directory: String
    var caPEM: String { directory + "/ca.pem" }
    var serverPEM: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }

    static func make() async throws -> MailTestCA {
        let directory = NSTemporaryDirectory() + "mail-ca-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        let openssl = try BuiltProducts.installed("openssl", package: "openssl")
        for arguments in [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=Ported Mailer Test CA",
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
                "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "server.pem", "-days", "2", "-extfile", "server.ext",
            ],
        ] {
            let result = await RouteLab.run(["sh", "-c", "cd \"$0\" && exec \"$@\"", directory, openssl] + arguments)
            guard result.status == 0 else {
                throw ChildProcessError(description: "openssl \(arguments.first!) failed: \(result.output)")
            }
        }
        return MailTestCA(directory: directory)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// aiosmtpd (Debian's python3-aiosmtpd) on 127.0.0.1, requiring STARTTLS (its default once it
/// has a certificate), delivering into a Maildir.
struct Aiosmtpd {
    let process: ObservedProcess
    let port: Int
    let mailDirectory: URL

    /// An SMTP server that requires STARTTLS, or with `implicitTLS` one that speaks TLS from
    /// the first byte (SMTPS).
    static func start(certificate: String, key: String, implicitTLS: Bool = false) async throws -> Aiosmtpd {
        var lastOutput = ""
        for _ in 0..<5 {
            // aiosmtpd takes a port number, not 0: one from the tests' range, free a moment ago.
            let reserved = try ClosedPort()
            let port = reserved.port
            reserved.release()
            let mailDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "maildir-\(UUID().uuidString)")
            let process = try ObservedProcess(
                "/usr/bin/python3",
                [
                    "-m", "aiosmtpd", "-n", "-d", "-l", "127.0.0.1:\(port)",
                    implicitTLS ? "--smtpscert" : "--tlscert", certificate, implicitTLS ? "--smtpskey" : "--tlskey",
                    key,
                    "-c", "aiosmtpd.handlers.Mailbox", mailDirectory.path,
                ])
            if await process.waitForOutput(containing: "Server is listening on 127.0.0.1:\(port)"),
                process.child.isRunning()
            {
                return Aiosmtpd(process: process, port: port, mailDirectory: mailDirectory)
            }
            lastOutput = process.output
            await process.stop()
        }
        throw ChildProcessError(
            description:
                "aiosmtpd did not start (scripts/install-deps.sh installs python3-aiosmtpd); its output: \(lastOutput)")
    }

    /// Expects one mail from darwin@example.com to linux@example.com with `subject`, whose
    /// body is `body`'s lines as written (dot-stuffing undone).
    func expectDelivered(subject: String, body: [String]) throws {
        let mail = try #require(try receivedMails().first, "no mail in \(mailDirectory.path)")
        #expect(mail.contains("X-MailFrom: darwin@example.com"), "\(mail)")
        #expect(mail.contains("X-RcptTo: linux@example.com"), "\(mail)")
        #expect(mail.contains("Subject: \(subject)"), "\(mail)")
        let sent = try #require(mail.range(of: "\n\n")).upperBound
        #expect(mail[sent...].trimmingCharacters(in: .newlines) == body.joined(separator: "\n"), "\(mail)")
    }

    /// The mails delivered so far, as the Maildir holds them.
    func receivedMails() throws -> [String] {
        let new = mailDirectory.appendingPathComponent("new")
        guard FileManager.default.fileExists(atPath: new.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: new.path).sorted().map {
            try String(contentsOf: new.appendingPathComponent($0), encoding: .utf8)
        }
    }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: mailDirectory)
    }
}
