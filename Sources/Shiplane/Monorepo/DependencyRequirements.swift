import Foundation

/// What `UpdateDependencyRequirements` rewrote: each manifest with its bytes before and after,
/// and one line per requirement changed (`app/package.json: core ^1.4.0 → ^2.0.0`).
public struct DependencyRequirementsResult: ReleaseChanges, Equatable, Codable {
    /// Each manifest rewritten, with its bytes before and after (for `commitVersionBump`).
    public let fileChanges: [FileChange]
    /// One line per requirement changed (`packages/app/package.json: @acme/core ^1.4.0 → ^2.0.0`).
    public let changed: [String]

    package init(fileChanges: [FileChange], changed: [String]) {
        self.fileChanges = fileChanges
        self.changed = changed
    }
}

extension DependencyRequirementsResult: ReplayableOutput {}

/// What a manifest's requirement edit did (`GoModRequirements`, `SwiftPackageRequirements`): the
/// text, one line per requirement changed, one note per requirement left on purpose.
struct ManifestEdit: Sendable, Equatable {
    var text: String
    var changed: [String] = []
    var notes: [String] = []
}

/// A monorepo package's release brings its manifests' version requirements of the repository's
/// other packages up to their versions in the work tree (issue 42, item 4): a dependent released
/// after its dependency (a later wave, on a checkout of the branch that holds the dependency's
/// release) requires the version just released, in its own release commit — as changesets'
/// `updateInternalDependencies` does.
///
/// - `package.json`: `dependencies`, `devDependencies` and `optionalDependencies` naming another
///   package by its npm name; the range's operator is kept (`^1.4.0` → `^2.0.0`, `~`, `>=`, `=`,
///   or none). `peerDependencies` are left (widening a peer range is the author's call), and so
///   are `workspace:`, `file:`, `link:`, `*`, tags and compound ranges (`>=1 <2`, `||`).
/// - `Cargo.toml`: `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]` and their
///   `[target…]` forms, as `core = "1.4"`, `core = { path = "../core", version = "1.4.0" }` or a
///   `[dependencies.core]` table's `version`, naming another package's crate; the operator is
///   kept (`^`, `~`, `=`, none).
/// - `go.mod`: `require` of another package's module path, alone or in a block, raised to the
///   version the package's release tags say; Go's `/vN` rule kept (`GoModRequirements`).
/// - `Package.swift`: `.package(url:)` of another package's `repository:` in `.shiplane.yml`, or
///   `.package(id:)` of its `registry-id:` (the packages the manifest names alone have their tags read),
///   raised to its released version, the requirement's form kept; `.package(path:)` carries no
///   version and is left (`SwiftPackageRequirements`).
///
/// A requirement the dependency's version already is (its version part equal) is left. Every
/// manifest is edited in memory first: a line its tool would refuse is a
/// `ManifestRequirementError` naming the file and line, and nothing is written. Each file is
/// journaled (its old bytes saved) before it is written, so a rollback puts it back.
package struct UpdateDependencyRequirements: Action {
    package static let name = "updateDependencyRequirements"
    package init() {}
    package var options: [StepOption] { [] }

    package func run(in step: StepContext) throws -> DependencyRequirementsResult {
        let lane = step.lane
        let root = lane.workingDirectory
        guard let package = lane.package else { return DependencyRequirementsResult(fileChanges: [], changed: []) }
        let others = try ProjectSettings.load(root: root).packages.filter { $0.name != package.name }
        var npmVersions: [String: String] = [:]
        var crateVersions: [String: String] = [:]
        for other in others {
            let folder = root + "/" + other.path
            if let data = try lane.fileSystem.contents(of: folder + "/package.json"),
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               let name = object["name"] as? String, let version = object["version"] as? String {
                npmVersions[name] = version
            }
            if let data = try lane.fileSystem.contents(of: folder + "/Cargo.toml"), let text = String(data: data, encoding: .utf8),
               let (name, version) = Self.cargoPackage(text) {
                crateVersions[name] = version
            }
        }
        let folder = root + "/" + package.path
        // Every manifest is read and edited before any is written: a refused one changes nothing.
        var edits: [(path: String, name: String, before: Data, after: Data, lines: [String])] = []
        for (manifest, edit) in [("package.json", { Self.packageJSONEdited($0, versions: npmVersions) }),
                                 ("Cargo.toml", { Self.cargoEdited($0, versions: crateVersions) })] as [(String, (Data) -> (Data, [String]))] {
            let path = folder + "/" + manifest
            guard let before = try lane.fileSystem.contents(of: path) else { continue }
            let (after, lines) = edit(before)
            edits.append((path, lane.displayPath(path), before, after, lines))
        }
        let goPath = folder + "/go.mod"
        if let before = try lane.fileSystem.contents(of: goPath) {
            let name = lane.displayPath(goPath)
            let text = String(decoding: before, as: UTF8.self)
            let modules = try goModules(of: others, requiredIn: text, lane: lane)
            if !modules.isEmpty {
                let edit = try GoModRequirements.edited(text, file: name, modules: modules)
                for note in edit.notes { step.log(note) }
                edits.append((goPath, name, before, Data(edit.text.utf8), edit.changed))
            }
        }
        // `.package(path:)` names no version; `.package(url:)` of another package's `repository:`
        // and `.package(id:)` of its `registry-id:` do. Only the packages the manifest names have
        // their release tags read.
        let swiftPath = folder + "/Package.swift"
        let linked = others.filter { $0.repository != nil || $0.registryID != nil }
        if !linked.isEmpty, let before = try lane.fileSystem.contents(of: swiftPath) {
            let name = lane.displayPath(swiftPath)
            let text = String(decoding: before, as: UTF8.self)
            let named = try SwiftPackageRequirements.named(in: text, file: name)
            var dependencies: [SwiftPackageRequirements.Dependency] = []
            for other in linked where other.repository.map({ named.urls.contains(SwiftPackageRequirements.normalized($0)) }) == true
                || other.registryID.map({ named.ids.contains($0.lowercased()) }) == true {
                let released = try lane.versionFromTags(other.releaseTags)
                if released.tagOrigin?.tag != nil {
                    dependencies.append(.init(package: other.name, url: other.repository, registryID: other.registryID, version: released.version))
                }
            }
            let edit = try SwiftPackageRequirements.edited(text, file: name, dependencies: dependencies)
            for note in edit.notes { step.log(note) }
            edits.append((swiftPath, name, before, Data(edit.text.utf8), edit.changed))
        }
        var fileChanges: [FileChange] = []
        var changed: [String] = []
        for (path, name, before, after, lines) in edits where after != before {
            changed += lines.map { "\(name): \($0)" }
            if step.isDryRun {
                for line in lines { step.log("would require in \(name): \(line)") }
                continue
            }
            let saved = try step.saveCopy(before)
            let effect = try step.record(FileWritten(path: path, saved: saved, afterHash: SHA256.hex(of: after)), "restore \(name)")
            try writeAtomically(after, to: path)
            step.done(effect, FileWritten(path: path, saved: saved, afterHash: SHA256.hex(of: after)))
            fileChanges.append(FileChange(path: path, displayPath: name, before: before, after: after))
        }
        step.note(changed.isEmpty ? "every requirement of the other packages is up to date" : changed.joined(separator: ", "))
        return DependencyRequirementsResult(fileChanges: fileChanges, changed: changed)
    }

    /// The Go modules of `others` that `goMod` (a dependent's go.mod) names, each with the version
    /// its release tags say (the highest reachable from HEAD); a module never released is left out.
    private func goModules(of others: [ProjectPackage], requiredIn goMod: String, lane: LaneContext) throws -> [GoModRequirements.Module] {
        var modules: [GoModRequirements.Module] = []
        for other in others {
            let path = lane.workingDirectory + "/" + other.path + "/go.mod"
            guard let data = try lane.fileSystem.contents(of: path),
                  let module = GoModRequirements.modulePath(String(decoding: data, as: UTF8.self)),
                  goMod.contains(GoModRequirements.base(of: module)) else { continue }
            let released = try lane.versionFromTags(other.releaseTags)
            guard let tag = released.tagOrigin?.tag else { continue }
            modules.append(.init(package: other.name, path: module, file: lane.displayPath(path), version: released.version, tag: tag))
        }
        return modules
    }

    // MARK: - Requirements

    /// `requirement` with its version set to `version`, its operator kept; nil when it is not a
    /// plain range of one version (a tag, a protocol, a compound range) or already names `version`.
    package static func requirement(_ requirement: String, setTo version: String) -> String? {
        let trimmed = requirement.trimmingCharacters(in: .whitespaces)
        let operators = [">=", "<=", "^", "~", "=", ">"]
        let op = operators.first { trimmed.hasPrefix($0) } ?? ""
        let rest = trimmed.dropFirst(op.count).trimmingCharacters(in: .whitespaces)
        guard !rest.isEmpty, rest.first?.isNumber == true,
              rest.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0.isLetter }),
              rest != version else { return nil }
        return op + version
    }

    /// `package.json` with each plain requirement of a package in `versions` (npm name → version) set to it.
    static func packageJSONEdited(_ data: Data, versions: [String: String]) -> (Data, [String]) {
        guard !versions.isEmpty, (try? JSONSerialization.jsonObject(with: data)) is [String: Any],
              let text = try? VersionText(data, format: "package.json") else { return (data, []) }
        var edits: [(range: Range<Int>, value: String)] = []
        var lines: [String] = []
        for value in JSONKeyPaths.values(in: text) where value.isString && value.path.count == 2 {
            guard ["dependencies", "devDependencies", "optionalDependencies"].contains(value.path[0]),
                  let version = versions[value.path[1]] else { continue }
            let current = String(decoding: text.bytes[value.range], as: UTF8.self)
            guard let updated = requirement(current, setTo: version) else { continue }
            edits.append((value.range, updated))
            lines.append("\(value.path[1]) \(current) → \(updated)")
        }
        var bytes = text.bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.value.utf8))
        }
        return (Data(bytes), lines)
    }

    /// The `[package]` table's `name` and `version` of a Cargo.toml.
    static func cargoPackage(_ text: String) -> (name: String, version: String)? {
        var section = ""
        var name: String?
        var version: String?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { section = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")); continue }
            guard section == "package", let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard value.hasPrefix("\""), let close = value.dropFirst().firstIndex(of: "\"") else { continue }
            let string = String(value[value.index(after: value.startIndex)..<close])
            if key == "name" { name = string } else if key == "version" { version = string }
        }
        guard let name, let version else { return nil }
        return (name, version)
    }

    /// `Cargo.toml` with each plain requirement of a crate in `versions` set to its version:
    /// edited line by line, every other byte as it was.
    static func cargoEdited(_ data: Data, versions: [String: String]) -> (Data, [String]) {
        guard !versions.isEmpty, let text = String(data: data, encoding: .utf8) else { return (data, []) }
        var section = ""
        var lines: [String] = []
        var out: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                section = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                out.append(raw)
                continue
            }
            var edited = raw
            if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                if ManifestFacts.isDependencySection(section) {
                    // `core = "1.4"`, `core = { …, version = "1.4.0" }`, `core.version = "1.4"`.
                    let crate = String(key.split(separator: ".").first ?? Substring(key))
                    if let version = versions[crate] {
                        if line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces).hasPrefix("{") {
                            edited = Self.replacingVersion(in: raw, key: "version", with: version, crate: crate, lines: &lines)
                        } else if !key.contains(".") || key.hasSuffix(".version") {
                            edited = Self.replacingVersion(in: raw, key: nil, with: version, crate: crate, lines: &lines)
                        }
                    }
                } else if let crate = ManifestFacts.dependencyTableName(section), key == "version", let version = versions[crate] {
                    edited = Self.replacingVersion(in: raw, key: nil, with: version, crate: crate, lines: &lines)
                }
            }
            out.append(edited)
        }
        return (Data(out.joined(separator: "\n").utf8), lines)
    }

    /// `line` with the string after `key =` (nil: after the line's first `=`) set to `version`,
    /// its operator kept, when it is a plain requirement that differs.
    private static func replacingVersion(in line: String, key: String?, with version: String, crate: String, lines: inout [String]) -> String {
        let pattern = key.map { #"\b\#($0)\s*=\s*""# } ?? #"=\s*""#
        guard let start = line.range(of: pattern, options: .regularExpression),
              let close = line[start.upperBound...].firstIndex(of: "\"") else { return line }
        let current = String(line[start.upperBound..<close])
        guard let updated = requirement(current, setTo: version) else { return line }
        lines.append("\(crate) \(current) → \(updated)")
        return line.replacingCharacters(in: start.upperBound..<close, with: updated)
    }
}

extension LaneContext {
    /// In a monorepo package's run (`--package`), brings the package's manifests' requirements of
    /// the repository's other packages up to their versions in the work tree (`package.json`,
    /// `Cargo.toml`) or their release tags (`go.mod`, `Package.swift`), as `shiplane bump --package`
    /// does, and returns what changed — for
    /// `commitVersionBump`, so the dependent's release commit carries them.
    @discardableResult
    public func updateDependencyRequirements(file: String = #fileID, line: Int = #line) throws -> DependencyRequirementsResult {
        try run(UpdateDependencyRequirements(), file: file, line: line)
    }
}

extension UpdateDependencyRequirements: DocumentedAction {
    /// How `lane.updateDependencyRequirements` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Versioning",
        summary: "In a monorepo package's run, require the versions the repository's other packages are at (package.json and Cargo.toml ranges, operator kept; go.mod requires, Package.swift .package(url:) of a package's repository and .package(id:) of its registry-id, raised to its release tag), so a dependent's release requires its dependencies' new releases",
        signature: "try lane.updateDependencyRequirements() -> DependencyRequirementsResult",
        parameters: [],
        example: "let requirements = try lane.updateDependencyRequirements()",
        dryRun: "says which requirement it would change in which manifest; writes nothing", rollback: "restores each manifest's bytes, also after a kill"
    )
}
