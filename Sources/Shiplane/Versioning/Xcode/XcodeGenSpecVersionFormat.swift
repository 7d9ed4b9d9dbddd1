import Foundation

/// XcodeGen's project spec (`project.yml` and the files it includes): `MARKETING_VERSION` and
/// `CURRENT_PROJECT_VERSION` under the project's `settings` (directly, under `base:` or a
/// configuration in `configs:`), in `settingGroups`, and in the settings of the app's targets.
///
/// The project's and the app's (`type: application`) values decide the version; an extension's,
/// widget's, watch app's or App Clip's are copies that move with it (Apple wants one version).
/// A target of another type (a framework, a test bundle) keeps its own: not read. A target's
/// `MARKETING_VERSION: $(MARKETING_VERSION)` inherits the project's and is not a value;
/// `$(OTHER)` is followed as in an xcconfig. Quotes and `#` comments are kept. Versions are
/// Apple marketing versions, zero-padded parts kept (element-x-ios' `26.07.5` → `26.07.6`).
///
/// Read line by line with the indentation YAML gives: a rewrite changes the value's bytes only.
package struct XcodeGenSpecVersionFormat: TextualVersionFormat {
    /// `project.yml`, as messages name the format.
    package var name: String { "XcodeGen spec" }
    var versionKey: String { "MARKETING_VERSION" }
    var buildKey: String? { "CURRENT_PROJECT_VERSION" }
    /// Apple's.
    package var buildSeries: Set<BuildSeries> { [.apple] }
    var versionShape: VersionShape { .apple }

    /// The settings that hold the version: `MARKETING_VERSION` and those it refers to.
    let versionVariables: [String]
    /// The settings that hold the build number: `CURRENT_PROJECT_VERSION` and those it refers to.
    let buildVariables: [String]

    /// Target types whose version is the app's: extensions, widgets, watch apps, App Clips.
    static let followerTypes: Set<String> = [
        "app-extension", "app-extension.messages", "app-extension.messages-sticker-pack", "app-extension.intents-service",
        "extensionkit-extension", "watchkit-extension", "watchkit2-extension", "application.watchapp", "application.watchapp2",
        "application.watchapp2-container", "application.on-demand-install-capable", "tv-app-extension", "application.messages",
    ]

    /// Creates the format reading `MARKETING_VERSION`, `CURRENT_PROJECT_VERSION` and the
    /// settings named (that one of those refers to elsewhere).
    package init(versionVariables: [String] = [], buildVariables: [String] = []) {
        self.versionVariables = ["MARKETING_VERSION"] + versionVariables.filter { $0 != "MARKETING_VERSION" }
        self.buildVariables = ["CURRENT_PROJECT_VERSION"] + buildVariables.filter { $0 != "CURRENT_PROJECT_VERSION" }
    }

    /// One `key: value` or `key:` line, with where its key sits.
    private struct Entry {
        let line: Int
        let indent: Int
        let key: String
        /// The value's bytes (inside quotes when quoted); nil for `key:` that opens a mapping.
        let value: Range<Int>?
        let isQuoted: Bool
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(#"^(\s*(?:-\s+)*)([A-Za-z_][A-Za-z0-9_.\-]*|"[^"]+"|'[^']+')\s*:(?:\s+(?:"([^"]*)"|'([^']*)'|([^#"'\s][^#]*?)))?\s*(?:#.*)?$"#)
        var entries: [Entry] = []
        for index in text.lines.indices {
            guard let groups = text.matches(regex, inLine: index).first, let indentRange = groups[1], let keyRange = groups[2] else { continue }
            let key = text.text(keyRange).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            let value = groups[3] ?? groups[4] ?? groups[5]
            entries.append(Entry(line: index, indent: indentRange.count, key: key, value: value, isQuoted: groups[3] != nil || groups[4] != nil))
        }
        // Each entry's path of keys, from the indentation.
        var paths: [[String]] = []
        var stack: [(indent: Int, key: String)] = []
        for entry in entries {
            while let last = stack.last, last.indent >= entry.indent { stack.removeLast() }
            paths.append(stack.map(\.key) + [entry.key])
            if entry.value == nil { stack.append((entry.indent, entry.key)) }
        }
        var types: [String: String] = [:]
        for (entry, path) in zip(entries, paths) where path.count == 3 && path[0] == "targets" && path[2] == "type" {
            if let range = entry.value { types[path[1]] = text.text(range) }
        }
        var fields = LocatedFields()
        for (entry, path) in zip(entries, paths) {
            guard let range = entry.value, path.count >= 2 else { continue }
            let isVersion = versionVariables.contains(entry.key)
            guard isVersion || buildVariables.contains(entry.key) else { continue }
            let value = text.text(range)
            // `MARKETING_VERSION: $(MARKETING_VERSION)` in a target inherits the project's value.
            if BuildSettingReference.variable(in: value) == entry.key { continue }
            var follower = false
            var place = path.dropLast().joined(separator: " › ")
            switch path[0] {
            case "settings", "settingGroups":
                break
            case "targets" where path.count >= 4 && path[2] == "settings":
                // A target whose type is not the app's nor an extension's keeps its own version.
                let type = types[path[1]] ?? ""
                guard type == "application" || Self.followerTypes.contains(type) else { continue }
                follower = type != "application"
                place = "target \(path[1])" + (path.count > 4 ? " › " + path[3..<(path.count - 1)].joined(separator: " › ") : "")
            default:
                continue
            }
            var located = LocatedValue(range: range, value: value, label: "\(entry.key) in \(place) (line \(entry.line + 1))", isQuoted: entry.isQuoted, key: entry.key)
            located.follower = follower
            if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        return fields
    }

    /// The value as written, quoted where YAML would otherwise read another number: an unquoted
    /// `1.10` is the float 1.1 to XcodeGen, so it is written `"1.10"`.
    func encode(_ value: String, replacing original: LocatedValue) -> String {
        guard !original.isQuoted, value.split(separator: ".", omittingEmptySubsequences: false).count == 2 else { return value }
        let fraction = value.split(separator: ".").last ?? ""
        let integer = value.split(separator: ".").first ?? ""
        return fraction.hasSuffix("0") || (integer.count > 1 && integer.hasPrefix("0")) ? "\"\(value)\"" : value
    }

    /// The spec files of `root`: `project.yml` and every file its `include:` names, relative to
    /// the file that names it, each once; empty without `project.yml`.
    static func specFiles(in root: URL, fileSystem: any FileSystem) -> [URL] {
        var files: [URL] = []
        var queue = [root.appendingPathComponent("project.yml").standardizedFileURL]
        var seen: Set<String> = []
        while !queue.isEmpty {
            let file = queue.removeFirst()
            guard seen.insert(file.path).inserted, let bytes = try? fileSystem.contents(of: file.path) else { continue }
            files.append(file)
            let folder = file.deletingLastPathComponent()
            queue += includes(in: String(decoding: bytes, as: UTF8.self)).map { folder.appendingPathComponent($0).standardizedFileURL }
        }
        return files
    }

    /// The paths a spec's top-level `include:` names: `include: base.yml`, `include: [a.yml, b.yml]`,
    /// or a list of paths or of `- path: a.yml` entries.
    static func includes(in text: String) -> [String] {
        func unquoted(_ text: Substring) -> String {
            let stripped = (text.firstIndex(of: "#").map { text[..<$0] } ?? text).trimmingCharacters(in: .whitespaces)
            return stripped.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        var paths: [String] = []
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map({ $0.hasSuffix("\r") ? $0.dropLast() : $0 }) {
            if line.hasPrefix("include:") {
                inside = true
                let rest = unquoted(line.dropFirst("include:".count))
                if rest.hasPrefix("[") {
                    paths += rest.dropFirst().dropLast().split(separator: ",").map(unquoted).filter { !$0.isEmpty }
                    inside = false
                } else if !rest.isEmpty {
                    paths.append(rest)
                    inside = false
                }
                continue
            }
            guard inside else { continue }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if line.first != " " && line.first != "\t" && line.first != "-" { inside = false; continue }
            if trimmed.hasPrefix("- ") {
                var item = trimmed.dropFirst(2).drop { $0 == " " }
                if item.hasPrefix("path:") { item = item.dropFirst("path:".count) }
                let path = unquoted(item)
                if !path.isEmpty, !path.hasSuffix(":") { paths.append(path) }
            } else if trimmed.hasPrefix("path:") {
                // `- relativePaths: false` first, `path:` on the next line of the same entry.
                let path = unquoted(trimmed.dropFirst("path:".count))
                if !path.isEmpty { paths.append(path) }
            }
        }
        return paths
    }
}
