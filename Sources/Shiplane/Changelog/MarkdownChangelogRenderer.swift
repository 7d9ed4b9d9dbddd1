import Foundation

/// Renders releases as Markdown in the Keep a Changelog style.
///
/// A section reads:
/// ```
/// ## [1.2.0] - 2026-11-22
///
/// ### Features
///
/// - **parser:** accept tabs ([#12](https://github.com/o/r/issues/12)) ([abc1234](https://github.com/o/r/commit/abc1234…))
/// ```
/// Links appear only when ``links`` is set; without them the bullet ends with `(#12) (abc1234)`.
/// Commit text is escaped for Markdown and cut at the configured character limit.
/// Dates are written `yyyy-MM-dd` in ``timeZone`` (UTC by default). A release with no visible
/// commits gets the line `No notable changes.` under its heading.
package struct MarkdownChangelogRenderer: Sendable {
    /// How commits are grouped and which are shown.
    package var configuration: ChangelogConfiguration
    /// Where commit, issue and compare links point; nil for plain text.
    package var links: RemoteLinks?
    /// The time zone release dates are written in.
    package var timeZone: TimeZone

    /// Creates a renderer.
    package init(configuration: ChangelogConfiguration = .init(), links: RemoteLinks? = nil, timeZone: TimeZone = .gmt) {
        self.configuration = configuration
        self.links = links
        self.timeZone = timeZone
    }

    // MARK: - Documents and sections

    /// A whole CHANGELOG.md: the standard header, the sections (newest first, as given) and the
    /// link reference definitions.
    package func renderDocument(_ releases: [ChangelogRelease]) -> String {
        var output = ChangelogFileEditor.defaultHeader
        for release in releases {
            output += "\n"
            output += renderSection(release)
        }
        let definitions = releases.compactMap(linkReferenceDefinition(for:))
        if !definitions.isEmpty {
            output += "\n" + definitions.joined(separator: "\n") + "\n"
        }
        return output
    }

    /// One release: its `## ` heading and its groups, ending with a single newline.
    package func renderSection(_ release: ChangelogRelease) -> String {
        var output = heading(for: release) + "\n"
        let groups = release.groups(configuration: configuration)
        if groups.isEmpty {
            output += "\nNo notable changes.\n"
        }
        for group in groups {
            output += "\n### " + group.title + "\n\n"
            for commit in group.commits {
                output += "- " + entry(for: commit, in: group.kind) + "\n"
            }
        }
        return output
    }

    /// `## [1.2.0] - 2026-11-22`, or `## [Unreleased]`.
    package func heading(for release: ChangelogRelease) -> String {
        var heading = "## [" + release.title + "]"
        if let date = release.date {
            heading += " - " + formattedDate(date)
        }
        return heading
    }

    /// `[1.2.0]: https://github.com/o/r/compare/v1.1.0...v1.2.0`; nil without links.
    package func linkReferenceDefinition(for release: ChangelogRelease) -> String? {
        guard let url = release.compareURL(links: links) else { return nil }
        return "[" + release.title + "]: " + url
    }

    // MARK: - Entries

    /// One bullet's text without the leading `- `: scope, escaped text, issue and commit links.
    ///
    /// In the breaking group the text is the breaking description; elsewhere the description
    /// (or, for a non-conventional commit, its summary line).
    package func entry(for commit: ChangelogCommit, in kind: ChangelogGroup.Kind) -> String {
        let text: String
        var issues: [Int]
        var output = ""
        if let conventional = commit.conventional, kind != .other {
            if let scope = conventional.scope {
                switch configuration.scopeDisplay {
                case .bold: output += "**" + MarkdownEscaping.inline(scope) + ":** "
                case .plain: output += MarkdownEscaping.inline(scope) + ": "
                case .hidden: break
                }
            }
            text =
                kind == .breaking
                ? (conventional.breakingDescription ?? conventional.description) : conventional.description
            issues = conventional.issueReferences
        } else {
            text = commit.summary
            var scanner = IssueReferenceScanner()
            scanner.scan(commit.summary)
            issues = scanner.numbers
        }
        output += MarkdownEscaping.inline(
            MarkdownEscaping.truncated(Self.droppingIssueSuffix(text, issues: issues), limit: configuration.summaryCharacterLimit))
        if !issues.isEmpty {
            output += " (" + issues.map(issueLink).joined(separator: ", ") + ")"
        }
        output += " (" + commitLink(commit) + ")"
        return output
    }

    /// `cache manifests (#15)` → `cache manifests` when 15 is listed anyway, as the issue links
    /// that follow repeat it (GitHub adds such suffixes to squash merges).
    static func droppingIssueSuffix(_ text: String, issues: [Int]) -> String {
        guard text.hasSuffix(")"), let open = text.lastIndex(of: "(") else { return text }
        let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard inside.hasPrefix("#"), let number = Int(inside.dropFirst()), issues.contains(number) else { return text }
        let kept = text[..<open]
        var end = kept.endIndex
        while end > kept.startIndex, kept[kept.index(before: end)] == " " { end = kept.index(before: end) }
        return end == kept.startIndex ? text : String(kept[..<end])
    }

    private func issueLink(_ number: Int) -> String {
        if let template = configuration.issueLinkTemplate {
            return "[#\(number)](\(template.replacingOccurrences(of: "{number}", with: String(number))))"
        }
        guard let links else { return "#\(number)" }
        return "[#\(number)](\(links.issueURL(number)))"
    }

    private func commitLink(_ commit: ChangelogCommit) -> String {
        let shortId = MarkdownEscaping.inline(commit.shortId)
        if let template = configuration.commitLinkTemplate {
            return "[\(shortId)](\(template.replacingOccurrences(of: "{id}", with: commit.id).replacingOccurrences(of: "{shortId}", with: commit.shortId)))"
        }
        guard let links else { return shortId }
        return "[\(shortId)](\(links.commitURL(commit.id)))"
    }

    /// `yyyy-MM-dd` in ``timeZone``.
    func formattedDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func padded(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.year, 4) + "-" + padded(parts.month, 2) + "-" + padded(parts.day, 2)
    }
}
