// Public: `VersionBump` is an option type (`ExpressibleByArgument`) lanes declare.
public import ArgumentParser
import Foundation

extension VersionBump: ExpressibleByArgument {
    /// How the default bump is shown in `--help`: as it is written on the command line.
    public var defaultValueDescription: String { description }

    /// What the shell completes for a lane's `VersionBump` option (a version like 1.6.0 is typed).
    public static var defaultCompletionKind: CompletionKind { .list(["major", "minor", "patch", "auto", "release"]) }
}

/// Moves the version in every version file: major, minor, patch, auto (from the commits since
/// the last release tag), a prerelease, release, or an exact version.
///
/// Every file is rewritten in place with every other byte kept, atomically, with its undo in the
/// journal. The files must agree before the bump; if not, the error lists each file and version.
package struct BumpVersion: Action {
    /// The action's name in steps and reports.
    package static let name = "bumpVersion"
    /// How the version moves.
    package var bump: VersionBump
    /// The version files to rewrite; nil: those detected in the project.
    package var files: [VersionFileReference]?

    /// Creates the action that applies `bump` to `files`, or to the detected version files.
    package init(_ bump: VersionBump, files: [VersionFileReference]? = nil) {
        self.bump = bump
        self.files = files
    }

    /// The bump.
    package var options: [StepOption] { [StepOption("bump", bump.description)] }

    /// `version`: the version the bump made.
    package func runOutputs(of output: VersionBumpResult) -> [(name: String, value: String)] { [("version", output.description)] }

    /// Returns the new version and every file it rewrote (each read once, from the bytes agreed on).
    package func run(in step: StepContext) throws -> VersionBumpResult {
        let lane = step.lane
        let current = try lane.readVersion(files)
        let next = try bump.apply(to: current.version) {
            try lane.releaseLevelSinceLastTag(currentVersion: current.version)
        }
        if let origin = current.tagOrigin {
            lane.state.bumpedVersion = next
            step.note("\(current.version) → \(next) (no version file: the version lives in tags"
                + (origin.tag.map { ", last release \($0))" } ?? ", none yet)"))
            return VersionBumpResult(previous: current.version, version: next, fileChanges: [], versionInTags: true)
        }
        lane.state.bumpedVersion = next
        var changes: [FileChange] = []
        for source in current.sources where source.reading.holdsVersion {
            let updated = try source.rewritten(version: next, build: nil)
            if let change = try step.writeFile(updated, to: source.file.url.path, describedAs: source.file.displayPath, replacing: source.bytes) {
                changes.append(change)
            }
        }
        let changed = changes.map(\.displayPath)
        step.note("\(current.shown) → \(current.shown(next))" + (changed.isEmpty ? "" : " (\(changed.joined(separator: ", ")))"))
        for delegated in current.delegated {
            step.log("\(delegated.displayPath) takes its version from build settings; left as it is")
        }
        for target in current.leftAlone {
            step.log(target)
        }
        for file in current.ignored {
            step.log("\(file); ignored")
        }
        for follower in current.outOfStep {
            step.log("\(follower) was out of step with the app; now \(current.shown(next))")
        }
        var result = VersionBumpResult(previous: current.version, version: next, fileChanges: changes)
        // A version the files write in fewer numbers (`7.77`) is tagged and committed so too.
        let shown = current.shown(next)
        if shown != next.description { result.shown = shown }
        return result
    }
}

/// Reads the version the version files agree on.
package struct CurrentVersion: Action {
    /// The action's name in steps and reports.
    package static let name = "version"
    /// The version files to read; nil: those detected in the project.
    package var files: [VersionFileReference]?

    /// Creates the action that reads `files`, or the detected version files.
    package init(files: [VersionFileReference]? = nil) {
        self.files = files
    }

    /// Returns the version the files agree on.
    /// - Throws: `VersionFileError` when they disagree, cannot be read, or none is found.
    package func run(in step: StepContext) throws -> SemanticVersion {
        let agreed = try step.lane.readVersion(files)
        step.note(agreed.shown + (agreed.shownBuild.map { " (\($0))" } ?? ""))
        return agreed.version
    }
}

extension LaneContext {
    /// Bumps the version in every version file (detected, or those named) and returns what it
    /// changed: the new version (which it reads as in text) and the files, for `commitVersionBump`.
    @discardableResult
    public func bumpVersion(
        _ bump: VersionBump, files: [VersionFileReference]? = nil, file: String = #fileID, line: Int = #line
    ) throws -> VersionBumpResult {
        try run(BumpVersion(bump, files: files), file: file, line: line)
    }

    /// True when the project has no version file and its version lives in release tags: a bump
    /// there writes nothing and is released by its tag.
    public func versionLivesInTags() throws -> Bool {
        try readVersion(nil).tagOrigin != nil
    }

    /// The version the version files agree on (after any bump earlier in this run).
    public func version(files: [VersionFileReference]? = nil, file: String = #fileID, line: Int = #line) throws -> SemanticVersion {
        try run(CurrentVersion(files: files), file: file, line: line)
    }
}

extension CurrentVersion: DocumentedAction {
    /// How `lane.version` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Versioning",
        summary: "The version the version files agree on (after any bump earlier in the run)",
        signature: "try lane.version(files: [VersionFileReference]? = nil) -> SemanticVersion",
        parameters: [.init(name: "files", type: "[VersionFileReference]?", defaultValue: "detected", help: "files to read: \"VERSION\", .file(\"App/Info.plist\"), .pattern(\"Sources/App/Build.swift\", #\"v = \"(.+)\"\"#)")],
        example: "let current = try lane.version()",
        dryRun: "runs; sees versions written by earlier steps of the dry run", rollback: "nothing to undo"
    )
}

extension BumpVersion: DocumentedAction {
    /// How `lane.bumpVersion` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Versioning",
        summary: "Bump the version in every version file: major, minor, patch, auto (conventional commits since the last release tag), release, pre:NAME or an exact version",
        signature: "try lane.bumpVersion(_ bump: VersionBump, files: [VersionFileReference]? = nil) -> VersionBumpResult",
        parameters: [
            .init(name: "bump", type: "VersionBump", defaultValue: nil, help: ".major, .minor, .patch, .auto, .release, .prerelease(\"beta\"), .exact(version); as an option: major, auto, pre:beta, 2.0.0"),
            .init(name: "files", type: "[VersionFileReference]?", defaultValue: "detected", help: "VERSION, Swift constants, Info.plist, pbxproj, xcconfig, podspec, package.json, Cargo.toml, pyproject.toml, or a pattern"),
        ],
        example: "let version = try lane.bumpVersion(bump)",
        dryRun: "writes to the overlay: later steps see the new version, the files are untouched", rollback: "restores each file's bytes, unless it changed since"
    )
}
