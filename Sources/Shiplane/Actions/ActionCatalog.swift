/// The built-in actions as `shiplane actions` and `shiplane action NAME` describe them.
public struct ActionDescription: Codable, Sendable, Equatable {
    public struct Parameter: Codable, Sendable, Equatable {
        public var name: String
        public var type: String
        public var defaultValue: String?
        public var help: String
    }

    public var name: String
    public var domain: String
    public var summary: String
    public var signature: String
    public var parameters: [Parameter]
    public var example: String
    /// What a dry run does with this action.
    public var dryRun: String
    /// What rollback undoes.
    public var rollback: String
}

/// The list of built-in actions, in the order a release lane uses them.
public enum ActionCatalog {
    public static let all: [ActionDescription] = [
        ActionDescription(
            name: "ensureGitBranch", domain: "Git",
            summary: "Fail unless the current branch's whole name matches a regular expression",
            signature: "try lane.ensureGitBranch(matching: String) -> String",
            parameters: [.init(name: "matching", type: "String", defaultValue: nil, help: "ICU regular expression matched against the WHOLE branch name (anchored, unlike fastlane's)")],
            example: #"try lane.ensureGitBranch(matching: "main|release/.+")"#,
            dryRun: "runs (it only reads)", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "ensureGitStatusClean", domain: "Git",
            summary: "Fail when files are staged, modified, untracked or conflicted; the error lists them",
            signature: "try lane.ensureGitStatusClean(ignoring: [String] = [])",
            parameters: [.init(name: "ignoring", type: "[String]", defaultValue: "[]", help: "glob patterns of paths that may differ (`*.log`, `build/`)")],
            example: "try lane.ensureGitStatusClean()",
            dryRun: "runs (it only reads)", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "version", domain: "Versioning",
            summary: "The version the version files agree on (after any bump earlier in the run)",
            signature: "try lane.version(files: [VersionFileReference]? = nil) -> SemanticVersion",
            parameters: [.init(name: "files", type: "[VersionFileReference]?", defaultValue: "detected", help: "files to read: \"VERSION\", .file(\"App/Info.plist\"), .pattern(\"Sources/App/Build.swift\", #\"v = \"(.+)\"\"#)")],
            example: "let current = try lane.version()",
            dryRun: "runs; sees versions written by earlier steps of the dry run", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "bumpVersion", domain: "Versioning",
            summary: "Bump the version in every version file: major, minor, patch, auto (conventional commits since the last release tag), release, pre:NAME or an exact version",
            signature: "try lane.bumpVersion(_ bump: VersionBump, files: [VersionFileReference]? = nil) -> SemanticVersion",
            parameters: [
                .init(name: "bump", type: "VersionBump", defaultValue: nil, help: ".major, .minor, .patch, .auto, .release, .prerelease(\"beta\"), .exact(version); as an option: major, auto, pre:beta, 2.0.0"),
                .init(name: "files", type: "[VersionFileReference]?", defaultValue: "detected", help: "VERSION, Swift constants, Info.plist, pbxproj, xcconfig, podspec, package.json, Cargo.toml, pyproject.toml, or a pattern"),
            ],
            example: "let version = try lane.bumpVersion(bump)",
            dryRun: "writes to the overlay: later steps see the new version, the files are untouched", rollback: "restores each file's bytes, unless it changed since"
        ),
        ActionDescription(
            name: "incrementBuildNumber", domain: "Versioning",
            summary: "Change the build number (CFBundleVersion, CURRENT_PROJECT_VERSION): increment, set, from CI, or the commit count",
            signature: "try lane.incrementBuildNumber(_ change: BuildNumberChange = .increment) -> String",
            parameters: [.init(name: "change", type: "BuildNumberChange", defaultValue: ".increment", help: ".increment, .set(\"42\"), .fromCI (GITHUB_RUN_NUMBER, BUILD_NUMBER, CI_PIPELINE_IID, ...), .commitCount")],
            example: "let build = try lane.incrementBuildNumber()",
            dryRun: "writes to the overlay", rollback: "restores each file's bytes"
        ),
        ActionDescription(
            name: "commitVersionBump", domain: "Git",
            summary: "Commit exactly the files this run's version steps changed; refuses when other files are dirty",
            signature: "try lane.commitVersionBump(message: String? = nil, allowOtherChanges: Bool = false) -> String?",
            parameters: [
                .init(name: "message", type: "String?", defaultValue: "\"Version bump to X\"", help: "the commit message"),
                .init(name: "allowOtherChanges", type: "Bool", defaultValue: "false", help: "commit even when other files are dirty (they stay uncommitted)"),
            ],
            example: #"try lane.commitVersionBump(message: "Version bump to \(version)")"#,
            dryRun: "says which files it would commit", rollback: "moves the branch back if HEAD is still the commit"
        ),
        ActionDescription(
            name: "addGitTag", domain: "Git",
            summary: "Tag HEAD, annotated by default; an existing tag is refused unless force",
            signature: "try lane.addGitTag(_ tag: String, message: String? = nil, lightweight: Bool = false, force: Bool = false)",
            parameters: [
                .init(name: "tag", type: "String", defaultValue: nil, help: "the tag name, e.g. \"v\\(version)\""),
                .init(name: "message", type: "String?", defaultValue: "\"Release TAG\"", help: "the annotated tag's message"),
                .init(name: "lightweight", type: "Bool", defaultValue: "false", help: "a lightweight tag (no tagger, no message)"),
                .init(name: "force", type: "Bool", defaultValue: "false", help: "move an existing tag"),
            ],
            example: #"try lane.addGitTag("v\(version)")"#,
            dryRun: "checks the tag does not exist, says what it would tag", rollback: "deletes the tag if it still points where it was put"
        ),
        ActionDescription(
            name: "gitTagExists", domain: "Git", summary: "Whether a tag exists locally",
            signature: "try lane.gitTagExists(_ tag: String) -> Bool", parameters: [.init(name: "tag", type: "String", defaultValue: nil, help: "the tag name")],
            example: #"if try lane.gitTagExists("v2.0.0") { ... }"#, dryRun: "runs", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "lastGitTag", domain: "Git", summary: "The nearest release tag (SemVer name, v optional) reachable from HEAD",
            signature: "try lane.lastGitTag(includePrereleases: Bool = true) -> String?", parameters: [.init(name: "includePrereleases", type: "Bool", defaultValue: "true", help: "count v1.2.0-rc.1 as a release")],
            example: "let previous = try lane.lastGitTag()", dryRun: "runs", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "numberOfCommits", domain: "Git", summary: "The number of commits reachable from HEAD",
            signature: "try lane.numberOfCommits() -> Int", parameters: [],
            example: "let count = try lane.numberOfCommits()", dryRun: "runs", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "push", domain: "Git",
            summary: "Push the current branch and only the named tags (never every local tag); https with a token, ssh through the agent",
            signature: "try await lane.push(remote: String = \"origin\", branch: Bool = true, tags: [String] = [])",
            parameters: [
                .init(name: "remote", type: "String", defaultValue: "\"origin\"", help: "the remote's name"),
                .init(name: "branch", type: "Bool", defaultValue: "true", help: "push the current branch"),
                .init(name: "tags", type: "[String]", defaultValue: "[]", help: "tags to push"),
            ],
            example: #"try await lane.push(tags: ["v\(version)"])"#,
            dryRun: "says what it would push", rollback: "deletes the pushed tags on the remote; a pushed branch is reported as kept"
        ),
        ActionDescription(
            name: "ensureTool", domain: "Build",
            summary: "Fail unless a command-line tool's version satisfies a requirement",
            signature: "try await lane.ensureTool(_ tool: String, version: String) -> String",
            parameters: [
                .init(name: "tool", type: "String", defaultValue: nil, help: "the command, run as `TOOL --version`"),
                .init(name: "version", type: "String", defaultValue: nil, help: "requirement: `>= 6.0`, `>= 5.9, < 7`, `~> 5.9`, `= 2.39.5`"),
            ],
            example: #"try await lane.ensureTool("swift", version: ">= 6.0")"#,
            dryRun: "runs (it only reads)", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "sh", domain: "Build",
            summary: "Run a command (an argument list, no shell) from the repository root; output streams live and is returned",
            signature: "try await lane.sh(_ command: String...) -> String; lane.sh(_ command: [String], environment:, directory:, timeout:, readOnly:); lane.shell(_ line: String) for /bin/sh -c",
            parameters: [
                .init(name: "command", type: "[String]", defaultValue: nil, help: "executable and arguments; no shell interprets them"),
                .init(name: "environment", type: "[String: String]", defaultValue: "[:]", help: "variables added for this command"),
                .init(name: "directory", type: "String?", defaultValue: "repository root", help: "folder to run in, relative to the root"),
                .init(name: "timeout", type: "TimeInterval?", defaultValue: "none", help: "seconds before the command is stopped (SIGTERM, then SIGKILL)"),
                .init(name: "readOnly", type: "Bool", defaultValue: "false", help: "the command only reads: run it in a dry run too"),
            ],
            example: #"try await lane.sh("swift", "build", "-c", "release")"#,
            dryRun: "prints `would run: ...` instead of running, unless readOnly", rollback: "nothing to undo (a command's effects are its own)"
        ),
    ]

    public static func named(_ name: String) -> ActionDescription? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }
}
