import Foundation

/// Why an email was not sent.
package enum EmailError: ReportableError {
    /// An address that is not `local@domain` (or `Name <local@domain>`); `reason` says what is wrong.
    case invalidAddress(String, reason: String)
    /// The email as asked for cannot be sent: every problem found (addresses, sender, subject).
    case invalidMessage([String])
    /// A setting is missing or wrong (`SMTP_HOST`, `SMTP_PORT`, `SMTP_SECURITY`, …).
    case invalidSettings(String, suggestion: String)
    /// The server could not be reached or spoke no SMTP.
    case connectionFailed(server: String, reason: String)
    /// TLS could not be set up (the certificate is not trusted, the server offers no STARTTLS).
    case tlsFailed(server: String, reason: String)
    /// The server refused the user name and password (535), or offers no method Shiplane speaks.
    case authenticationFailed(server: String, reply: String)
    /// The server refused a command before the message went: nothing was sent.
    case refused(command: String, reply: String)
    /// The server refused some recipients: nothing was sent.
    case recipientsRefused([String])
    /// The message was sent, then the server's answer never came: it may have been delivered.
    case answerLost(server: String, reason: String)

    /// Says what was not sent and why.
    package var message: String {
        switch self {
        case let .invalidAddress(address, reason): return "invalid email address \(address): \(reason)"
        case .invalidMessage(let problems): return "the email cannot be sent: \(problems.count) problem\(problems.count == 1 ? "" : "s")"
        case .invalidSettings(let what, _): return "invalid email settings: \(what)"
        case let .connectionFailed(server, reason): return "cannot talk SMTP to \(server): \(reason)"
        case let .tlsFailed(server, reason): return "TLS with \(server) failed: \(reason)"
        case let .authenticationFailed(server, reply): return "\(server) refused the login: \(reply)"
        case let .refused(command, reply): return "the SMTP server refused \(command): \(reply)"
        case .recipientsRefused(let refusals): return "the SMTP server refused \(refusals.count) recipient\(refusals.count == 1 ? "" : "s"); nothing was sent"
        case let .answerLost(server, reason): return "the email was handed to \(server) but its answer never came (\(reason)): it may have been delivered, so it is not sent again"
        }
    }

    /// Each refused recipient with the server's reply.
    package var info: [(key: String, value: String)] {
        if case .recipientsRefused(let refusals) = self { return refusals.map { ("recipient", $0) } }
        if case .invalidMessage(let problems) = self { return problems.map { ("problem", $0) } }
        return []
    }

    /// What to do next.
    package var suggestion: String? {
        switch self {
        case .invalidAddress, .invalidMessage: return "write each address as local@domain or \"Name <local@domain>\""
        case .invalidSettings(_, let suggestion): return suggestion
        case .connectionFailed: return "check SMTP_HOST and SMTP_PORT (587 for STARTTLS, 465 for implicit TLS) and that the server is up"
        case .tlsFailed: return "check SMTP_SECURITY (starttls on 587, tls on 465); for a private CA set SMTP_CA_FILE to its PEM certificate"
        case .authenticationFailed: return "check SMTP_USERNAME and SMTP_PASSWORD (many providers want an app password)"
        case .refused, .recipientsRefused: return nil
        case .answerLost: return "check the recipients' inboxes; to send it anyway pass `delivery: .atLeastOnce` and run again"
        }
    }

    /// True when the server surely did not take the message (everything but a lost answer).
    var nothingSent: Bool {
        if case .answerLost = self { return false }
        return true
    }
}
