import Foundation

/// What an announcement says, whatever the service: each service renders it in its own shape
/// (Slack blocks, a Discord embed, a Teams Adaptive Card, Mattermost Markdown, an email) within
/// its own limits, with secrets redacted.
public struct Announcement: Sendable {
    /// One line: "Released 1.2.0".
    public var title: String
    /// The body (release notes, an error tree); may be empty.
    public var text: String
    /// The version released, when there is one.
    public var version: String?
    /// The release's page, when there is one.
    public var url: String?
    /// Short facts as key and value, in the order they are shown.
    public var facts: [(key: String, value: String)]

    /// Creates an announcement.
    public init(title: String, text: String = "", version: String? = nil, url: String? = nil, facts: [(key: String, value: String)] = []) {
        self.title = title
        self.text = text
        self.version = version
        self.url = url
        self.facts = facts
    }

    /// A failed lane's summary (`onError`), as an announcement: where, why, what rollback did.
    public init(_ failure: FailureNotification) {
        self.init(title: failure.title, text: failure.details, facts: failure.facts)
    }

    /// The facts with the version first, when there is one.
    var allFacts: [(key: String, value: String)] {
        (version.map { [("Version", $0)] } ?? []) + facts
    }

    /// The announcement with secrets redacted from every text.
    func redacted(by redactor: SecretRedactor) -> Announcement {
        Announcement(title: redactor.redact(title), text: redactor.redact(text), version: version.map(redactor.redact),
                     url: url.map(redactor.redact), facts: facts.map { (redactor.redact($0.key), redactor.redact($0.value)) })
    }

    /// Plain text: the title, the facts, the text, the URL.
    var plainText: String {
        var lines = [title]
        lines += allFacts.map { "\($0.key): \($0.value)" }
        if !text.isEmpty { lines += ["", text] }
        if let url { lines += ["", url] }
        return lines.joined(separator: "\n")
    }

    /// Markdown: a heading, the facts as a list, the text, the URL as a link.
    var markdown: String {
        var lines = ["#### " + title]
        if !allFacts.isEmpty { lines += [""] + allFacts.map { "- **\($0.key)**: \($0.value)" } }
        if !text.isEmpty { lines += ["", text] }
        if let url { lines += ["", "[View the release](\(url))"] }
        return lines.joined(separator: "\n")
    }

    /// The announcement as a Slack message: a header, the facts as fields, the text, the URL.
    var slackMessage: SlackMessage {
        var blocks: [SlackMessage.Block] = [.header(title)]
        if !allFacts.isEmpty { blocks.append(.fields(allFacts.map { "*\($0.key)*\n\($0.value)" })) }
        if !text.isEmpty { blocks.append(.section(text)) }
        if let url { blocks.append(.context(["<\(url)|View the release>"])) }
        return SlackMessage(text: title, blocks: blocks)
    }

    /// Cuts `text` to at most `limit` bytes of UTF-8 (a service that limits a message's size, as
    /// Teams does), never splitting a character, ending with "…" (3 bytes) when cut.
    static func truncate(_ text: String, toBytes limit: Int) -> (text: String, cut: Bool) {
        truncate(text, to: limit, measuredBy: { $0.utf8.count })
    }

    /// Cuts `text` until `encodedSize` of it — the whole message as sent, with the text in it —
    /// is at most `limit` bytes (a service that limits a message's size: Teams, Google Chat),
    /// whole characters, ending with "…"; empty when even no text is over. JSON escapes make a
    /// byte of text cost up to six as sent, so each round cuts in proportion to what the text
    /// costs, and a few rounds settle it.
    static func fit(_ text: String, toBytes limit: Int, encodedSize: (String) -> Int) -> (text: String, cut: Bool) {
        var text = text
        var size = encodedSize(text)
        guard size > limit else { return (text, false) }
        let overhead = encodedSize("")
        while size > limit, !text.isEmpty {
            let allowed = max(0, limit - overhead)
            let budget = text.utf8.count * allowed / max(1, size - overhead) - 8
            text = budget <= 3 ? "" : truncate(String(text.dropLast()), toBytes: budget).text
            size = encodedSize(text)
        }
        return (text, true)
    }

    /// Cuts `text` to at most `limit` Unicode scalars (how Discord, Teams and Mattermost count,
    /// or stricter), never splitting a character, ending with "…" when cut.
    static func truncate(_ text: String, to limit: Int) -> (text: String, cut: Bool) {
        truncate(text, to: limit, measuredBy: { $0.unicodeScalars.count })
    }

    /// Cuts `text` to at most `limit` as `size` measures it, whole characters, with "…" when cut.
    private static func truncate(_ text: String, to limit: Int, measuredBy size: (String) -> Int) -> (text: String, cut: Bool) {
        guard size(text) > limit else { return (text, false) }
        let ellipsis = size("…")
        var result = ""
        var used = 0
        for character in text {
            let width = size(String(character))
            if used + width + ellipsis > limit { break }
            result.append(character)
            used += width
        }
        return (result + "…", true)
    }
}
