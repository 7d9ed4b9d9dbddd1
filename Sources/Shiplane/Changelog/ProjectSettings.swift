import Foundation
internal import Yams

/// What a project checks in to shape its changelogs: `.shiplane.yml` at the repository root.
///
/// ```yaml
/// changelog:
///   groups:                          # titles and order (git-cliff: the groups of commit_parsers)
///     - { title: Features, types: [feat] }
///     - { title: Bug Fixes, types: [fix] }
///     - { title: Dependencies, types: [] }
///   hidden_types: [chore, ci, test, build, style]
///   show_hidden: false               # true: hidden types go to Miscellaneous
///   non_conventional: other          # other | drop   (git-cliff: filter_unconventional)
///   include_merges: false
///   breaking_title: "⚠ BREAKING CHANGES"
///   miscellaneous_title: Miscellaneous
///   other_title: Other
///   summary_limit: 300
///   scope: bold                      # bold | plain | hidden
///   skip: ['\[skip changelog\]']     # regexes on the subject
///   parsers:                         # first match wins (git-cliff: commit_parsers)
///     - { message: '^chore\(deps\)', group: Dependencies }
///     - { author: 'dependabot', skip: true }
///   tags:
///     pattern: 'v*'                  # a glob for release tags (git-cliff: tag_pattern)
///     ignore: '-nightly$'            # a regex of tags that are not releases (git-cliff: ignore_tags)
///     include_prereleases: true
///   links:
///     commit: 'https://git.example.com/app/commit/{id}'
///     issue: 'https://git.example.com/app/issues/{number}'
/// forge:                             # where lane.release publishes (ForgeSettings)
///   hosts: { git.example.com: gitlab }
/// ```
///
/// Every mistake — an unknown key, a bad regular expression, a parser naming a group that does
/// not exist, a value of the wrong kind — is a `SettingsError` (exit 2) naming `.shiplane.yml:LINE` and the fix.
package struct ProjectSettings: Sendable, Equatable {
    /// The settings file's name, at the repository root.
    package static let fileName = ".shiplane.yml"

    /// How changelogs group and filter commits (`changelog:`).
    package var changelog: ChangelogConfiguration
    /// Which tags are releases (`changelog.tags`).
    package var releaseTags: ReleaseTags
    /// The packages of a monorepo, each released on its own.
    package var packages: [ProjectPackage]
    /// The packages each package depends on by `depends_on:` (names, checked to be packages);
    /// the manifests add theirs (`PackageGraph`).
    package var packageDependencies: [String: [String]] = [:]
    /// Which commits release what (`versions:`).
    package var bumpRules = BumpRules()
    /// Which forge releases go to, and self-hosted forge hosts (`forge:`).
    package var forge = ForgeSettings()
    /// The file read, or nil when the project has none (then everything is the default).
    package var file: String?

    /// Creates settings; with no arguments, the defaults a project without a file gets.
    package init(changelog: ChangelogConfiguration = .init(), releaseTags: ReleaseTags = .init(), packages: [ProjectPackage] = [], file: String? = nil) {
        self.changelog = changelog
        self.releaseTags = releaseTags
        self.packages = packages
        self.file = file
    }

    /// Reads `root/.shiplane.yml`, or returns the defaults when there is none.
    /// - Throws: `SettingsError` naming the file, the line and the fix.
    package static func load(root: String) throws -> ProjectSettings {
        let path = root + "/" + fileName
        guard let data = FileManager.default.contents(atPath: path) else { return ProjectSettings() }
        return try parse(String(decoding: data, as: UTF8.self), file: fileName)
    }

    /// Parses the text of a settings file; `file` names it in errors.
    package static func parse(_ text: String, file: String) throws -> ProjectSettings {
        let reader = Reader(file: file)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw SettingsError("\(file): not valid YAML: \(error)", suggestion: "fix the YAML syntax at the line shown; nothing was written")
        }
        var settings = ProjectSettings(file: file)
        guard let root else { return settings }
        let top = try reader.mapping(root, allowed: ["changelog", "forge", "packages", "versions"], in: "the file")
        if let versions = top["versions"] {
            settings.bumpRules = try reader.bumpRules(versions)
        }
        if let changelog = top["changelog"] {
            try reader.changelog(changelog, into: &settings)
        }
        if let packages = top["packages"] {
            (settings.packages, settings.packageDependencies) = try reader.packages(packages)
        }
        if let forge = top["forge"] {
            settings.forge = try reader.forge(forge)
        }
        return settings
    }

    /// Turns YAML nodes into settings, with `file:line` in every error.
    struct Reader {
        let file: String

        func fail(_ node: Node, _ message: String, _ suggestion: String) -> SettingsError {
            SettingsError("\(file):\(node.mark?.line ?? 1): \(message)", suggestion: suggestion + "; nothing was written")
        }

        /// A mapping whose keys must all be `allowed`; an unknown one is named with the closest.
        func mapping(_ node: Node, allowed: [String], in place: String) throws -> [String: Node] {
            guard let mapping = node.mapping else {
                throw fail(node, "\(place) must be a mapping of keys to values", "write `key: value` lines, indented under it")
            }
            var result: [String: Node] = [:]
            for (key, value) in mapping {
                let name = key.string ?? ""
                guard allowed.contains(name) else {
                    let close = allowed.min { editDistance($0, name) < editDistance($1, name) }
                    let hint = close.flatMap { editDistance($0, name) <= 3 ? "did you mean `\($0)`? " : nil } ?? ""
                    throw fail(key, "unknown key `\(name)` in \(place)", hint + "the keys are: " + allowed.joined(separator: ", "))
                }
                result[name] = value
            }
            return result
        }

        func string(_ node: Node, _ key: String) throws -> String {
            guard let scalar = node.scalar else { throw fail(node, "`\(key)` must be a text", "write `\(key): text`") }
            return scalar.string
        }

        func bool(_ node: Node, _ key: String) throws -> Bool {
            guard let value = node.bool else { throw fail(node, "`\(key)` must be true or false", "write `\(key): true` or `\(key): false`") }
            return value
        }

        func strings(_ node: Node, _ key: String) throws -> [String] {
            guard let sequence = node.sequence else {
                throw fail(node, "`\(key)` must be a list", "write `\(key): [a, b]`, or one `- item` per line")
            }
            return try sequence.map { try string($0, key) }
        }

        func regex(_ node: Node, _ key: String) throws -> String {
            let pattern = try string(node, key)
            do {
                _ = try NSRegularExpression(pattern: pattern)
            } catch {
                throw fail(node, "`\(key)`: `\(pattern)` is not a valid regular expression", "escape special characters such as ( [ . with a backslash, in single quotes")
            }
            return pattern
        }

        func choice<T: RawRepresentable & CaseIterable>(_ node: Node, _ key: String, _: T.Type) throws -> T where T.RawValue == String {
            let text = try string(node, key)
            guard let value = T(rawValue: text) else {
                throw fail(node, "`\(key)` is `\(text)`", "use one of: " + T.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return value
        }

        func bumpRules(_ node: Node) throws -> BumpRules {
            let fields = try mapping(node, allowed: ["minor_types", "patch_types", "breaking_before_1", "targets", "independent"], in: "versions")
            var rules = BumpRules()
            if let value = fields["targets"] { rules.targets = Set(try strings(value, "targets")) }
            if let value = fields["independent"] {
                rules.independent = Set(try strings(value, "independent").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
            }
            if let value = fields["minor_types"] { rules.minorTypes = Set(try strings(value, "minor_types").map { $0.lowercased() }) }
            if let value = fields["patch_types"] { rules.patchTypes = Set(try strings(value, "patch_types").map { $0.lowercased() }) }
            if let both = fields["patch_types"], !rules.minorTypes.isDisjoint(with: rules.patchTypes) {
                throw fail(both, "\(rules.minorTypes.intersection(rules.patchTypes).sorted().joined(separator: ", ")) cannot release both a minor and a patch", "list each type once")
            }
            if let value = fields["breaking_before_1"] {
                switch try string(value, "breaking_before_1") {
                case "minor": rules.breakingBeforeOne = .minor
                case "major": rules.breakingBeforeOne = .major
                case let other: throw fail(value, "`breaking_before_1` is `\(other)`", "use minor (0.3.1 → 0.4.0, as commitizen) or major (0.3.1 → 1.0.0)")
                }
            }
            return rules
        }

        func packages(_ node: Node) throws -> ([ProjectPackage], [String: [String]]) {
            guard let sequence = node.sequence else {
                throw fail(node, "`packages` must be a list", "write one `- { name: core, path: packages/core }` per package")
            }
            var packages: [(package: ProjectPackage, node: Node)] = []
            var dependencies: [String: (names: [String], node: Node)] = [:]
            var byName: [String: Int] = [:], byPath: [String: Int] = [:]
            /// A folder that holds a package's folder, and that package.
            var insideOf: [String: Int] = [:]
            for item in sequence {
                let fields = try mapping(item, allowed: ["name", "path", "tag", "depends_on", "repository", "registry-id"], in: "a package")
                guard let nameNode = fields["name"], let pathNode = fields["path"] else {
                    throw fail(item, "a package needs a `name` and a `path`", "write `- { name: core, path: packages/core }`")
                }
                let name = try string(nameNode, "name")
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                    throw fail(nameNode, "`\(name)` is not a package name", "use letters, digits, -, _ and .")
                }
                var path = try string(pathNode, "path")
                while path.hasSuffix("/") { path.removeLast() }
                if path.hasPrefix("./") { path.removeFirst(2) }
                guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                    throw fail(pathNode, "`\(path)` is not a folder inside the repository", "give the package's folder relative to the repository root, e.g. packages/core")
                }
                let format = try fields["tag"].map { try string($0, "tag") } ?? "{name}-v{version}"
                guard format.hasSuffix("{version}"), !format.dropLast("{version}".count).contains("{version}"),
                      !format.contains(where: { "*?[".contains($0) }) else {
                    throw fail(fields["tag"] ?? item, "the tag format `\(format)` must end with {version}", "write e.g. `tag: '{name}-v{version}'` or `tag: '{name}@{version}'`")
                }
                if let index = byName[name] {
                    throw fail(nameNode, "two packages are named `\(name)` (the other at line \(packages[index].node.mark?.line ?? 0))", "give each package its own name")
                }
                // Overlaps by lookups, not by comparing every pair: ten thousand packages are fifty million pairs.
                let parts = path.split(separator: "/")
                let folders = parts.indices.dropFirst().map { parts[..<$0].joined(separator: "/") }
                if let index = byPath[path] ?? folders.lazy.compactMap({ byPath[$0] }).first ?? insideOf[path] {
                    let other = packages[index].package
                    throw fail(pathNode, "the paths of `\(other.name)` (\(other.path)) and `\(name)` (\(path)) overlap",
                               "a commit must belong to one package's folder: give packages folders that do not contain each other")
                }
                byName[name] = packages.count
                byPath[path] = packages.count
                for folder in folders where insideOf[folder] == nil { insideOf[folder] = packages.count }
                let prefix = String(format.dropLast("{version}".count)).replacingOccurrences(of: "{name}", with: name)
                var package = ProjectPackage(name: name, path: path, tagPrefix: prefix)
                if let node = fields["repository"] {
                    let url = try string(node, "repository")
                    guard !url.isEmpty, !url.contains(where: \.isWhitespace) else {
                        throw fail(node, "`repository` of `\(name)` must be the URL SwiftPM users give for it", "write e.g. `repository: https://github.com/acme/core.git`")
                    }
                    package.repository = url
                }
                if let node = fields["registry-id"] {
                    let id = try string(node, "registry-id")
                    guard ProjectPackage.isRegistryID(id) else {
                        throw fail(node, "`registry-id` of `\(name)` must be its identity in a Swift package registry, `scope.name`",
                                   "write e.g. `registry-id: acme.core` (scope: letters, digits and single hyphens, at most 39; name: letters, digits, single - or _, at most 100)")
                    }
                    package.registryID = id
                }
                packages.append((package, pathNode))
                if let value = fields["depends_on"] { dependencies[name] = (try strings(value, "depends_on"), value) }
            }
            let names = Set(packages.map(\.package.name))
            for (name, listed) in dependencies {
                if let unknown = listed.names.first(where: { !names.contains($0) }) {
                    throw fail(listed.node, "`\(name)` depends on `\(unknown)`, which is not a package here",
                               "list packages by their `name`: " + packages.map(\.package.name).joined(separator: ", "))
                }
                if listed.names.contains(name) { throw fail(listed.node, "`\(name)` depends on itself", "remove it from its own `depends_on`") }
            }
            return (packages.map(\.package), dependencies.mapValues(\.names))
        }

        func changelog(_ node: Node, into settings: inout ProjectSettings) throws {
            let keys = try mapping(node, allowed: [
                "groups", "hidden_types", "show_hidden", "non_conventional", "include_merges", "breaking_title",
                "miscellaneous_title", "other_title", "summary_limit", "scope", "skip", "parsers", "tags", "links",
            ], in: "changelog")
            var configuration = ChangelogConfiguration()
            if let groups = keys["groups"] {
                guard let sequence = groups.sequence else {
                    throw fail(groups, "`groups` must be a list", "write one `- { title: Features, types: [feat] }` per group")
                }
                configuration.groups = try sequence.map { item in
                    let fields = try mapping(item, allowed: ["title", "types"], in: "a group")
                    guard let title = fields["title"] else { throw fail(item, "a group has no `title`", "give it `title: Features`") }
                    return .init(title: try string(title, "title"), types: try fields["types"].map { try strings($0, "types") } ?? [])
                }
            }
            if let value = keys["hidden_types"] { configuration.hiddenTypes = try strings(value, "hidden_types").map { $0.lowercased() } }
            if let value = keys["show_hidden"] { configuration.hiddenTypeHandling = try bool(value, "show_hidden") ? .miscellaneous : .hide }
            if let value = keys["non_conventional"] {
                configuration.nonConventional = try choice(value, "non_conventional", ChangelogConfiguration.NonConventionalHandling.self)
            }
            if let value = keys["include_merges"] { configuration.includeMergeCommits = try bool(value, "include_merges") }
            if let value = keys["breaking_title"] { configuration.breakingChangesTitle = try string(value, "breaking_title") }
            if let value = keys["miscellaneous_title"] { configuration.miscellaneousTitle = try string(value, "miscellaneous_title") }
            if let value = keys["other_title"] { configuration.otherTitle = try string(value, "other_title") }
            if let value = keys["summary_limit"] {
                guard let limit = value.int, limit > 0 else { throw fail(value, "`summary_limit` must be a positive number", "write `summary_limit: 300`") }
                configuration.summaryCharacterLimit = limit
            }
            if let value = keys["scope"] { configuration.scopeDisplay = try choice(value, "scope", ChangelogConfiguration.ScopeDisplay.self) }
            if let value = keys["skip"] {
                guard let sequence = value.sequence else { throw fail(value, "`skip` must be a list of regular expressions", "write `skip: ['^wip']`") }
                configuration.skipPatterns = try sequence.map { try regex($0, "skip") }
            }
            if let value = keys["parsers"] {
                guard let sequence = value.sequence else {
                    throw fail(value, "`parsers` must be a list", "write one `- { message: '^deps', group: Dependencies }` per rule")
                }
                let titles = configuration.groups.map(\.title)
                configuration.parsers = try sequence.map { item in
                    let fields = try mapping(item, allowed: ["message", "body", "author", "group", "skip"], in: "a parser")
                    let parser = ChangelogConfiguration.CommitParser(
                        message: try fields["message"].map { try regex($0, "message") },
                        body: try fields["body"].map { try regex($0, "body") },
                        author: try fields["author"].map { try regex($0, "author") },
                        group: try fields["group"].map { try string($0, "group") },
                        skip: try fields["skip"].map { try bool($0, "skip") } ?? false
                    )
                    guard parser.message != nil || parser.body != nil || parser.author != nil else {
                        throw fail(item, "a parser matches nothing", "give it `message`, `body` or `author`: a regular expression")
                    }
                    guard parser.skip || parser.group != nil else {
                        throw fail(item, "a parser neither files nor skips", "give it `group: TITLE` or `skip: true`")
                    }
                    if let group = parser.group, !titles.contains(group), let node = fields["group"] {
                        throw fail(node, "the group `\(group)` does not exist", "add it under `groups` (with `types: []` if only parsers fill it), or use one of: " + titles.joined(separator: ", "))
                    }
                    return parser
                }
            }
            if let value = keys["tags"] {
                let fields = try mapping(value, allowed: ["pattern", "ignore", "include_prereleases"], in: "tags")
                var tags = ReleaseTags()
                tags.pattern = try fields["pattern"].map { try string($0, "pattern") }
                tags.ignore = try fields["ignore"].map { try regex($0, "ignore") }
                tags.includePrereleases = try fields["include_prereleases"].map { try bool($0, "include_prereleases") } ?? true
                settings.releaseTags = tags
            }
            if let value = keys["links"] {
                let fields = try mapping(value, allowed: ["commit", "issue"], in: "links")
                configuration.commitLinkTemplate = try fields["commit"].map { try string($0, "commit") }
                configuration.issueLinkTemplate = try fields["issue"].map { try string($0, "issue") }
            }
            settings.changelog = configuration
        }
    }
}

/// One package of a monorepo: `.shiplane.yml` `packages: [{ name: core, path: packages/core }]`.
public struct ProjectPackage: Sendable, Equatable {
    /// Its name, as `lane.package(_:)` and the tags use it.
    public var name: String
    /// Its folder, relative to the repository root, without a trailing slash.
    public var path: String
    /// Its release tags are this prefix and a version: `core-v` (the default format
    /// `{name}-v{version}`), or `core@` for `{name}@{version}`.
    public var tagPrefix: String
    /// Where SwiftPM users get it, when it is also a repository of its own (`repository:`, e.g. a
    /// split-out mirror): a dependent's `.package(url:)` of this URL is this package.
    package var repository: String?
    /// Its identity in a Swift package registry (`registry-id: acme.core`): a dependent's
    /// `.package(id:)` of this identity, compared case-insensitively as SwiftPM does, is this package.
    package var registryID: String?

    /// True for a registry identity SwiftPM accepts (SE-0292): `scope.name`, the scope letters and
    /// digits with single hyphens inside, at most 39; the name letters and digits with single
    /// hyphens or underscores inside, at most 100.
    static func isRegistryID(_ text: String) -> Bool {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2 else { return false }
        func valid(_ piece: Substring, limit: Int, separators: Set<Character>) -> Bool {
            guard (1...limit).contains(piece.count), let first = piece.first, let last = piece.last,
                  first.isASCII && (first.isLetter || first.isNumber), last.isASCII && (last.isLetter || last.isNumber) else { return false }
            var previous: Character = first
            for character in piece.dropFirst() {
                if separators.contains(character) {
                    if separators.contains(previous) { return false }
                } else if !(character.isASCII && (character.isLetter || character.isNumber)) {
                    return false
                }
                previous = character
            }
            return true
        }
        return valid(pieces[0], limit: 39, separators: ["-"]) && valid(pieces[1], limit: 100, separators: ["-", "_"])
    }

    /// Creates a package whose release tags start with `tagPrefix`.
    public init(name: String, path: String, tagPrefix: String) {
        self.name = name
        self.path = path
        self.tagPrefix = tagPrefix
    }

    /// Which tags are this package's releases.
    public var releaseTags: ReleaseTags { ReleaseTags(prefix: tagPrefix) }
}

/// A mistake in `.shiplane.yml`: a usage error (exit 2) naming the file and line.
package struct SettingsError: ReportableError {
    /// What is wrong, naming the file and line.
    package var message: String
    /// How to fix it.
    package var suggestion: String?
    /// A usage mistake.
    package var category: ErrorCategory { .usage }

    /// Creates the error with its message and fix.
    package init(_ message: String, suggestion: String?) {
        self.message = message
        self.suggestion = suggestion
    }
}
