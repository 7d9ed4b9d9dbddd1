import Foundation

/// A store that shows release notes, with its rule for their length.
public enum NotesStore: String, Sendable, Equatable, CustomStringConvertible {
    /// TestFlight's What to Test: at most 4,000 characters per locale.
    case testFlight
    /// Google Play's release notes: at most 500 characters per language.
    case googlePlay

    /// The most characters the store takes, per locale.
    public var limit: Int {
        switch self {
        case .testFlight: 4000
        case .googlePlay: 500
        }
    }

    /// "TestFlight What to Test" or "Google Play release notes".
    public var description: String {
        switch self {
        case .testFlight: "TestFlight What to Test"
        case .googlePlay: "Google Play release notes"
        }
    }
}

/// Release notes as a store shows them: plain text (no Markdown syntax, no links, `•` bullets),
/// within the store's limit.
package enum StoreNotes {
    /// The releases as plain text: each group's title on its own line, then one `• ` line per
    /// change (`scope: description`); no headings, emphasis, links or link definitions.
    package static func plainText(_ releases: [ChangelogRelease], configuration: ChangelogConfiguration) -> String {
        var blocks: [String] = []
        for release in releases {
            for group in release.groups(configuration: configuration) {
                var lines = [group.title]
                for commit in group.commits {
                    var text: String
                    if let conventional = commit.conventional, group.kind != .other {
                        text = group.kind == .breaking ? (conventional.breakingDescription ?? conventional.description) : conventional.description
                        if let scope = conventional.scope, configuration.scopeDisplay != .hidden { text = scope + ": " + text }
                    } else {
                        text = commit.summary
                    }
                    lines.append("• " + text.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                blocks.append(lines.joined(separator: "\n"))
            }
        }
        return blocks.joined(separator: "\n\n")
    }

    /// `text` within `limit` characters: whole lines while they fit, then as much of the next
    /// as fits, ending in a visible "…". Returns whether anything was cut.
    package static func fitted(_ text: String, limit: Int) -> (text: String, truncated: Bool) {
        guard text.count > limit else { return (text, false) }
        guard limit > 1 else { return (String(text.prefix(max(limit, 0))), true) }
        var kept = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let candidate = kept.isEmpty ? String(line) : kept + "\n" + line
            // Room for "\n…" after a whole line.
            if candidate.count + 2 <= limit { kept = candidate } else { break }
        }
        if kept.isEmpty || kept.count + 2 > limit {
            return (String(text.prefix(limit - 1)).trimmingCharacters(in: .whitespaces) + "…", true)
        }
        return (kept + "\n…", true)
    }
}

/// Renders the release's notes for a store, per locale: plain text within the store's limit, with
/// a warning for each locale it had to cut. From the history (the release being made, titled with
/// this run's bumped version when it is not tagged yet), or from texts given per locale.
package struct RenderStoreNotes: Action {
    /// The action's name in steps and reports.
    package static let name = "storeNotes"
    /// The store whose rules apply.
    package var store: NotesStore
    /// The texts per locale (`en-US`); empty: the changelog of the release being made, for `locales`.
    package var texts: [String: String]
    /// The locales the changelog's notes are given for, when `texts` is empty.
    package var locales: [String]
    /// Files holding the notes, one per locale: a path relative to the repository root with
    /// `{locale}` where the locale goes (fastlane's layouts: `fastlane/metadata/{locale}/release_notes.txt`,
    /// `fastlane/metadata/android/{locale}/changelogs/default.txt`). Every folder that has such a
    /// file gives a locale. Used when `texts` is empty.
    package var files: String?

    /// Creates the action for `store`.
    package init(for store: NotesStore, texts: [String: String] = [:], files: String? = nil, locales: [String] = ["en-US"]) {
        self.store = store
        self.texts = texts
        self.files = files
        self.locales = locales
    }

    /// The store and the locales.
    package var options: [StepOption] {
        var shown = [StepOption("store", store.rawValue)]
        if texts.isEmpty, let files {
            shown.append(StepOption("files", files))
        } else {
            shown.append(StepOption("locales", (texts.isEmpty ? locales : texts.keys.sorted()).joined(separator: ", ")))
        }
        return shown
    }

    /// Returns the notes per locale.
    /// - Throws: `EmptyChangelog` when the release has no commits, or what reading the history throws.
    package func run(in step: StepContext) throws -> [String: String] {
        var source = texts
        if source.isEmpty, let files {
            source = try Self.read(files, in: step.lane)
        } else if source.isEmpty {
            let lane = step.lane
            let (configuration, releaseTags, merges) = try lane.changelogSettings(nil, nil, nil)
            let history = try ChangelogHistory(lane: lane, releaseTags: releaseTags, merges: merges)
            let releases = try Changelog.releases(.lastTag, version: nil, history: history, lane: lane).list
            let text = StoreNotes.plainText(releases, configuration: configuration)
            for locale in locales { source[locale] = text }
        }
        var result: [String: String] = [:]
        for (locale, text) in source.sorted(by: { $0.key < $1.key }) {
            let plain = Self.plain(text)
            let fitted = StoreNotes.fitted(plain, limit: store.limit)
            if fitted.truncated {
                step.log("\(store) for \(locale) is \(plain.count) characters; the store takes \(store.limit): cut at \(fitted.text.count) with \"…\"", level: .warning)
            }
            result[locale] = fitted.text
        }
        step.note(result.keys.sorted().map { "\($0): \(result[$0]?.count ?? 0) characters" }.joined(separator: ", "))
        return result
    }

    /// The notes in the files `pattern` names, by locale.
    /// - Throws: `ValidationFailure` when the pattern has no `{locale}`, leaves the repository, or
    ///   matches no file, and when a matched file cannot be read as UTF-8 text or is empty.
    static func read(_ pattern: String, in lane: LaneContext) throws -> [String: String] {
        guard let marker = pattern.range(of: "{locale}") else {
            throw ValidationFailure(problems: ["storeNotes files: `\(pattern)` has no {locale} where the locale goes"],
                                    suggestion: "write the path with {locale}, e.g. fastlane/metadata/{locale}/release_notes.txt")
        }
        let prefix = String(pattern[..<marker.lowerBound]), suffix = String(pattern[marker.upperBound...])
        guard !pattern.hasPrefix("/"), !pattern.split(separator: "/").contains("..") else {
            throw ValidationFailure(problems: ["storeNotes files: `\(pattern)` must be a path inside the repository"])
        }
        let root = lane.workingDirectory
        let folder = root + "/" + prefix
        let fileSystem = lane.fileSystem
        var notes: [String: String] = [:]
        var problems: [String] = []
        for locale in try fileSystem.list(folder) where !locale.hasPrefix(".") {
            let path = folder + locale + suffix
            guard fileSystem.kind(of: path) == .file else { continue }
            guard let data = try fileSystem.contents(of: path), let text = String(data: data, encoding: .utf8) else {
                problems.append("\(prefix + locale + suffix) is not UTF-8 text")
                continue
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty {
                problems.append("\(prefix + locale + suffix) is empty")
            } else {
                notes[locale] = trimmed
            }
        }
        if notes.isEmpty && problems.isEmpty {
            problems.append("no file matches `\(pattern)` (looked in \(prefix.isEmpty ? "the repository root" : prefix))")
        }
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "give every locale's notes a non-empty UTF-8 file, or pass texts:")
        }
        return notes
    }

    /// Markdown a user gave turned into plain text: headings, emphasis, code marks, links and link
    /// definitions removed, `-`/`*` bullets as `•`.
    static func plain(_ text: String) -> String {
        var lines: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            // `[1.2.0]: https://…` link definitions carry nothing a store can show.
            if line.range(of: #"^\s*\[[^\]]+\]:\s*\S+"#, options: .regularExpression) != nil { continue }
            line = line.replacingOccurrences(of: #"^#{1,6}\s+"#, with: "", options: .regularExpression)
            line = line.replacingOccurrences(of: #"^(\s*)[-*+]\s+"#, with: "$1• ", options: .regularExpression)
            line = line.replacingOccurrences(of: #"\[([^\]]+)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
            line = line.replacingOccurrences(of: #"\[([^\]]+)\]"#, with: "$1", options: .regularExpression)
            for mark in ["**", "__", "`"] { line = line.replacingOccurrences(of: mark, with: "") }
            lines.append(line)
        }
        while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}

extension LaneContext {
    /// The release's notes as `store` shows them, per locale: plain text within its limit (a
    /// warning names each locale cut). Without `texts`, the changelog of the release being made —
    /// before `addGitTag` too, titled with this run's bumped version — for each of `locales`.
    /// With `files` (a path with `{locale}`), the notes of every locale that has such a file.
    public func storeNotes(
        for store: NotesStore, texts: [String: String] = [:], files: String? = nil, locales: [String] = ["en-US"],
        file: String = #fileID, line: Int = #line
    ) throws -> [String: String] {
        try run(RenderStoreNotes(for: store, texts: texts, files: files, locales: locales), file: file, line: line)
    }
}

extension RenderStoreNotes: DocumentedAction {
    /// How `lane.storeNotes` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Changelog",
        summary: "Release notes as a store shows them, per locale: plain text with • bullets, no Markdown or links, cut to TestFlight's 4,000 or Play's 500 characters with a visible … and a warning",
        signature: "try lane.storeNotes(for store: NotesStore, texts: [String: String] = [:], files: String? = nil, locales: [String] = [\"en-US\"]) -> [String: String]",
        parameters: [
            .init(name: "for", type: "NotesStore", defaultValue: nil, help: ".testFlight (What to Test, 4,000 characters) or .googlePlay (500 characters per language)"),
            .init(name: "texts", type: "[String: String]", defaultValue: "[:]", help: "notes per locale; empty: the changelog of the release being made"),
            .init(name: "files", type: "String?", defaultValue: "nil", help: "files with the notes, one per locale: a repository path with {locale} (fastlane/metadata/{locale}/release_notes.txt); every folder with such a file gives a locale"),
            .init(name: "locales", type: "[String]", defaultValue: "[\"en-US\"]", help: "the locales the changelog's notes are given for"),
        ],
        example: "let notes = try lane.storeNotes(for: .googlePlay, locales: [\"en-US\", \"de-DE\"])",
        dryRun: "runs; the same notes as the real run", rollback: "nothing to undo"
    )
}
