import Foundation
import Shiplane

/// `shiplane bump LEVEL [--build [N]] [--commit] [--tag] [--push] [--dry-run]`, run as a
/// built-in lane, so it has steps, dry run and rollback like any other.
struct BumpLane: Lane, BuiltInLane {
    static let name = "bump"
    static let summary = "Bump the version (and build number), then optionally commit, tag and push"
    static let commandLineHints = [
        (lane: "pass allowOtherChanges: true", command: "pass --allow-dirty"),
        (lane: "or pass ignoring: [...] for paths that may differ", command: "or pass --allow-dirty"),
    ]

    @Argument(
        help: "major, minor, patch, auto (from the commits since the last release tag), release, pre NAME, or a version like 1.6.0",
        completion: .list(["major", "minor", "patch", "auto", "release", "pre"])
    )
    var level: [String] = []

    @Flag(name: .customLong("build"), help: "Increment the build number too; `--build N` sets it to N")
    var incrementBuild = false

    /// `--build N` arrives here (see `BumpCommand.normalized`); not shown, `--build` says it.
    @Option(name: .customLong("build-number"), help: .hidden)
    var buildNumber: String?

    @Flag(help: "Commit the changed version files")
    var commit = false

    @Flag(help: "Tag the commit (needs --commit, unless the version lives in tags)")
    var tag = false

    @Flag(help: "Push the branch and the tag (needs --commit, unless the version lives in tags)")
    var push = false

    @Option(help: "On a detached HEAD (CI), the branch to release to: the commit is made on HEAD and pushed there (default: from the CI's variables)")
    var branch: String?

    @Option(help: "The commit message; {version} (and {build}) are replaced")
    var message = "chore(release): {version}"

    @Option(help: "Prefix of the tag name (default: as the repository's release tags are written, `v` when there is none)")
    var tagPrefix: String?

    @Option(help: "The remote to push to")
    var remote = "origin"

    @Flag(help: "Commit even when other files are dirty (they stay uncommitted)")
    var allowDirty = false

    @Flag(inversion: .prefixedNo, help: "Sign the commit and the tag (default: as git config's commit.gpgSign and tag.gpgSign say)")
    var sign: Bool?

    @Option(help: "A package of the monorepo (.shiplane.yml `packages`): bump its version from the commits touching it, tag NAME-vX.Y.Z")
    var package: String?

    @Flag(help: "Every package of the monorepo in turn, each with its own commit and tag; with auto, those with nothing to release are skipped")
    var all = false

    func validate() throws {
        guard !level.isEmpty || incrementBuild || buildNumber != nil else {
            throw ValidationError("say how to bump: major, minor, patch, auto, release, pre NAME or a version; or only the build number with --build (or --build N)")
        }
        if !level.isEmpty { _ = try VersionBump(parsing: level.joined(separator: " ")) }
        if level.isEmpty && tag {
            throw ValidationError("--tag needs a version bump: --build alone keeps the version, and the version's tag with it")
        }
        if branch?.isEmpty == true { throw ValidationError("--branch needs a branch name") }
        if incrementBuild && buildNumber != nil { throw ValidationError("pass --build or --build N, not both") }
        if all && package != nil { throw ValidationError("pass --package NAME or --all, not both") }
    }

    func run(_ whole: LaneContext) async throws {
        // A monorepo's root has no version of its own: refuse before any step, naming each
        // package with the command that bumps it.
        if !all, package == nil, case let packages = try ProjectSettings.load(root: whole.workingDirectory).packages, !packages.isEmpty {
            throw MonorepoRootError(packages: packages, command: refusedCommand)
        }
        guard all else {
            let packaged = try package.map { try whole.package($0) } ?? whole
            try await bump(branch.map { packaged.onBranch($0) } ?? packaged)
            return
        }
        let packages = try ProjectSettings.load(root: whole.workingDirectory).packages
        guard !packages.isEmpty else {
            throw ValidationFailure(problems: ["--all bumps the packages of a monorepo, and \(ProjectSettings.fileName) declares none"],
                                    suggestion: "declare them (`packages: [{ name: core, path: packages/core }]`), or run without --all")
        }
        var bumped: [String] = []
        var skipped: [any Error] = []
        for package in packages {
            let packaged = try whole.package(package.name)
            do {
                try await bump(branch.map { packaged.onBranch($0) } ?? packaged)
                bumped.append(package.name)
            } catch where ErrorCategory.folded(error) == .nothingToDo {
                // `auto` with no releasable commit touching this package: the others still go.
                whole.log("\(package.name): nothing to release; skipped")
                skipped.append(error)
            }
        }
        whole.log(bumped.isEmpty ? "no package had anything to release" : "bumped " + bumped.joined(separator: ", "))
        if bumped.isEmpty, let first = skipped.first { throw first }
    }

    /// This command as typed, without `--package`: what each package's command starts with.
    private var refusedCommand: String {
        (["shiplane", "bump"] + level + (incrementBuild ? ["--build"] : []) + (buildNumber.map { ["--build", $0] } ?? [])
            + (commit ? ["--commit"] : []) + (tag ? ["--tag"] : []) + (push ? ["--push"] : [])).joined(separator: " ")
    }

    private func bump(_ lane: LaneContext) async throws {
        try checkBeforeAnyEffect(lane)
        guard !level.isEmpty else { return try await bumpBuildOnly(lane) }
        let bump = try VersionBump(parsing: level.joined(separator: " "))
        let version = try lane.bumpVersion(bump)
        var changes: [any ReleaseChanges] = [version]
        // A monorepo package requires the versions of the repository's other packages it
        // depends on as its checkout has them (a dependency released in an earlier wave).
        if lane.package != nil {
            let requirements = try lane.run(UpdateDependencyRequirements())
            if !requirements.fileChanges.isEmpty { changes.append(requirements) }
        }
        // Cargo.lock and package-lock.json name the version too: refresh them with their tool.
        if !UpdateLockFiles.lockFiles(for: [version], root: lane.workingDirectory).isEmpty {
            let locks = try await lane.updateLockFiles(version)
            if !locks.fileChanges.isEmpty { changes.append(locks) }
        }
        var build: String?
        if buildNumber != nil || incrementBuild {
            let result = try lane.incrementBuildNumber(buildNumber.map { .set($0) } ?? .increment)
            changes.append(result)
            build = result.build
        }
        // A package's release commit names its tag (`chore(release): core-v1.3.0`).
        let shownVersion = lane.package != nil ? lane.releaseTagName(version) : version.description
        let text = message.replacingOccurrences(of: "{version}", with: shownVersion)
            + (build.map { message.contains("{build}") ? "" : " (\($0))" } ?? "")
        let tagName = lane.releaseTagName(version, prefix: tagPrefix)
        // A tag-only project (no version file) is released by its tag: bumping means tagging,
        // and a commit is made only when something was written (a build number file).
        let written = changes.contains { !$0.fileChanges.isEmpty }
        let tagging = tag || version.versionInTags
        if version.versionInTags && !tag {
            lane.log("no version file: the version lives in tags, so the bump is the tag \(tagName)")
        }
        if commit && written {
            try lane.commitVersionBump(changes, message: text.replacingOccurrences(of: "{build}", with: build ?? ""), allowOtherChanges: allowDirty, sign: sign)
        } else if commit {
            lane.log("nothing was written, so there is nothing to commit: the tag names HEAD")
        }
        if tagging { try lane.addGitTag(tagName, message: "Release \(version)", sign: sign) }
        if push { try await lane.push(remote: remote, tags: tagging ? [tagName] : []) }
        lane.log("version \(version)" + (build.map { ", build \($0)" } ?? "") + (tagging ? ", tag \(tagName)" : ""))
    }

    /// `bump --build [N]` with no level: the build number alone moves (every file that holds it);
    /// the version, and so its tag, stay. `--commit` commits it as `chore(release): 2.5.0 (46)`.
    private func bumpBuildOnly(_ lane: LaneContext) async throws {
        let result = try lane.incrementBuildNumber(buildNumber.map { .set($0) } ?? .increment)
        let version = try lane.versionDetails().version
        let shownVersion = lane.package != nil ? lane.releaseTagName(version) : version
        let text = message.replacingOccurrences(of: "{version}", with: shownVersion)
        let subject = text.contains("{build}") ? text.replacingOccurrences(of: "{build}", with: result.build) : text + " (\(result.build))"
        if commit {
            try lane.commitVersionBump([result], message: subject, allowOtherChanges: allowDirty, sign: sign)
        }
        if push { try await lane.push(remote: remote, tags: []) }
        lane.log("version \(version) kept, build \(result.build)")
    }
}

extension BumpLane {
    /// What can be known wrong before anything is written: not in a pull-request pipeline (see
    /// `Journal.refuseEffects`); `--tag` and `--push` need `--commit`
    /// when the bump writes files (a tag-only project's bump is its tag), and a commit or push on
    /// a detached HEAD needs a branch to go to (and, to be pushed, a history that is not shallow).
    /// - Throws: `ValidationFailure`, or `RepositoryProblem.detachedHead` naming where it looked.
    private func checkBeforeAnyEffect(_ lane: LaneContext) throws {
        // Every bump writes: in a pull-request pipeline it stops here, before its first step.
        try lane.journal.checkRefusal()
        if (tag || push) && !commit {
            let writesFiles = try incrementBuild || buildNumber != nil || !lane.versionLivesInTags()
            if writesFiles {
                let option = tag ? "--tag" : "--push"
                throw ValidationFailure(
                    problems: ["\(option) needs --commit: the bump writes version files, and without a commit the "
                        + (tag ? "tag would name the commit before the bump" : "push would not carry them")],
                    suggestion: "add --commit"
                )
            }
        }
        if commit || push { _ = try lane.releaseBranchName(pushing: push) }
    }
}

enum BumpCommand {
    /// `--build` alone increments the build number; `--build N` sets it.
    static func normalized(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--build" {
                if index + 1 < arguments.count, arguments[index + 1].first?.isNumber == true {
                    result += ["--build-number", arguments[index + 1]]
                    index += 2
                    continue
                }
                result.append("--build")
            } else {
                result.append(argument)
            }
            index += 1
        }
        return result
    }
}

extension BumpLane {
    /// `--sign` with `--commit` or `--tag`: the commit and the tag are signed whatever git's
    /// configuration says, so the run's preflight checks git's signing key for them (the
    /// command adds them to the session's `namedSigningKeys`).
    var signingKeysNamed: [NamedSigningKey] {
        guard sign == true else { return [] }
        return (commit ? [NamedSigningKey(.commit, variable: nil, location: "shiplane bump --sign")] : [])
            + (tag ? [NamedSigningKey(.tag, variable: nil, location: "shiplane bump --sign")] : [])
    }
}
