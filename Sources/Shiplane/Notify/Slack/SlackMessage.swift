import Foundation

/// A Slack message: a plain-text fallback and Block Kit blocks, kept within Slack's limits when encoded.
public struct SlackMessage: Sendable, Equatable {
    /// Slack's documented limits.
    package enum Limits {
        /// Characters of the fallback text.
        package static let text = 40_000
        /// Characters of a section's text.
        package static let sectionText = 3_000
        /// Characters of a header.
        package static let headerText = 150
        /// Blocks in one message.
        package static let blocks = 50
        /// Fields in one section.
        package static let fields = 10
        /// Characters of one field.
        package static let fieldText = 2_000
        /// Elements in one context block.
        package static let contextElements = 10
    }

    /// One Block Kit block.
    public enum Block: Sendable, Equatable {
        /// A header line in plain text.
        case header(String)
        /// A section of Slack `mrkdwn` text.
        case section(String)
        /// Short `mrkdwn` texts shown in two columns; more than Slack allows in one section are split over several.
        case fields([String])
        /// Small `mrkdwn` texts shown in a muted line.
        case context([String])
        /// A horizontal rule.
        case divider
    }

    /// The notification fallback text; built from the blocks when empty.
    public var text: String
    /// The blocks, in order.
    public var blocks: [Block]

    /// Creates a message from a fallback text and blocks.
    public init(text: String, blocks: [Block] = []) {
        self.text = text
        self.blocks = blocks
    }

    /// A message with the text also shown as one section.
    package static func plain(_ text: String) -> SlackMessage {
        SlackMessage(text: text, blocks: [.section(text)])
    }

    /// The message with secrets redacted from every text.
    package func redacted(by redactor: SecretRedactor) -> SlackMessage {
        SlackMessage(text: redactor.redact(text), blocks: blocks.map { block in
            switch block {
            case .header(let value): return .header(redactor.redact(value))
            case .section(let value): return .section(redactor.redact(value))
            case .fields(let values): return .fields(values.map(redactor.redact))
            case .context(let values): return .context(values.map(redactor.redact))
            case .divider: return .divider
            }
        })
    }

    // MARK: - Payload

    /// The JSON object Slack receives, truncated with a note wherever a limit would be exceeded.
    package func payload() -> [String: Any] { fitted().payload }

    /// What `payload()` cut or left out to keep Slack's limits, as a step says it (empty: nothing).
    package var cuts: [String] { fitted().cuts }

    /// The payload and what fitting it to Slack's limits cut: one pass, so what is said cut is
    /// exactly what was.
    private func fitted() -> (payload: [String: Any], cuts: [String]) {
        var cutCounts: [String: Int] = [:], cutOrder: [String] = []
        func fit(_ text: String, to limit: Int, _ what: String) -> String {
            let fitted = Self.truncate(text, to: limit)
            if fitted != text {
                let said = "\(what) cut to \(limit) characters"
                if cutCounts[said] == nil { cutOrder.append(said) }
                cutCounts[said, default: 0] += 1
            }
            return fitted
        }
        var left: [String] = []
        var blocksJSON: [[String: Any]] = []
        for block in blocks {
            switch block {
            case .header(let value) where !Self.isBlank(value):
                blocksJSON.append(["type": "header", "text": ["type": "plain_text", "text": fit(value, to: Limits.headerText, "a header"), "emoji": true]])
            case .section(let value) where !Self.isBlank(value):
                blocksJSON.append(["type": "section", "text": ["type": "mrkdwn", "text": fit(value, to: Limits.sectionText, "a section")]])
            case .fields(let values):
                let usable = values.filter { !Self.isBlank($0) }
                for start in stride(from: 0, to: usable.count, by: Limits.fields) {
                    let chunk = usable[start..<min(start + Limits.fields, usable.count)]
                    blocksJSON.append(["type": "section", "fields": chunk.map { ["type": "mrkdwn", "text": fit($0, to: Limits.fieldText, "a field")] }])
                }
            case .context(let values):
                let all = values.filter { !Self.isBlank($0) }
                let usable = all.prefix(Limits.contextElements)
                if all.count > usable.count { left.append("\(all.count - usable.count) context elements left out (Slack shows at most \(Limits.contextElements))") }
                if !usable.isEmpty {
                    blocksJSON.append(["type": "context", "elements": usable.map { ["type": "mrkdwn", "text": fit($0, to: Limits.sectionText, "a context element")] }])
                }
            case .divider:
                blocksJSON.append(["type": "divider"])
            default:
                continue
            }
        }
        if blocksJSON.count > Limits.blocks {
            let omitted = blocksJSON.count - (Limits.blocks - 1)
            blocksJSON = Array(blocksJSON.prefix(Limits.blocks - 1))
            blocksJSON.append(["type": "context", "elements": [["type": "mrkdwn", "text": "_\(omitted) more block\(omitted == 1 ? "" : "s") omitted (Slack shows at most \(Limits.blocks))_"]]])
            left.append("\(omitted) block\(omitted == 1 ? "" : "s") left out (Slack shows at most \(Limits.blocks))")
        }
        var fallback = text
        if Self.isBlank(fallback) { fallback = blocks.compactMap(Self.plainText).joined(separator: "\n") }
        if Self.isBlank(fallback) { fallback = "(no text)" }
        var payload: [String: Any] = ["text": fit(fallback, to: Limits.text, "the notification text")]
        if !blocksJSON.isEmpty { payload["blocks"] = blocksJSON }
        let cuts = cutOrder.map { said in
            let count = cutCounts[said] ?? 1
            return count == 1 ? said : said.replacingOccurrences(of: "a ", with: "\(count) ", options: .anchored)
                .replacingOccurrences(of: " cut to", with: "s cut to")
        } + left
        return (payload, cuts)
    }

    /// The payload as JSON bytes (keys sorted, so the same message gives the same bytes).
    /// - Throws: only if Foundation cannot serialise strings, which would be a bug.
    package func jsonBytes() throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: payload(), options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    private static func plainText(_ block: Block) -> String? {
        switch block {
        case .header(let value), .section(let value): return value
        case .fields(let values), .context(let values): return values.joined(separator: "\n")
        case .divider: return nil
        }
    }

    private static func isBlank(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// What ends a text cut to Slack's limits.
    static let truncationNote = "… (truncated)"

    /// Cuts `text` to at most `limit` UTF-16 units (how Slack counts), ending with a note when cut.
    static func truncate(_ text: String, to limit: Int) -> String {
        guard text.utf16.count > limit else { return text }
        let note = truncationNote
        let budget = max(0, limit - note.utf16.count)
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf16.count
            if used + size > budget { break }
            result.append(character)
            used += size
        }
        return result + note
    }
}
