import Foundation
internal import Git

/// What a monorepo releases now: the packages changed since their last release, and the packages
/// that depend on them, in dependency order — the parts a CI matrix runs, one job per package.
///
/// A package has changed when its folder at HEAD differs from its folder at its last release
/// tag (the highest `{name}-v…` release tag reachable from HEAD), or when it has no release yet.
/// Its level is what the conventional commits touching its folder since that tag call for
/// (`versions:` rules, as `shiplane bump auto --package` reads them); a changed package whose
/// commits call for none (only `chore:`, `docs:` …) is not released. A package that depends on a
/// released one (directly or through others: `PackageGraph`) gets a patch release after it.
/// `waves` orders them: every package of a wave depends only on packages of earlier waves, so a
/// CI runs one wave's jobs at once and the next wave after it.
package struct PackagePlan: Sendable, Equatable, Codable {
    /// One package to release.
    package struct Part: Sendable, Equatable, Codable {
        /// The package's name in `.shiplane.yml`.
        package var name: String
        /// Its folder.
        package var path: String
        /// `major`, `minor` or `patch`.
        package var level: String
        /// `changed` (its own commits), `first release` (no release tag yet) or `depends on NAME`.
        package var reason: String
        /// Its last release tag, nil before its first release.
        package var lastTag: String?
        /// The version the last tag names (the next comes from its files or tags when it runs).
        package var lastVersion: String?
        /// The releasing commits since the last tag that touch its folder.
        package var commits: Int
        /// The packages of this plan it is released after.
        package var after: [String]
        /// Its wave, from 1: it runs once every earlier wave is done.
        package var wave: Int
        /// The command a CI job runs for it.
        package var command: String
    }

    /// The commit planned from.
    package var head: String
    /// What to release, wave by wave, by name within a wave.
    package var parts: [Part]
    /// The names of `parts`, wave by wave.
    package var waves: [[String]]
    /// How many packages have nothing to release.
    package var unchanged: Int

    /// The command a job runs for a package at a level.
    package static func command(package: String, level: String) -> String {
        "shiplane bump \(level) --package \(package) --commit --tag --push"
    }
}

extension PackagePlan {
    /// Plans the release of `root`'s packages at HEAD.
    /// - Throws: `ValidationFailure` when `.shiplane.yml` declares no packages, `PackageCycle`,
    ///   `SettingsError`, `RepositoryProblem` (no commits, a shallow clone), `GitFailure`.
    package static func make(root: String) throws -> PackagePlan {
        let settings = try ProjectSettings.load(root: root)
        guard !settings.packages.isEmpty else {
            throw ValidationFailure(problems: ["\(ProjectSettings.fileName) declares no packages: there is nothing to plan"],
                                    suggestion: "declare them (`packages: [{ name: core, path: packages/core }]`)")
        }
        // The walk reads each tree once or twice, far apart: libgit2's object cache would keep
        // hundreds of megabytes of them (700 MiB on the 10,000-package benchmark) that it seldom
        // serves, and its page faults and bookkeeping cost a fifth of the plan's CPU.
        Libgit2.turnOffObjectCache()
        let repository = try RepositoryAccess.open(at: root)
        return try git {
            guard !repository.isShallow else { throw RepositoryProblem.shallowClone(path: root) }
            let head: ObjectID
            switch try repository.head() {
            case .branch(_, let commit), .detached(let commit): head = commit
            case .unborn(let branch): throw RepositoryProblem.noCommits(branch: branch)
            }
            let graph = PackageGraph.read(root: root, settings: settings)
            return try make(settings: settings, graph: graph, repository: repository, head: head)
        }
    }

    static func make(settings: ProjectSettings, graph: PackageGraph, repository: Repository, head: ObjectID) throws -> PackagePlan {
        let packages = settings.packages
        let lastTags = try lastReleaseTags(of: packages, repository: repository, head: head)

        // Changed: the folder at HEAD is not the folder at the last release (one read per commit).
        let atHead = try repository.objects(at: head, paths: packages.map(\.path))
        var changed: [Int] = []
        var byTagCommit: [ObjectID: [Int]] = [:]
        for (index, package) in packages.enumerated() {
            if let tag = lastTags[package.name] { byTagCommit[tag.commit, default: []].append(index) } else if atHead[index] != nil { changed.append(index) }
        }
        for (commit, indexes) in byTagCommit {
            let then = try repository.objects(at: commit, paths: indexes.map { packages[$0].path })
            for (position, index) in indexes.enumerated() where then[position] != atHead[index] { changed.append(index) }
        }

        // Levels: the commits since each changed package's tag that touch its folder, in one walk
        // of the history for all of them (`Repository.messagesChanging`).
        let rules = settings.bumpRules
        var levels: [String: (level: BumpLevel, commits: Int)] = [:]
        let messages = try repository.messagesChanging(
            changed.map { packages[$0].path }, since: changed.map { lastTags[packages[$0].name]?.commit }, from: head)
        for (position, index) in changed.enumerated() {
            let package = packages[index]
            let zero = lastTags[package.name].map { $0.version.major == 0 } ?? true
            if let level = ConventionalCommit.bumpLevel(for: messages[position], currentMajorIsZero: zero, rules: rules) {
                let releasing = messages[position].filter { ConventionalCommit(parsing: $0)?.bumpLevel(currentMajorIsZero: zero, rules: rules) != nil }
                levels[package.name] = (level, releasing.count)
            }
        }

        let released = Set(levels.keys)
        let dependents = graph.dependents(of: released)
        let planned = released.union(dependents)
        let waves = try graph.waves(of: planned)
        var waveOf: [String: Int] = [:]
        for (number, wave) in waves.enumerated() { for name in wave { waveOf[name] = number + 1 } }
        let byName = Dictionary(packages.map { ($0.name, $0) }) { first, _ in first }
        var parts: [Part] = []
        for name in waves.joined() {
            guard let package = byName[name] else { continue }
            let last = lastTags[name]
            let own = levels[name]
            let after = graph.allDependencies(of: name).intersection(planned)
            let level = own?.level.name ?? "patch"
            let reason = own != nil ? (last == nil ? "first release" : "changed")
                : "depends on " + (graph.dependencies[name] ?? []).filter(planned.contains).joined(separator: ", ")
            parts.append(Part(
                name: name, path: package.path, level: level, reason: reason, lastTag: last?.name, lastVersion: last?.version.description,
                commits: own?.commits ?? 0, after: after.sorted(), wave: waveOf[name] ?? 1, command: command(package: name, level: level)))
        }
        return PackagePlan(head: head.hex, parts: parts, waves: waves, unchanged: packages.count - parts.count)
    }

    /// Each package's last release: its highest release tag whose commit HEAD reaches.
    static func lastReleaseTags(of packages: [ProjectPackage], repository: Repository, head: ObjectID) throws
        -> [String: (name: String, commit: ObjectID, version: SemanticVersion)] {
        let byPrefix = Dictionary(packages.map { ($0.tagPrefix, $0.name) }) { first, _ in first }
        var candidates: [String: [(name: String, commit: ObjectID, version: SemanticVersion)]] = [:]
        for tag in try repository.tags() {
            // The version starts at a digit; the prefix before it names the package.
            var index = tag.name.startIndex
            while let digit = tag.name[index...].firstIndex(where: \.isASCIIDigit) {
                if let package = byPrefix[String(tag.name[..<digit])], let version = SemanticVersion(tagged: String(tag.name[digit...])) {
                    candidates[package, default: []].append((tag.name, tag.target, version))
                    break
                }
                index = tag.name.index(after: digit)
            }
        }
        let reachable = try repository.reachable(Array(Set(candidates.values.joined().map(\.commit))), from: head)
        var result: [String: (name: String, commit: ObjectID, version: SemanticVersion)] = [:]
        for (package, tags) in candidates {
            result[package] = tags.filter { reachable.contains($0.commit) }.max { $0.version < $1.version }
        }
        return result
    }
}

extension PackageGraph {
    /// What `name` depends on, directly or through others.
    func allDependencies(of name: String) -> Set<String> {
        var seen = Set<String>()
        var pending = dependencies[name] ?? []
        while let next = pending.popLast() {
            if seen.insert(next).inserted { pending.append(contentsOf: dependencies[next] ?? []) }
        }
        seen.remove(name)
        return seen
    }
}
