import Foundation

/// XcodeGen's project spec as XcodeGen merges it: `project.yml`, the files its `include:` names
/// (each include under the file that names it, later ones over earlier ones, the including file
/// over all of them; an `enable: false` include left out), `targetTemplates` merged under the
/// targets that name them in `templates:`, and a `KEY:REPLACE` that replaces instead of merging.
///
/// Read line by line with the indentation YAML gives (as `XcodeGenSpecVersionFormat` reads
/// values), to answer what a versioning search needs: which target is the app and which are its
/// extensions (a type may come from a template), which value XcodeGen uses where two files set
/// the same key, and which Info.plist files the app and its extensions use.
struct XcodeGenSpec: Sendable {
    /// One `key: value`, `key:` or `- item` line.
    struct Entry: Sendable {
        let line: Int
        let indent: Int
        /// The key without quotes and without `:REPLACE`.
        let key: String
        /// True for `key:REPLACE:`: this value replaces what the files under it set, whole.
        let replaces: Bool
        /// The value's bytes (inside quotes when quoted); nil for `key:` that opens a mapping.
        let value: Range<Int>?
        let isQuoted: Bool
        /// True when the line starts a list item (`- path: a.yml`).
        let startsItem: Bool
        /// The keys from the top of the file down to this one.
        var path: [String] = []
        /// For `key:` opening a list of scalars (`- Base`) or `key: [A, B]`: the items.
        var items: [String] = []
    }

    /// One spec file, with its place in the merge.
    struct File: Sendable {
        let url: URL
        /// Where the paths it names (an `info:` plist's `path:`) are relative to.
        let pathBase: URL
        let data: Data
        let entries: [Entry]
        /// Its place in the merge: a file with a higher rank is merged over one with a lower.
        let rank: Int
    }

    /// Lowest rank first.
    let files: [File]
    /// Includes not read, and why, for `shiplane version`'s `ignored`.
    let skippedIncludes: [String]

    /// What a target's value is to the app's version.
    enum Role: Sendable, Equatable {
        /// The app's (`type: application`), or the project's own: decides the version.
        case app
        /// An extension's, widget's, watch app's or App Clip's: follows the app.
        case follower
    }

    // MARK: - Loading

    /// The spec of `root`: empty without `project.yml`.
    static func load(root: URL, fileSystem: any FileSystem) -> XcodeGenSpec {
        var files: [File] = []
        var skipped: [String] = []
        var seen: Set<String> = []
        func visit(_ url: URL, pathBase: URL) {
            let url = url.standardizedFileURL
            guard seen.insert(url.path).inserted, let bytes = try? fileSystem.contents(of: url.path),
                  let text = try? VersionText(bytes, format: "XcodeGen spec") else { return }
            let entries = Self.entries(in: text)
            let folder = url.deletingLastPathComponent()
            // Included files first, in order: the including file is merged over them.
            for include in Self.includes(in: entries, text: text) {
                let display = VersionFileDetector.relativePath(of: folder.appendingPathComponent(include.path).standardizedFileURL, to: root)
                switch include.enabled {
                case .yes:
                    visit(folder.appendingPathComponent(include.path), pathBase: include.relativePaths ? folder.appendingPathComponent(include.path).deletingLastPathComponent() : pathBase)
                case .no:
                    skipped.append("\(display): included with enable: false by \(VersionFileDetector.relativePath(of: url, to: root)), so XcodeGen leaves it out; not read")
                case .fromEnvironment(let variable):
                    skipped.append("\(display): included only when \(variable) is true in the environment xcodegen runs in "
                        + "(enable: ${\(variable)} in \(VersionFileDetector.relativePath(of: url, to: root))); not read")
                }
            }
            files.append(File(url: url, pathBase: pathBase, data: bytes, entries: entries, rank: files.count))
        }
        visit(root.appendingPathComponent("project.yml"), pathBase: root)
        return XcodeGenSpec(files: files, skippedIncludes: skipped)
    }

    /// The entries of one file, each with its path of keys.
    static func entries(in text: VersionText) -> [Entry] {
        guard let keyLine = try? NSRegularExpression.builtIn(#"^(\s*(?:-\s+)*)([A-Za-z_][A-Za-z0-9_.\-]*(?::REPLACE)?|"[^"]+"|'[^']+')\s*:(?:\s+(?:"([^"]*)"|'([^']*)'|([^#"'\s][^#]*?)))?\s*(?:#.*)?$"#),
              let itemLine = try? NSRegularExpression.builtIn(#"^(\s*)-\s+(?:"([^"]*)"|'([^']*)'|([^#"'\s:][^#:]*?))\s*(?:#.*)?$"#) else { return [] }
        var entries: [Entry] = []
        var stack: [(indent: Int, key: String)] = []
        // The last `key:` without a value: a list of scalars below it belongs to it.
        var open: Int?
        for index in text.lines.indices {
            if let groups = text.matches(keyLine, inLine: index).first, let indentRange = groups[1], let keyRange = groups[2] {
                var key = text.text(keyRange).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                let replaces = key.hasSuffix(":REPLACE")
                if replaces { key = String(key.dropLast(":REPLACE".count)) }
                let value = groups[3] ?? groups[4] ?? groups[5]
                var entry = Entry(line: index, indent: indentRange.count, key: key, replaces: replaces, value: value,
                                  isQuoted: groups[3] != nil || groups[4] != nil, startsItem: text.text(indentRange).contains("-"))
                while let last = stack.last, last.indent >= entry.indent { stack.removeLast() }
                entry.path = stack.map(\.key) + [key]
                if let value, groups[5] != nil {
                    let written = text.text(value)
                    if written.hasPrefix("["), written.hasSuffix("]") {
                        entry.items = written.dropFirst().dropLast().split(separator: ",")
                            .map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")) }
                            .filter { !$0.isEmpty }
                    }
                }
                if value == nil { stack.append((entry.indent, key)) }
                open = value == nil ? entries.count : nil
                entries.append(entry)
            } else if let groups = text.matches(itemLine, inLine: index).first, let indentRange = groups[1], let openIndex = open,
                      indentRange.count >= entries[openIndex].indent, let item = groups[2] ?? groups[3] ?? groups[4] {
                entries[openIndex].items.append(text.text(item))
            }
        }
        return entries
    }

    /// How an include is switched on.
    private enum Enabled { case yes, no, fromEnvironment(String) }

    /// The top-level `include:` of a file: a path, a list of paths, or a list of `path:` objects
    /// with `relativePaths:` and `enable:`.
    private static func includes(in entries: [Entry], text: VersionText) -> [(path: String, relativePaths: Bool, enabled: Enabled)] {
        var found: [(path: String, relativePaths: Bool, enabled: Enabled)] = []
        for entry in entries where entry.path == ["include"] {
            if !entry.items.isEmpty {
                found += entry.items.map { ($0, true, .yes) }
            } else if let value = entry.value {
                found.append((text.text(value), true, .yes))
            }
        }
        // `- path: a.yml` objects: each item starts with a dash; its siblings follow.
        var current: (path: String?, relativePaths: Bool, enabled: Enabled)?
        func finish() {
            if let item = current, let path = item.path { found.append((path, item.relativePaths, item.enabled)) }
            current = nil
        }
        for entry in entries where entry.path.count == 2 && entry.path[0] == "include" {
            if entry.startsItem { finish(); current = (nil, true, .yes) }
            guard current != nil, let range = entry.value else { continue }
            let value = text.text(range)
            switch entry.key {
            case "path": current?.path = value
            case "relativePaths": current?.relativePaths = Self.isTrue(value)
            case "enable":
                if let variable = BuildSettingReference.variable(in: value), value.hasPrefix("${") {
                    current?.enabled = .fromEnvironment(variable)
                } else {
                    current?.enabled = Self.isTrue(value) ? .yes : .no
                }
            default: break
            }
        }
        finish()
        return found
    }

    /// A YAML boolean as XcodeGen reads it (`NSString.boolValue`: Y, y, T, t or a digit 1–9 first).
    private static func isTrue(_ value: String) -> Bool {
        guard let first = value.trimmingCharacters(in: .whitespaces).first else { return false }
        return "YyTt123456789".contains(first)
    }

    // MARK: - Merged answers

    /// Every entry at `path` (with its file's rank), lowest rank first.
    private func entries(at path: [String]) -> [(rank: Int, entry: Entry)] {
        files.flatMap { file in file.entries.filter { $0.path == path }.map { (file.rank, $0) } }
    }

    /// The value XcodeGen ends up with at `path`: the highest-ranked file's.
    private func scalar(at path: [String]) -> String? {
        for file in files.reversed() {
            guard let entry = file.entries.last(where: { $0.path == path && $0.value != nil }), let value = entry.value,
                  let text = fileText(file) else { continue }
            return text.text(value).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        return nil
    }

    /// The items of the list at `path`, merged as XcodeGen merges lists (appended in rank order;
    /// a `:REPLACE` list starts over).
    private func list(at path: [String]) -> [String] {
        var items: [String] = []
        for (_, entry) in entries(at: path) {
            if entry.replaces { items = [] }
            items += entry.items
        }
        return items
    }

    /// The file's text (the entries keep only byte ranges).
    private func fileText(_ file: File) -> VersionText? {
        try? VersionText(file.data, format: "XcodeGen spec")
    }

    /// The template names a target or template merges, in order, templates of templates first.
    private func templates(of kind: String, _ name: String, seen: Set<String> = []) -> [String] {
        var all: [String] = []
        for template in list(at: [kind, name, "templates"]) where !seen.contains(template) {
            all += templates(of: "targetTemplates", template, seen: seen.union([template])) + [template]
        }
        return all
    }

    /// The type XcodeGen gives a target: its own, else the last template's that sets one.
    func type(ofTarget name: String) -> String? {
        scalar(at: ["targets", name, "type"])
            ?? templates(of: "targets", name).reversed().lazy.compactMap { scalar(at: ["targetTemplates", $0, "type"]) }.first
    }

    /// The targets of the spec, by name.
    var targetNames: [String] {
        var names: [String] = []
        for file in files {
            for entry in file.entries where entry.path.count == 2 && entry.path[0] == "targets" && !names.contains(entry.key) {
                names.append(entry.key)
            }
        }
        return names
    }

    /// What a target's values are to the version: the app's, a follower's, or nil (a framework,
    /// a test bundle: its own).
    func role(ofTarget name: String) -> Role? {
        let type = type(ofTarget: name) ?? ""
        return type == "application" ? .app : XcodeGenSpecVersionFormat.followerTypes.contains(type) ? .follower : nil
    }

    /// What a template's values are: the app's when an app target merges it, a follower's when
    /// only extensions do, nil when only other targets do (or none).
    func role(ofTemplate name: String) -> Role? {
        let users = targetNames.filter { templates(of: "targets", $0).contains(name) }.map { role(ofTarget: $0) }
        return users.contains(.app) ? .app : users.contains(.follower) ? .follower : nil
    }

    /// True when a file merged over the one of `rank` sets `path` again, or replaces a mapping
    /// above it (`settings:REPLACE:`): XcodeGen does not use that value.
    func isOverridden(_ path: [String], inRank rank: Int) -> Bool {
        files.contains { file in
            file.rank > rank && file.entries.contains { entry in
                entry.path == path && entry.value != nil
                    || entry.replaces && entry.path.count < path.count && Array(path.prefix(entry.path.count)) == entry.path
            }
        }
    }

    /// True when the settings mapping at `settings` (a path ending in `settings`) uses `base`,
    /// `configs` or `groups` in any file: XcodeGen then ignores its plain keys.
    func usesSettingsSections(_ settings: [String]) -> Bool {
        ["base", "configs", "groups"].contains { !entries(at: settings + [$0]).isEmpty }
    }

    /// The Info.plist files the app's and its followers' targets name (an `info:` block's
    /// `path:`, or `INFOPLIST_FILE` in their settings or templates), relative to `root`, with the
    /// role of each, and those of other targets.
    func infoPlists(root: URL) -> (app: Set<String>, followers: Set<String>, others: Set<String>) {
        var app: Set<String> = [], followers: Set<String> = [], others: Set<String> = []
        for target in targetNames {
            var paths: [String] = []
            for source in [["targets", target]] + templates(of: "targets", target).map({ ["targetTemplates", $0] }) {
                for file in files {
                    guard let text = fileText(file) else { continue }
                    for entry in file.entries {
                        guard let value = entry.value, entry.path.count > source.count, Array(entry.path.prefix(source.count)) == source else { continue }
                        let rest = Array(entry.path.dropFirst(source.count))
                        let written = text.text(value).replacingOccurrences(of: "${target_name}", with: target)
                        if rest == ["info", "path"] {
                            paths.append(VersionFileDetector.relativePath(of: file.pathBase.appendingPathComponent(written).standardizedFileURL, to: root))
                        } else if rest.first == "settings", rest.last == "INFOPLIST_FILE" {
                            var path = written
                            for prefix in ["$(SRCROOT)/", "${SRCROOT}/", "$(PROJECT_DIR)/", "${PROJECT_DIR}/"] where path.hasPrefix(prefix) {
                                path = String(path.dropFirst(prefix.count))
                            }
                            if !path.contains("$(") && !path.contains("${") { paths.append(path) }
                        }
                    }
                }
            }
            switch role(ofTarget: target) {
            case .app: app.formUnion(paths)
            case .follower: followers.formUnion(paths)
            case nil: others.formUnion(paths)
            }
        }
        return (app, followers.subtracting(app), others.subtracting(app).subtracting(followers))
    }

    /// The rank of the file at `url`, nil when it is not part of the spec.
    func rank(of url: URL) -> Int? {
        files.first { $0.url.path == url.standardizedFileURL.path }?.rank
    }
}
