import Foundation

/// What `updateLockFiles` refreshed: each lock file with its bytes before and after.
public struct LockFileResult: ReleaseChanges, Equatable, Codable {
    /// Each lock file the tool changed, in the order refreshed.
    public let fileChanges: [FileChange]
    /// Lock files that could not be refreshed because their tool is not on `PATH`.
    public let skipped: [String]

    /// Creates the result of a lock-file refresh.
    public init(fileChanges: [FileChange], skipped: [String]) {
        self.fileChanges = fileChanges
        self.skipped = skipped
    }
}

/// Refreshes the lock files next to the manifests a bump rewrote, with the ecosystem's own tool,
/// so the release commit never carries a lock file that names the old version:
///
/// - `Cargo.toml` → the nearest `Cargo.lock` (a workspace's at its root):
///   `cargo update --workspace --offline` (only the workspace's own packages change);
/// - `package.json` → the nearest `package-lock.json`: edited in place as `npm version` does —
///   the top `version` and `packages[""].version` (a workspace member's `packages["<folder>"].version`)
///   take the manifest's new version, every other byte stays. No tool runs: npm's offline refresh
///   fails without its cache and rewrites far more than the version (issue 38: 71 lines where
///   the project's own bump changes 2).
///
/// A lock file whose tool is not on `PATH` is left as it is and named (the step says so); one that
/// does not exist is not created. Each refreshed file is journaled before the tool runs (its old
/// bytes saved), so a rollback — in this process or after a kill — puts it back.
package struct UpdateLockFiles: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "updateLockFiles"
    /// The changes whose manifests are looked at; empty: this run's release steps'.
    package var changes: [any ReleaseChanges]

    /// Creates the action for the manifests of `changes`, or of this run's release steps when empty.
    package init(_ changes: [any ReleaseChanges] = []) {
        self.changes = changes
    }

    /// No options shown.
    package var options: [StepOption] { [] }

    struct Ecosystem {
        var manifest: String
        var lock: String
        var tool: String
        var arguments: [String]
        /// True for a lock file whose version fields are edited in place, with no tool.
        var editedInPlace = false
    }

    static let ecosystems = [
        Ecosystem(manifest: "Cargo.toml", lock: "Cargo.lock", tool: "cargo", arguments: ["update", "--workspace", "--offline"]),
        Ecosystem(manifest: "package.json", lock: "package-lock.json", tool: "npm", arguments: ["version"], editedInPlace: true),
    ]

    /// Runs each ecosystem's tool next to the changed manifests and returns the lock files it changed;
    /// in a dry run only says which tool it would run.
    /// - Throws: when a tool cannot be started or fails (the lock file is put back first), or the run's
    ///   record cannot be written.
    package func run(in step: StepContext) async throws -> LockFileResult {
        let lane = step.lane
        let taken = changes.isEmpty ? lane.state.uncommittedReleaseChanges : changes
        let locks = Self.locks(for: taken, root: lane.workingDirectory)
        var fileChanges: [FileChange] = []
        var skipped: [String] = []
        for (lock, ecosystem) in locks {
            let name = lane.displayPath(lock)
            let folder = (lock as NSString).deletingLastPathComponent
            if ecosystem.editedInPlace {
                if let change = try editLockInPlace(lock, manifests: Self.manifests(of: taken, for: lock, ecosystem), in: step) { fileChanges.append(change) }
                continue
            }
            let command = ([ecosystem.tool] + ecosystem.arguments).joined(separator: " ")
            guard findExecutable(ecosystem.tool, path: lane.environment["PATH"], workingDirectory: folder) != nil else {
                skipped.append(name)
                step.log("\(name) not refreshed: \(ecosystem.tool) is not on PATH, so the release commit would keep the old version in it; install \(ecosystem.tool) or refresh it by hand")
                continue
            }
            if step.isDryRun {
                step.log("would run `\(command)` in \(lane.displayPath(folder)) to refresh \(name)")
                continue
            }
            guard let before = try lane.fileSystem.contents(of: lock) else { continue }
            // Written down before the tool runs: a kill while it writes still restores the file.
            let saved = try step.saveCopy(before)
            let effect = try step.record(FileWritten(path: lock, saved: saved, afterHash: FileWritten.writtenByATool), "restore \(name)")
            let invocation = ProcessInvocation(
                executable: ecosystem.tool, arguments: ecosystem.arguments, workingDirectory: folder,
                environment: lane.environment.variables, timeout: 300
            )
            let result: ProcessResult
            do {
                result = try await lane.processRunner.run(invocation) { line, _ in step.log(line) }
            } catch {
                try? writeAtomically(before, to: lock)
                throw error
            }
            let after = try lane.fileSystem.contents(of: lock) ?? Data()
            guard result.exitCode == 0, !result.terminatedBySignal, !result.timedOut else {
                if after != before { try writeAtomically(before, to: lock) }
                step.done(effect, FileWritten(path: lock, saved: saved, afterHash: SHA256.hex(of: before)))
                throw ShiplaneError(
                    "`\(command)` failed in \(lane.displayPath(folder)) (exit code \(result.exitCode)): \(name) could not be refreshed",
                    info: [("last output", result.lastLines.suffix(10).joined(separator: "\n"))],
                    suggestion: "run it by hand to see why (with --offline it uses only what is cached locally), fix it, and run the release again"
                )
            }
            step.done(effect, FileWritten(path: lock, saved: saved, afterHash: SHA256.hex(of: after)))
            guard after != before else { continue }
            fileChanges.append(FileChange(path: lock, displayPath: name, before: before, after: after))
        }
        step.note(fileChanges.isEmpty && skipped.isEmpty ? "no lock file to refresh"
            : (fileChanges.map(\.displayPath) + skipped.map { "\($0) (not refreshed)" }).joined(separator: ", "))
        return LockFileResult(fileChanges: fileChanges, skipped: skipped)
    }

    /// Sets the version fields of `lock` to the versions of `manifests` (package.json files), as
    /// `npm version` does; journaled like a tool's write. Nil when nothing changed.
    private func editLockInPlace(_ lock: String, manifests: [String], in step: StepContext) throws -> FileChange? {
        let lane = step.lane
        let name = lane.displayPath(lock)
        guard let before = try lane.fileSystem.contents(of: lock) else { return nil }
        let folder = (lock as NSString).deletingLastPathComponent
        var versions: [String: String] = [:]
        for manifest in manifests {
            guard let bytes = try lane.fileSystem.contents(of: manifest),
                  let object = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any], let version = object["version"] as? String else { continue }
            let manifestFolder = (manifest as NSString).deletingLastPathComponent
            versions[manifestFolder == folder ? "" : String(manifestFolder.dropFirst(folder.count + 1))] = version
        }
        let after = try Self.lockEdited(before, versions: versions, name: name)
        guard after != before else { return nil }
        if step.isDryRun {
            step.log("would set the version in \(name) (its top \"version\" and packages[\"\"]), as npm version does")
            return nil
        }
        let saved = try step.saveCopy(before)
        let effect = try step.record(FileWritten(path: lock, saved: saved, afterHash: SHA256.hex(of: after)), "restore \(name)")
        try writeAtomically(after, to: lock)
        step.done(effect, FileWritten(path: lock, saved: saved, afterHash: SHA256.hex(of: after)))
        return FileChange(path: lock, displayPath: name, before: before, after: after)
    }

    /// `lock` (a package-lock.json) with `packages[key].version` set to each of `versions`, and
    /// the top `version` to the root package's (key ""); every other byte as it was.
    /// - Throws: `VersionFileError` when the lock is not valid JSON text.
    static func lockEdited(_ lock: Data, versions: [String: String], name: String) throws -> Data {
        guard (try? JSONSerialization.jsonObject(with: lock)) is [String: Any] else {
            throw VersionFileError(.malformed, "\(name) is not a JSON object", file: name, suggestion: "Repair it (npm install --package-lock-only), then run again")
        }
        let text = try VersionText(lock, format: name)
        var edits: [(range: Range<Int>, value: String)] = []
        for value in JSONKeyPaths.values(in: text) where value.isString {
            if value.path == ["version"], let root = versions[""] {
                edits.append((value.range, root))
            } else if value.path.count == 3, value.path[0] == "packages", value.path[2] == "version", let version = versions[value.path[1]] {
                edits.append((value.range, version))
            }
        }
        var bytes = text.bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.value.utf8))
        }
        return Data(bytes)
    }

    /// The manifests among `changes` whose nearest lock file is `lock`.
    static func manifests(of changes: [any ReleaseChanges], for lock: String, _ ecosystem: Ecosystem) -> [String] {
        let root = (lock as NSString).deletingLastPathComponent
        return changes.flatMap(\.fileChanges).map(\.path).filter {
            $0.hasSuffix("/" + ecosystem.manifest) && nearest(ecosystem.lock, from: ($0 as NSString).deletingLastPathComponent, root: root) == lock
        }
    }

    /// The lock files next to (or above) the manifests `changes` rewrote: what this action would
    /// refresh. Empty: there is nothing for it to do.
    package static func lockFiles(for changes: [any ReleaseChanges], root: String) -> [String] {
        locks(for: changes, root: root).map(\.path)
    }

    /// Each lock file once, with the ecosystem whose tool refreshes it.
    static func locks(for changes: [any ReleaseChanges], root: String) -> [(path: String, ecosystem: Ecosystem)] {
        var locks: [(path: String, ecosystem: Ecosystem)] = []
        for manifest in changes.flatMap(\.fileChanges).map(\.path) {
            guard let ecosystem = ecosystems.first(where: { manifest.hasSuffix("/" + $0.manifest) }),
                  let lock = nearest(ecosystem.lock, from: (manifest as NSString).deletingLastPathComponent, root: root),
                  !locks.contains(where: { $0.path == lock }) else { continue }
            locks.append((lock, ecosystem))
        }
        return locks
    }

    /// `name` in `folder` or the nearest folder above it, up to `root`.
    static func nearest(_ name: String, from folder: String, root: String) -> String? {
        var current = folder
        while current.hasPrefix(root) {
            let candidate = current + "/" + name
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            guard current != root else { break }
            current = (current as NSString).deletingLastPathComponent
        }
        return nil
    }
}

extension LaneContext {
    /// Refreshes `Cargo.lock` / `package-lock.json` next to the manifests the given changes (by
    /// default this run's bump) rewrote, with cargo or npm, and returns what changed — for
    /// `commitVersionBump`, which also takes it on its own when called with no changes.
    @discardableResult
    public func updateLockFiles(_ changes: any ReleaseChanges..., file: String = #fileID, line: Int = #line) async throws -> LockFileResult {
        try await run(UpdateLockFiles(changes), file: file, line: line)
    }
}

extension UpdateLockFiles: DocumentedAction {
    /// How `lane.updateLockFiles` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Versioning",
        summary: "Refresh Cargo.lock (with cargo, offline) or package-lock.json (its version fields, in place) after a bump, so the release commit has no stale lock file",
        signature: "try await lane.updateLockFiles(_ changes: any ReleaseChanges...) -> LockFileResult",
        parameters: [
            .init(name: "changes", type: "any ReleaseChanges...", defaultValue: "this run's release steps", help: "the bump whose Cargo.toml or package.json changed"),
        ],
        example: "let locks = try await lane.updateLockFiles(version)",
        dryRun: "says which tool it would run or which lock it would edit; runs and writes nothing", rollback: "restores each lock file's bytes, also after a kill"
    )
}

/// Replayed on resume from the run's record.
extension LockFileResult: ReplayableOutput {}
