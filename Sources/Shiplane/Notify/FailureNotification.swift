import Foundation

/// A failure summary for on-error hooks, as Slack blocks, plain text or webhook values — always redacted.
public struct FailureNotification: Sendable {
    /// One line: what failed and where.
    public var title: String
    /// The longer account (an error tree or a log excerpt); may be empty.
    public var details: String
    /// Short facts as key and value, in the order they are shown.
    public var facts: [(key: String, value: String)]

    /// Creates a notification from a title, details and facts.
    /// - Parameters:
    ///   - title: one line, e.g. "Lane release failed at githubRelease (Lanes/Release.swift:31)".
    ///   - details: the rendered error tree or log excerpt.
    ///   - facts: short key/values (version, branch, CI run URL).
    public init(title: String, details: String, facts: [(key: String, value: String)] = []) {
        self.title = title
        self.details = details
        self.facts = facts
    }

    /// What a failed lane left: where it failed, why, and what rollback did, as facts.
    public init(_ failure: LaneFailure) {
        var facts: [(key: String, value: String)] = []
        if let step = failure.failingStep {
            facts.append(("at", "\(step.callSite?.description ?? step.step): \(describe(step.cause))"))
        }
        let undone = failure.rollback.filter(\.undone).map(\.description)
        if !undone.isEmpty { facts.append(("rolled back", undone.joined(separator: "; "))) }
        for stays in failure.rollback where stays.stays == true {
            facts.append(("stays", stays.error ?? stays.description))
        }
        for kept in failure.rollback where !kept.isSettled {
            facts.append(("could not roll back", "\(kept.description): \(kept.error ?? "unknown")"))
        }
        self.init(title: failure.message, details: "", facts: facts)
    }

    /// The summary as plain text, redacted.
    package func text(redactor: SecretRedactor) -> String {
        var lines = [title]
        lines += facts.map { "\($0.key): \($0.value)" }
        if !details.isEmpty { lines.append(details) }
        return redactor.redact(lines.joined(separator: "\n"))
    }

    /// The summary as a Slack message with the details in a code block, redacted and within limits.
    package func slackMessage(redactor: SecretRedactor) -> SlackMessage {
        var blocks: [SlackMessage.Block] = [.header(":x: " + title)]
        if !facts.isEmpty { blocks.append(.fields(facts.map { "*\($0.key)*\n\($0.value)" })) }
        if !details.isEmpty {
            let room = SlackMessage.Limits.sectionText - 8
            // Redact before cutting, so a secret cut in half cannot slip through.
            let body = SlackMessage.truncate(redactor.redact(details), to: room)
            blocks.append(.section("```\n" + body + "\n```"))
        }
        return SlackMessage(text: title, blocks: blocks).redacted(by: redactor)
    }

    /// Values for a `JSONTemplate`: `title`, `details`, `text`, and each fact by its key.
    package func templateValues(redactor: SecretRedactor) -> [String: String] {
        var values: [String: String] = ["title": title, "details": details, "text": text(redactor: redactor)]
        for fact in facts { values[fact.key] = fact.value }
        return values.mapValues { redactor.redact($0) }
    }
}
