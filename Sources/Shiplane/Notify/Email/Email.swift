import Foundation

/// Sends an email over SMTP: a `multipart/alternative` message with a plain-text and an HTML part,
/// to several recipients, through the server `SMTP_HOST` with STARTTLS or TLS and a login.
///
/// The text, HTML and subject are redacted before they go; the password never appears anywhere.
/// An email cannot be taken back: rollback reports it as staying. One whose answer was lost is
/// not sent again by a retry unless `delivery` is `.atLeastOnce`.
package struct Email: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "email"
    /// The recipients (`To`), `local@domain` or `Name <local@domain>`.
    package var to: [String]
    /// The subject line.
    package var subject: String
    /// The plain-text body.
    package var text: String
    /// The HTML body; nil: made from `text`.
    package var html: String?
    /// The sender; nil: `SMTP_FROM`.
    package var from: String?
    /// Copies (`Cc`).
    package var cc: [String]
    /// What a retry does with an email whose answer was lost.
    package var delivery: Delivery

    /// Creates the action that emails `text` (and `html`) to `to`.
    package init(to: [String], subject: String, text: String, html: String? = nil, from: String? = nil, cc: [String] = [],
                delivery: Delivery = .atMostOnce) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.from = from
        self.cc = cc
        self.delivery = delivery
    }

    /// The recipients and the subject (the server's password is not an option).
    package var options: [StepOption] {
        var shown = [StepOption("to", to.joined(separator: ", ")), StepOption("subject", subject)]
        if !cc.isEmpty { shown.append(StepOption("cc", cc.joined(separator: ", "))) }
        if delivery != .atMostOnce { shown.append(StepOption("delivery", delivery.rawValue)) }
        return shown
    }

    /// Sends the email; in a dry run only says what it would send, to whom, through which server.
    /// - Throws: `EmailError` for bad addresses or settings, a refusing or unreachable server, a lost answer.
    package func run(in step: StepContext) async throws {
        var problems: [String] = []
        func parse(_ texts: [String]) -> [EmailAddress] {
            texts.compactMap { text in
                do { return try EmailAddress(parsing: text) } catch { problems.append(describe(error)); return nil }
            }
        }
        let recipients = parse(to)
        let copies = parse(cc)
        let senderText = from ?? step.lane.environment["SMTP_FROM"] ?? ""
        let sender = senderText.isEmpty ? nil : parse([senderText]).first
        if to.isEmpty { problems.append("no recipient: give at least one address in `to:`") }
        if subject.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) { problems.append("the subject holds a line break") }
        if sender == nil, from == nil, step.lane.environment["SMTP_FROM"]?.isEmpty != false { problems.append("no sender: set SMTP_FROM or pass `from:`") }
        guard problems.isEmpty, let sender else { throw EmailError.invalidMessage(problems) }
        let settings = try SMTPSettings(environment: step.lane.environment)
        let client = SMTPClient(settings: settings, redactor: step.lane.redactor)
        let redactor = client.redactor
        let message = MIMEMessage(from: sender, to: recipients, cc: copies, subject: redactor.redact(subject),
                                  text: redactor.redact(text), html: redactor.redact(html ?? MIMEMessage.html(fromText: text)))
        let everyone = (recipients + copies).map(\.address)
        if step.isDryRun {
            step.note("would email \(everyone.joined(separator: ", ")) through \(settings.server): \(message.subject)")
            return
        }
        let destination = "email to \(everyone.joined(separator: ", "))"
        let intended = EmailSent(server: settings.server, recipients: everyone.count, subject: message.subject)
        let now = step.lane.state.now()
        let outcome = try await step.deliverOnce(
            intended, "\(destination) (\(message.subject))", destination: destination, delivery: delivery,
            nothingHappened: { ($0 as? EmailError)?.nothingSent ?? false }
        ) {
            let data = message.rendered(date: now, messageID: "\(UUID().uuidString.lowercased())@\(sender.domain)",
                                        boundary: "shiplane-\(UUID().uuidString)",
                                        extraHeaders: [("X-Shiplane-Marker", step.messageMarker)])
            var sent = intended
            sent.reply = redactor.redact(try await client.send(data, from: sender.address, to: everyone))
            return sent
        }
        if outcome == .sent { step.note("sent to \(everyone.count) recipient\(everyone.count == 1 ? "" : "s")") }
    }
}

extension LaneContext {
    /// Emails `text` (and `html`, or HTML made from the text) to `to` through `SMTP_HOST`.
    public func email(
        to: [String], subject: String, text: String, html: String? = nil, from: String? = nil, cc: [String] = [],
        delivery: Delivery = .atMostOnce, file: String = #fileID, line: Int = #line
    ) async throws {
        try await run(Email(to: to, subject: subject, text: text, html: html, from: from, cc: cc, delivery: delivery), file: file, line: line)
    }
}

extension Email: DocumentedAction {
    /// How `lane.email` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Notify",
        summary: "Send an email over SMTP (SMTP_HOST, SMTP_PORT, SMTP_SECURITY starttls|tls, SMTP_USERNAME, SMTP_PASSWORD, SMTP_FROM, SMTP_CA_FILE): a plain-text and an HTML part, several recipients, redacted, sent once",
        signature: "try await lane.email(to: [String], subject: String, text: String, html: String? = nil, from: String? = nil, cc: [String] = [], delivery: Delivery = .atMostOnce)",
        parameters: [
            .init(name: "to", type: "[String]", defaultValue: nil, help: "recipients, local@domain or Name <local@domain>"),
            .init(name: "subject", type: "String", defaultValue: nil, help: "the subject (RFC 2047 encoded when not ASCII)"),
            .init(name: "text", type: "String", defaultValue: nil, help: "the plain-text part"),
            .init(name: "html", type: "String?", defaultValue: "nil", help: "the HTML part; nil: made from the text"),
            .init(name: "from", type: "String?", defaultValue: "SMTP_FROM", help: "the sender"),
            .init(name: "cc", type: "[String]", defaultValue: "[]", help: "copies"),
            .init(name: "delivery", type: "Delivery", defaultValue: ".atMostOnce", help: "an email whose answer was lost is not sent again by the retry (.atLeastOnce: it is)")
        ],
        example: #"try await lane.email(to: ["team@example.com"], subject: "Released \(version)", text: notes)"#,
        dryRun: "says what it would send, to whom, through which server",
        rollback: "written down before it goes; an email cannot be taken back, so rollback reports it as staying"
    )
}

extension Email: Announcer {
    /// The service's name in messages.
    package static let service = "email"
    /// `SMTP_HOST` selects it; the other `SMTP_` variables configure the connection.
    package static let configuration = ["SMTP_HOST", "SMTP_PORT", "SMTP_SECURITY", "SMTP_USERNAME", "SMTP_PASSWORD", "SMTP_FROM", "SMTP_CA_FILE"]
    /// No limit of its own: the server's `SIZE` decides; lines are encoded to fit SMTP's 998 bytes.
    package static let limits = AnnouncerLimits(characters: nil, bytes: nil, lineBytes: 998)
    /// The server's `250` after the data: relayed, never taken back.
    package static let semantics = AnnouncerSemantics(answer: "250 after DATA (accepted for delivery)", findsLostMessage: false, undoable: false)

    /// The step for `.email(…)`: the plain text and HTML made from it, with a link to the release.
    package static func action(for target: AnnouncementTarget, announcement: Announcement, delivery: Delivery) -> Email? {
        guard case let .email(to, cc, from) = target else { return nil }
        let text = announcement.plainText
        var html = MIMEMessage.html(fromText: text)
        if let url = announcement.url, let link = LaneContext.htmlLink(url) { html = html.replacingOccurrences(of: "</body>", with: "<p>\(link)</p>\n</body>") }
        return Email(to: to, subject: announcement.title, text: text, html: html, from: from, cc: cc, delivery: delivery)
    }

    /// The mail as `run(in:)` hands it to the server after DATA (a fixed date, id and boundary).
    /// - Throws: `EmailError.invalidMessage` for an address that does not parse, or no `from`.
    package func messageAsSent() throws -> AnnouncerMessage {
        guard let from else { throw EmailError.invalidMessage(["no sender: pass `from:`"]) }
        let message = MIMEMessage(from: try EmailAddress(parsing: from), to: try to.map(EmailAddress.init(parsing:)),
                                  cc: try cc.map(EmailAddress.init(parsing:)), subject: subject, text: text,
                                  html: html ?? MIMEMessage.html(fromText: text))
        let data = message.rendered(date: Date(timeIntervalSince1970: 0), messageID: "contract@example.com", boundary: "shiplane-contract")
        return AnnouncerMessage(body: Array(data.utf8), counted: text, cuts: [])
    }
}
