import Foundation
internal import NIOSSL

/// How the SMTP connection is protected.
package enum SMTPSecurity: String, Sendable, Codable, CaseIterable {
    /// Plain TCP, then `STARTTLS` before anything else (port 587); a server without it is refused.
    case starttls
    /// TLS from the first byte (port 465).
    case tls
    /// No TLS: only for a server on this machine (127.0.0.1, ::1, localhost), never with a password elsewhere.
    case none
}

/// Where and how email is sent: read from `SMTP_HOST`, `SMTP_PORT`, `SMTP_SECURITY`,
/// `SMTP_USERNAME`, `SMTP_PASSWORD`, `SMTP_CA_FILE`.
package struct SMTPSettings: Sendable {
    /// The server's name or address.
    package var host: String
    /// The port: 587 for STARTTLS, 465 for TLS by default.
    package var port: Int
    /// STARTTLS, TLS or none.
    package var security: SMTPSecurity
    /// The login, when the server wants one.
    package var username: String?
    /// The password (a secret: redacted everywhere).
    package var password: String?
    /// A PEM file of certificates to trust instead of the system's (a private CA, a test server).
    package var caFile: String?
    /// AUTH PLAIN or LOGIN; nil: PLAIN when offered, else LOGIN.
    package var authMethod: String?
    /// True when the user allowed a login without TLS to a server on this machine
    /// (`SMTP_ALLOW_PLAINTEXT_AUTH=1`, e.g. a local relay); never for another host.
    package var allowsPlaintextLogin = false
    /// Seconds to connect, and to wait for each reply.
    package var connectTimeout = 10.0, replyTimeout = 30.0

    /// Creates settings.
    package init(host: String, port: Int, security: SMTPSecurity, username: String? = nil, password: String? = nil,
                caFile: String? = nil, authMethod: String? = nil, allowsPlaintextLogin: Bool = false) {
        self.allowsPlaintextLogin = allowsPlaintextLogin
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.caFile = caFile
        self.authMethod = authMethod
    }

    /// Reads the settings from the environment, every problem at once.
    /// - Throws: `EmailError.invalidSettings` naming each missing or wrong variable.
    package init(environment: LaneEnvironment) throws {
        var problems: [String] = []
        let host = environment["SMTP_HOST"]?.trimmingCharacters(in: .whitespaces) ?? ""
        if host.isEmpty { problems.append("SMTP_HOST is not set") }
        let securityText = (environment["SMTP_SECURITY"] ?? "starttls").lowercased()
        let security = SMTPSecurity(rawValue: securityText)
        if security == nil { problems.append("SMTP_SECURITY is \(securityText), not starttls, tls or none") }
        var port = security == .tls ? 465 : security == SMTPSecurity.none ? 25 : 587
        if let text = environment["SMTP_PORT"], !text.isEmpty {
            if let value = Int(text), (1...65_535).contains(value) { port = value } else { problems.append("SMTP_PORT is \(text), not a port number") }
        }
        let username = environment["SMTP_USERNAME"].flatMap { $0.isEmpty ? nil : $0 }
        let password = environment["SMTP_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        if username != nil && password == nil { problems.append("SMTP_USERNAME is set but SMTP_PASSWORD is not") }
        if password != nil && username == nil { problems.append("SMTP_PASSWORD is set but SMTP_USERNAME is not") }
        let method = environment["SMTP_AUTH"].flatMap { $0.isEmpty ? nil : $0.uppercased() }
        if let method, method != "PLAIN" && method != "LOGIN" { problems.append("SMTP_AUTH is \(method), not PLAIN or LOGIN") }
        if security == SMTPSecurity.none, !Self.isLoopback(host) {
            problems.append("SMTP_SECURITY=none sends in clear text: only allowed for a server on this machine, not \(host)")
        }
        let allowsPlaintextLogin = environment["SMTP_ALLOW_PLAINTEXT_AUTH"] == "1"
        if security == SMTPSecurity.none, Self.isLoopback(host), username != nil, !allowsPlaintextLogin {
            problems.append("SMTP_SECURITY=none with SMTP_USERNAME would send the password without TLS: use SMTP_SECURITY=starttls or tls, or, for a relay on this machine only, set SMTP_ALLOW_PLAINTEXT_AUTH=1")
        }
        guard problems.isEmpty, let security else {
            throw EmailError.invalidSettings(problems.joined(separator: "; "),
                                             suggestion: "set SMTP_HOST (and SMTP_PORT, SMTP_SECURITY=starttls|tls, SMTP_USERNAME, SMTP_PASSWORD) in .env or the CI secrets")
        }
        self.init(host: host, port: port, security: security, username: username, password: password,
                  caFile: environment["SMTP_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }, authMethod: method,
                  allowsPlaintextLogin: allowsPlaintextLogin)
    }

    static func isLoopback(_ host: String) -> Bool { ["127.0.0.1", "::1", "localhost"].contains(host.lowercased()) }

    /// `host:port`, as messages show the server.
    package var server: String { "\(host):\(port)" }
}

/// Sends email over SMTP (RFC 5321): `EHLO`, `STARTTLS` or implicit TLS, `AUTH PLAIN` or `LOGIN`,
/// `MAIL FROM`, one `RCPT TO` per recipient, `DATA` with dot-stuffing, `QUIT`.
package struct SMTPClient: Sendable {
    /// Where and how.
    package let settings: SMTPSettings
    /// Removes the password (and every other secret) from what errors quote of the server.
    let redactor: SecretRedactor

    /// Creates a client; the password joins the redactor.
    package init(settings: SMTPSettings, redactor: SecretRedactor) {
        self.settings = settings
        self.redactor = redactor.adding([settings.password].compactMap { $0 })
    }

    /// Sends `data` (a rendered message) from `from` to every address of `recipients`; returns the
    /// server's reply to the message (its queue id, often).
    /// - Throws: `EmailError`: `.answerLost` only when the message was handed over and the answer
    ///   never came; every other error means nothing was sent.
    package func send(_ data: String, from: String, to recipients: [String]) async throws -> String {
        let tlsContext = try makeTLSContext()
        let connection = try await SMTPConnection.open(
            host: settings.host, port: settings.port, tls: settings.security == .tls ? tlsContext : nil,
            connectTimeout: settings.connectTimeout, replyTimeout: settings.replyTimeout)
        do {
            let reply = try await converse(connection, data: data, from: from, recipients: recipients, tls: tlsContext)
            await connection.close()
            return reply
        } catch {
            await connection.close()
            if let email = error as? EmailError { throw redacted(email) }
            throw error
        }
    }

    private func makeTLSContext() throws -> NIOSSLContext? {
        guard settings.security != .none else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let caFile = settings.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw EmailError.invalidSettings("SMTP_CA_FILE \(caFile) cannot be read", suggestion: "point SMTP_CA_FILE at a PEM certificate file")
            }
            configuration.trustRoots = .file(caFile)
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw EmailError.tlsFailed(server: settings.server, reason: "cannot set up TLS: \(describe(error))")
        }
    }

    private func expect(_ reply: SMTPConnection.Reply, _ codes: Set<Int>, _ command: String) throws {
        guard codes.contains(reply.code) else { throw EmailError.refused(command: command, reply: reply.text) }
    }

    private func converse(_ connection: SMTPConnection, data: String, from: String, recipients: [String], tls: NIOSSLContext?) async throws -> String {
        try expect(try await connection.readReply(), [220], "the connection")
        let name = "shiplane.localhost"
        var hello = try await connection.command("EHLO \(name)")
        try expect(hello, [250], "EHLO")
        if settings.security == .starttls, let tls {
            guard hello.lines.contains(where: { $0.uppercased().hasPrefix("STARTTLS") }) else {
                throw EmailError.tlsFailed(server: settings.server, reason: "the server does not offer STARTTLS")
            }
            try expect(try await connection.command("STARTTLS"), [220], "STARTTLS")
            try await connection.startTLS(tls, host: settings.host)
            hello = try await connection.command("EHLO \(name)")
            try expect(hello, [250], "EHLO after STARTTLS")
        }
        if let username = settings.username, let password = settings.password {
            try await authenticate(connection, hello: hello, username: username, password: password)
        }
        try expect(try await connection.command("MAIL FROM:<\(from)>"), [250], "MAIL FROM:<\(from)>")
        var refusals: [String] = []
        for recipient in recipients {
            let reply = try await connection.command("RCPT TO:<\(recipient)>")
            if reply.code != 250 && reply.code != 251 { refusals.append("\(recipient): \(reply.text)") }
        }
        guard refusals.isEmpty else {
            _ = try? await connection.command("RSET")
            throw EmailError.recipientsRefused(refusals)
        }
        try expect(try await connection.command("DATA"), [354], "DATA")
        try await connection.write(Array(Self.dotStuffed(data).utf8) + Array(".\r\n".utf8))
        let accepted: SMTPConnection.Reply
        do {
            accepted = try await connection.readReply()
        } catch let error as EmailError {
            // The whole message went out; whether the server kept it is unknown.
            throw EmailError.answerLost(server: settings.server, reason: error.message)
        }
        try expect(accepted, [250], "the message")
        _ = try? await connection.command("QUIT")
        return accepted.text
    }

    private func authenticate(_ connection: SMTPConnection, hello: SMTPConnection.Reply, username: String, password: String) async throws {
        let offered = Set(hello.lines.filter { $0.uppercased().hasPrefix("AUTH") }
            .flatMap { $0.dropFirst(4).split(whereSeparator: { $0 == " " || $0 == "=" }).map { $0.uppercased() } })
        let method = settings.authMethod ?? (offered.contains("PLAIN") ? "PLAIN" : "LOGIN")
        guard !offered.isEmpty else {
            throw EmailError.authenticationFailed(server: settings.server, reply: "the server offers no AUTH (some offer it only over TLS)")
        }
        guard offered.contains(method) else {
            throw EmailError.authenticationFailed(server: settings.server, reply: "the server offers AUTH \(offered.sorted().joined(separator: " ")), not \(method)")
        }
        // A password goes without TLS only to this machine, and only when the user said so.
        if settings.security == .none, !(SMTPSettings.isLoopback(settings.host) && settings.allowsPlaintextLogin) {
            throw EmailError.tlsFailed(server: settings.server, reason: "a password is never sent without TLS (SMTP_ALLOW_PLAINTEXT_AUTH=1 allows it to a server on this machine)")
        }
        let final: SMTPConnection.Reply
        if method == "PLAIN" {
            let credentials = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            final = try await connection.command("AUTH PLAIN \(credentials)")
        } else {
            let start = try await connection.command("AUTH LOGIN")
            guard start.code == 334 else { throw EmailError.authenticationFailed(server: settings.server, reply: start.text) }
            let user = try await connection.command(Data(username.utf8).base64EncodedString())
            guard user.code == 334 else { throw EmailError.authenticationFailed(server: settings.server, reply: user.text) }
            final = try await connection.command(Data(password.utf8).base64EncodedString())
        }
        guard final.code == 235 else { throw EmailError.authenticationFailed(server: settings.server, reply: final.text) }
    }

    /// The message with every line that starts with a dot given a second one (RFC 5321 4.5.2),
    /// ending in CRLF.
    static func dotStuffed(_ data: String) -> String {
        var lines = data.components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        return lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n") + "\r\n"
    }

    private func redacted(_ error: EmailError) -> EmailError {
        switch error {
        case let .connectionFailed(server, reason): return .connectionFailed(server: server, reason: redactor.redact(reason))
        case let .tlsFailed(server, reason): return .tlsFailed(server: server, reason: redactor.redact(reason))
        case let .authenticationFailed(server, reply): return .authenticationFailed(server: server, reply: redactor.redact(reply))
        case let .refused(command, reply): return .refused(command: command, reply: redactor.redact(reply))
        case .recipientsRefused(let refusals): return .recipientsRefused(refusals.map(redactor.redact))
        case let .answerLost(server, reason): return .answerLost(server: server, reason: redactor.redact(reason))
        case .invalidAddress, .invalidSettings, .invalidMessage: return error
        }
    }
}
