/// Parses conventional commit messages in one pass over their UTF-8 bytes, without regular
/// expressions, so that 100,000 messages parse in well under a second.
///
/// The rules, following Conventional Commits 1.0.0 and git trailers:
/// - Leading blank lines are skipped; `\r\n` line endings are treated as `\n`.
/// - Header: `type(scope)!: description`. The type starts with an ASCII letter and holds ASCII
///   letters, digits, `-` and `_`; the scope holds no parentheses; the colon must be followed by
///   a space or tab, and the description must not be empty.
/// - Footers start at the first line that opens a paragraph (follows a blank line or the header)
///   and reads `Token: value` or `Token #value`, where a token is ASCII letters, digits and `-`,
///   or the exact words `BREAKING CHANGE` / `BREAKING-CHANGE`. Every later line that does not
///   start a new footer, blank lines included, continues the previous footer's value.
/// - Everything between the header and the footers is the body.
enum ConventionalCommitParser {
    /// Parses `message`; nil when it is not a conventional commit.
    static func parse(_ message: String) -> ConventionalCommit? {
        let lines = ChangelogTextLines.split(message)
        var headerIndex = 0
        while headerIndex < lines.count, ChangelogTextLines.isBlank(lines[headerIndex]) {
            headerIndex += 1
        }
        guard headerIndex < lines.count, let header = parseHeader(lines[headerIndex]) else {
            return nil
        }

        // MARK: - Footers

        let firstBodyIndex = headerIndex + 1
        var footerStart = lines.count
        var index = firstBodyIndex
        while index < lines.count {
            let opensParagraph = index == firstBodyIndex || ChangelogTextLines.isBlank(lines[index - 1])
            if opensParagraph, footerOpening(lines[index]) != nil {
                footerStart = index
                break
            }
            index += 1
        }

        var footers: [ConventionalCommitFooter] = []
        var currentValueLines: [Substring] = []
        var current: (token: String, separator: ConventionalCommitFooter.Separator)?
        func finishFooter() {
            guard let open = current else { return }
            footers.append(
                ConventionalCommitFooter(
                    token: open.token, separator: open.separator,
                    value: ChangelogTextLines.joinTrimmingBlankEdges(currentValueLines)))
        }
        index = footerStart
        while index < lines.count {
            if let opening = footerOpening(lines[index]) {
                finishFooter()
                current = (opening.token, opening.separator)
                currentValueLines = [opening.value]
            } else {
                currentValueLines.append(lines[index])
            }
            index += 1
        }
        finishFooter()

        // MARK: - Body, breaking change, issues

        let bodyText = ChangelogTextLines.joinTrimmingBlankEdges(lines[min(firstBodyIndex, footerStart)..<footerStart])
        let breakingFooter = footers.first(where: \.isBreakingChange)
        let isBreaking = header.hasBang || breakingFooter != nil
        var breakingDescription: String?
        if isBreaking {
            if let value = breakingFooter?.value, !value.isEmpty {
                breakingDescription = value
            } else {
                breakingDescription = header.description
            }
        }

        var issues = IssueReferenceScanner()
        issues.scan(header.description)
        for footer in footers where footer.isIssueReference {
            if footer.separator == .hash {
                issues.scan("#" + footer.value)
            } else {
                issues.scan(footer.value)
            }
        }

        return ConventionalCommit(
            type: header.type,
            scope: header.scope,
            description: header.description,
            body: bodyText.isEmpty ? nil : bodyText,
            footers: footers,
            isBreaking: isBreaking,
            breakingDescription: breakingDescription,
            issueReferences: issues.numbers
        )
    }

    // MARK: - Header

    struct Header {
        var type: String
        var scope: String?
        var hasBang: Bool
        var description: String
    }

    /// Parses `type(scope)!: description`; nil when the line does not have that shape.
    static func parseHeader(_ line: Substring) -> Header? {
        let bytes = line.utf8
        let end = bytes.endIndex
        var position = bytes.startIndex
        guard position != end, CommitTextBytes.isLetter(bytes[position]) else { return nil }
        while position != end, CommitTextBytes.isTypeByte(bytes[position]) {
            bytes.formIndex(after: &position)
        }
        let type = String(line.unicodeScalars[bytes.startIndex..<position]).lowercased()

        var scope: String?
        if position != end, bytes[position] == CommitTextBytes.openParenthesis {
            let scopeStart = bytes.index(after: position)
            var scopeEnd = scopeStart
            while scopeEnd != end, bytes[scopeEnd] != CommitTextBytes.closeParenthesis {
                if bytes[scopeEnd] == CommitTextBytes.openParenthesis { return nil }
                bytes.formIndex(after: &scopeEnd)
            }
            guard scopeEnd != end else { return nil }
            let trimmed = ChangelogTextLines.trimmed(line.unicodeScalars[scopeStart..<scopeEnd])
            scope = trimmed.isEmpty ? nil : trimmed
            position = bytes.index(after: scopeEnd)
        }

        var hasBang = false
        if position != end, bytes[position] == CommitTextBytes.exclamationMark {
            hasBang = true
            bytes.formIndex(after: &position)
        }
        guard position != end, bytes[position] == CommitTextBytes.colon else { return nil }
        bytes.formIndex(after: &position)
        guard position != end, CommitTextBytes.isSpaceOrTab(bytes[position]) else { return nil }
        let description = ChangelogTextLines.trimmed(line.unicodeScalars[position..<end])
        guard !description.isEmpty else { return nil }
        return Header(type: type, scope: scope, hasBang: hasBang, description: description)
    }

    // MARK: - Footer opening

    struct FooterOpening {
        var token: String
        var separator: ConventionalCommitFooter.Separator
        var value: Substring
    }

    private static let breakingTokens = ["BREAKING CHANGE", "BREAKING-CHANGE"]

    /// Reads `Token: value` or `Token #value` at the start of `line`; nil when the line is not a
    /// footer opening.
    static func footerOpening(_ line: Substring) -> FooterOpening? {
        let bytes = line.utf8
        for breaking in breakingTokens where bytes.starts(with: breaking.utf8) {
            let tokenEnd = bytes.index(bytes.startIndex, offsetBy: breaking.utf8.count)
            if let opening = footerOpening(line, tokenEnd: tokenEnd) { return opening }
        }
        var position = bytes.startIndex
        while position != bytes.endIndex, CommitTextBytes.isTokenByte(bytes[position]) {
            bytes.formIndex(after: &position)
        }
        guard position != bytes.startIndex else { return nil }
        return footerOpening(line, tokenEnd: position)
    }

    /// Reads the separator at `tokenEnd` and the value after it.
    private static func footerOpening(_ line: Substring, tokenEnd: String.Index) -> FooterOpening? {
        let bytes = line.utf8
        let end = bytes.endIndex
        guard tokenEnd != end else { return nil }
        let separator: ConventionalCommitFooter.Separator
        var valueStart = bytes.index(after: tokenEnd)
        if bytes[tokenEnd] == CommitTextBytes.colon {
            guard valueStart == end || CommitTextBytes.isSpaceOrTab(bytes[valueStart]) else { return nil }
            separator = .colon
        } else if bytes[tokenEnd] == CommitTextBytes.space, valueStart != end, bytes[valueStart] == CommitTextBytes.hash {
            separator = .hash
            bytes.formIndex(after: &valueStart)
        } else {
            return nil
        }
        while valueStart != end, CommitTextBytes.isSpaceOrTab(bytes[valueStart]) {
            bytes.formIndex(after: &valueStart)
        }
        return FooterOpening(
            token: String(line.unicodeScalars[bytes.startIndex..<tokenEnd]),
            separator: separator,
            value: Substring(line.unicodeScalars[valueStart..<end]))
    }
}
