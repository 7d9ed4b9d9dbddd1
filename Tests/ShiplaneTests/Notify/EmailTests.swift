import Foundation
import Testing
@testable import Shiplane

/// Emails the release notes, then fails when `FAIL` is set (so the run rolls back).
struct EmailLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let to = (lane.environment["TO"] ?? "").split(separator: ",").map(String.init)
        try await lane.email(to: to, subject: lane.environment["SUBJECT"] ?? "", text: lane.environment["TEXT"] ?? "",
                             cc: ["Ops <ops@example.com>"])
        if lane.environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}

@Suite("Email over SMTP, against a real SMTP server (aiosmtpd)", .serialized, .offThePool)
struct EmailTests {
    static let subject = "Released 1.2.0 — Überraschung 🚀 with a long subject that needs more than one encoded word"
    static let text = "Hello team,\n\n.a line that starts with a dot\n..two dots\nToken: \(Self.token)\nline with trailing space \nÄrger & <b>\n"
    static let token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    private func run(_ server: RealSMTPServer, security: String, extra: [String: String] = [:], fail: Bool = false,
                     dryRun: Bool = false) async throws -> (LaneRunResult, RecordingReporter) {
        let folder = NSTemporaryDirectory() + "shiplane-email-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var variables = server.environment(security: security)
        for (key, value) in ["TO": "dev@example.com,Zoë Müller <zoe@example.org>", "SUBJECT": Self.subject, "TEXT": Self.text,
                             "FAIL": fail ? "1" : "0", "GITHUB_TOKEN": Self.token, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""] {
            variables[key] = value
        }
        for (key, value) in extra { variables[key] = value }
        let reporter = RecordingReporter()
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables), reporter: reporter, isDryRun: dryRun))
        return (await LaneRunner().run(EmailLane(), in: context), reporter)
    }

    private func checkMessage(_ received: [String: Any], login: String?, mechanism: String? = nil, tls: Bool = true) throws {
        #expect(received["mail_from"] as? String == "release@example.com")
        #expect(received["rcpt_tos"] as? [String] == ["dev@example.com", "zoe@example.org", "ops@example.com"])
        #expect(received["login"] as? String == login)
        if let mechanism { #expect(received["mechanism"] as? String == mechanism) }
        #expect(received["tls"] as? Bool == tls)
        #expect(received["content_type"] as? String == "multipart/alternative")
        #expect((received["defects"] as? [String])?.isEmpty == true, "\(received["defects"] ?? "")")
        let headers = try #require(received["headers"] as? [String: String])
        #expect(headers["Subject"] == Self.subject, "decoded from RFC 2047")
        #expect(headers["From"] == "Shiplane <release@example.com>")
        #expect(headers["To"] == "dev@example.com, Zoë Müller <zoe@example.org>")
        #expect(headers["Cc"] == "Ops <ops@example.com>")
        #expect(headers["MIME-Version"] == "1.0")
        #expect(headers["Message-ID"]?.hasSuffix("@example.com>") == true)
        #expect(headers["Date"].map { $0.range(of: #"^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$"#, options: .regularExpression) != nil } == true)
        let raw = try #require(received["raw_headers"] as? String)
        #expect(raw.contains("=?UTF-8?B?") && raw.unicodeScalars.allSatisfy { $0.isASCII }, "headers are ASCII on the wire")
        #expect(raw.components(separatedBy: "\r\n").allSatisfy { $0.count <= 78 }, "header lines are folded")
        let parts = try #require(received["parts"] as? [[String: Any]])
        #expect(parts.map { $0["content_type"] as? String } == ["text/plain", "text/html"])
        #expect(parts.allSatisfy { $0["charset"] as? String == "utf-8" && $0["transfer_encoding"] as? String == "quoted-printable" })
        let plain = (parts.first?["text"] as? String ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        #expect(plain.contains("\n.a line that starts with a dot\n..two dots\n"), "dot-stuffing undone by the server: \(plain)")
        #expect(plain.contains("line with trailing space \n"))
        #expect(plain.contains("Ärger & <b>"))
        #expect(!plain.contains(Self.token) && plain.contains("Token: ***"), "redacted")
        let html = parts.last?["text"] as? String ?? ""
        #expect(html.contains("&lt;b&gt;") && html.contains("<br>") && !html.contains(Self.token))
    }

    @Test func startTLSWithAuthPlainDeliversAProperMIMEMessageToEveryRecipient() async throws {
        let server = try RealSMTPServer(mode: "starttls")
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls")
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        #expect(server.received.count == 1)
        try checkMessage(try #require(server.received.first), login: server.user, mechanism: "PLAIN")
        #expect(result.steps.first?.note == "sent to 3 recipients")
    }

    @Test func implicitTLSWithAuthLogin() async throws {
        let server = try RealSMTPServer(mode: "tls")
        defer { server.stop() }
        let (result, _) = try await run(server, security: "tls", extra: ["SMTP_AUTH": "LOGIN"])
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        try checkMessage(try #require(server.received.first), login: server.user, mechanism: "LOGIN")
    }

    @Test func anUntrustedCertificateIsRefusedAndNothingIsSent() async throws {
        let server = try RealSMTPServer(mode: "starttls")
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls", extra: ["SMTP_CA_FILE": ""])
        let text = result.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("TLS with 127.0.0.1:\(server.port) failed"), "\(text)")
        #expect(server.received.isEmpty)
    }

    @Test func aWrongPasswordIsAClearErrorThatNeverShowsThePassword() async throws {
        let server = try RealSMTPServer(mode: "starttls")
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls", extra: ["SMTP_PASSWORD": "wrong-Pa55word-QWERTY"])
        let text = result.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("refused the login") && text.contains("535"), "\(text)")
        #expect(!text.contains("wrong-Pa55word-QWERTY") && !text.contains(server.password))
        #expect(server.received.isEmpty)
    }

    /// `SMTP_SECURITY=none` with a login: refused before any connection unless the user opts in,
    /// and the opt-in holds for a server on this machine only.
    @Test func noPasswordGoesWithoutTLSUnlessAllowedForThisMachine() async throws {
        let server = try RealSMTPServer(mode: "none")
        defer { server.stop() }
        let (refused, _) = try await run(server, security: "none")
        let text = refused.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("would send the password without TLS") && text.contains("SMTP_ALLOW_PLAINTEXT_AUTH=1"), "\(text)")
        #expect(server.received.isEmpty)
        let (elsewhere, _) = try await run(server, security: "none", extra: ["SMTP_HOST": "smtp.example.com", "SMTP_ALLOW_PLAINTEXT_AUTH": "1"])
        #expect(elsewhere.failure.map { allText(of: $0) }?.contains("clear text") == true)
        #expect(server.received.isEmpty)
        let (allowed, _) = try await run(server, security: "none", extra: ["SMTP_ALLOW_PLAINTEXT_AUTH": "1"])
        #expect(allowed.succeeded, "\(allowed.failure.map { allText(of: $0) } ?? "")")
        let received = try #require(server.received.first)
        #expect(received["login"] as? String == server.user && received["tls"] as? Bool == false)
    }

    @Test func aServerWithoutStartTLSIsRefusedBeforeAnyPassword() async throws {
        let server = try RealSMTPServer(mode: "none", auth: false)
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls")
        #expect(result.failure.map { allText(of: $0) }?.contains("does not offer STARTTLS") == true)
        #expect(server.received.isEmpty)
    }

    @Test func aLostAnswerMayHaveBeenSentAndRollbackSaysItStays() async throws {
        let server = try RealSMTPServer(mode: "starttls", loseAnswers: 1)
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls")
        let failure = try #require(result.failure)
        #expect(allText(of: failure).contains("may have been delivered, so it is not sent again"), "\(allText(of: failure))")
        #expect(server.received.count == 1)
        #expect(failure.rollback.contains { $0.stays == true && ($0.error ?? "").contains("may have been sent") }, "\(failure.rollback)")
    }

    @Test func rollbackReportsASentEmailAsStaying() async throws {
        let server = try RealSMTPServer(mode: "starttls")
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls", fail: true)
        let failure = try #require(result.failure)
        #expect(server.received.count == 1)
        #expect(failure.rollback.contains { $0.stays == true && ($0.error ?? "").contains("cannot be taken back") }, "\(failure.rollback)")
    }

    @Test func badInputIsReportedAtOnceAndNothingIsSent() async throws {
        let server = try RealSMTPServer(mode: "starttls")
        defer { server.stop() }
        let (badAddress, _) = try await run(server, security: "starttls", extra: ["TO": "dev@example.com,not-an-address,x@y\r\nBcc: z@q.com"])
        let text = badAddress.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("not-an-address") && text.contains("line break"), "\(text)")
        let (badSettings, _) = try await run(server, security: "plaintext", extra: ["SMTP_PORT": "99999"])
        let settings = badSettings.failure.map { allText(of: $0) } ?? ""
        #expect(settings.contains("SMTP_SECURITY is plaintext") && settings.contains("SMTP_PORT is 99999"), "\(settings)")
        let (clear, _) = try await run(server, security: "none", extra: ["SMTP_HOST": "smtp.example.com"])
        #expect(clear.failure.map { allText(of: $0) }?.contains("clear text") == true)
        let (dry, _) = try await run(server, security: "starttls", dryRun: true)
        #expect(dry.succeeded && dry.steps.first?.note?.contains("would email dev@example.com, zoe@example.org, ops@example.com") == true)
        #expect(server.received.isEmpty)
    }

    @Test func aRefusedRecipientStopsTheEmailBeforeItGoesAndEveryRefusalIsListed() async throws {
        let server = try RealSMTPServer(mode: "starttls")
        defer { server.stop() }
        let (result, _) = try await run(server, security: "starttls", extra: ["TO": "dev@example.com,nobody@example.com,nobody@example.org"])
        let text = result.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("refused 2 recipients; nothing was sent"), "\(text)")
        #expect(text.contains("nobody@example.com: 550") && text.contains("nobody@example.org: 550"), "\(text)")
        #expect(server.received.isEmpty)
        #expect(result.failure?.rollback.contains { $0.stays == true } == false, "nothing was sent, so nothing stays: \(String(describing: result.failure?.rollback))")
    }

    @Test func encodingsFollowTheRFCs() {
        #expect(MIMEMessage.encodedWords("Plain subject") == "Plain subject")
        let words = MIMEMessage.encodedWords(String(repeating: "é", count: 40))
        #expect(words.components(separatedBy: "\r\n ").allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 })
        #expect(MIMEMessage.quotedPrintable("a=b é end ") == "a=3Db =C3=A9 end=20")
        let long = MIMEMessage.quotedPrintable(String(repeating: "x", count: 200))
        #expect(long.components(separatedBy: "\r\n").allSatisfy { $0.count <= 76 })
        #expect(SMTPClient.dotStuffed("a\r\n.b\r\n..c\r\n") == "a\r\n..b\r\n...c\r\n")
    }
}
