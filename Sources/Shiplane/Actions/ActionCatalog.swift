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
            summary: "Commit exactly the files this run's release steps changed (version files, CHANGELOG.md); refuses when other files are dirty",
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
            name: "changelog", domain: "Changelog",
            summary: "Release notes from the conventional commits of a range, grouped (breaking changes first), Markdown, JSON or a Mustache template",
            signature: "try lane.changelog(since: ChangelogRange = .lastTag, version: String? = nil, format: ChangelogFormat = .markdown) -> String",
            parameters: [
                .init(name: "since", type: "ChangelogRange", defaultValue: ".lastTag", help: ".lastTag (the release being made), .unreleased, .range(from:to:), .all"),
                .init(name: "version", type: "String?", defaultValue: "nil", help: "heading for unreleased work"),
                .init(name: "format", type: "ChangelogFormat", defaultValue: ".markdown", help: ".markdown, .json, .template(text)")
            ],
            example: #"let notes = try lane.changelog(since: .lastTag)"#,
            dryRun: "runs (it only reads)", rollback: "nothing to undo"
        ),
        ActionDescription(
            name: "writeChangelog", domain: "Changelog",
            summary: "Insert the release's section into CHANGELOG.md (replacing Unreleased), never twice, keeping every other byte; the file joins the release commit",
            signature: "try lane.writeChangelog(_ path: String = \"CHANGELOG.md\", since: ChangelogRange = .lastTag, version: String? = nil) -> String",
            parameters: [
                .init(name: "path", type: "String", defaultValue: "CHANGELOG.md", help: "the file"),
                .init(name: "version", type: "String?", defaultValue: "nil", help: "the section's heading, e.g. the version being released")
            ],
            example: #"try lane.writeChangelog(version: version.description)"#,
            dryRun: "writes to the overlay and prints the section", rollback: "restores the file"
        ),
        ActionDescription(
            name: "githubRelease", domain: "Release",
            summary: "Publish a GitHub release: preflight, draft, assets uploaded concurrently with retries, then published; a re-run finishes it",
            signature: "try await lane.githubRelease(tag: String, name: String? = nil, notes: String? = nil, assets: [String] = [], prerelease: Bool = false, repository: String? = nil, uploadConcurrency: Int = 4) -> String?",
            parameters: [
                .init(name: "tag", type: "String", defaultValue: nil, help: "the release's tag"),
                .init(name: "notes", type: "String?", defaultValue: "nil", help: "the release body, e.g. from changelog()"),
                .init(name: "assets", type: "[String]", defaultValue: "[]", help: "files to attach"),
                .init(name: "repository", type: "String?", defaultValue: "origin remote", help: "owner/name"),
                .init(name: "uploadConcurrency", type: "Int", defaultValue: "4", help: "assets uploading at once")
            ],
            example: #"try await lane.githubRelease(tag: "v\(version)", notes: notes, assets: ["dist/app.tar.gz"])"#,
            dryRun: "preflight only (token, access, files), then says what it would publish", rollback: "deletes a release this run created"
        ),
        ActionDescription(
            name: "upload", domain: "Release",
            summary: "Upload files to any HTTP endpoint with PUT or POST, streamed from disk, concurrently, with retries",
            signature: "try await lane.upload(_ files: [String], to url: String, method: HTTPRequestMethod = .put, headers: [String: String] = [:], version: String? = nil, concurrency: Int = 4)",
            parameters: [
                .init(name: "url", type: "String", defaultValue: nil, help: "{name} and {version} are filled in"),
                .init(name: "method", type: "HTTPRequestMethod", defaultValue: ".put", help: ".put or .post")
            ],
            example: #"try await lane.upload(["dist/app.tar.gz"], to: "https://files.example.com/{version}/{name}")"#,
            dryRun: "checks the files and URL, says what it would upload", rollback: "reported as kept: the server owns the files"
        ),
        ActionDescription(
            name: "archive", domain: "Release",
            summary: "Pack a folder into a deterministic .tar.gz or .zip (sorted entries, fixed times, owner 0)",
            signature: "try lane.archive(_ folder: String, to output: String, format: ArchiveFormat = .tarGz) -> String",
            parameters: [
                .init(name: "format", type: "ArchiveFormat", defaultValue: ".tarGz", help: ".tarGz or .zip; SOURCE_DATE_EPOCH sets the time")
            ],
            example: #"try lane.archive(".build/release/app", to: "dist/app.tar.gz")"#,
            dryRun: "writes to the overlay", rollback: "restores or removes the file"
        ),
        ActionDescription(
            name: "checksums", domain: "Release",
            summary: "Write a SHA256SUMS file for files",
            signature: "try lane.checksums(_ files: [String], to output: String) -> String",
            parameters: [
                .init(name: "files", type: "[String]", defaultValue: nil, help: "files to hash")
            ],
            example: #"try lane.checksums(["dist/app.tar.gz"], to: "dist/SHA256SUMS")"#,
            dryRun: "hashes what the dry run would have written", rollback: "restores or removes the file"
        ),
        ActionDescription(
            name: "copyToDirectory", domain: "Release",
            summary: "Copy files into a folder (a local release target), atomically, never overwriting a different file unless replace",
            signature: "try lane.copyToDirectory(_ files: [String], directory: String, replace: Bool = false) -> [String]",
            parameters: [
                .init(name: "replace", type: "Bool", defaultValue: "false", help: "overwrite a file with other content")
            ],
            example: #"try lane.copyToDirectory(["dist/app.tar.gz"], directory: "/srv/releases/\(version)")"#,
            dryRun: "writes to the overlay", rollback: "removes or restores each copy"
        ),
        ActionDescription(
            name: "slack", domain: "Notify",
            summary: "Post to Slack through an incoming webhook (SLACK_WEBHOOK_URL): Block Kit with a text fallback, within Slack's limits, redacted",
            signature: "try await lane.slack(_ text: String, webhookURL: String? = nil)",
            parameters: [
                .init(name: "text", type: "String", defaultValue: nil, help: "the message")
            ],
            example: #"try await lane.slack("Released \(version) 🚀")"#,
            dryRun: "says what it would post", rollback: "cannot be taken back: notify last"
        ),
        ActionDescription(
            name: "webhook", domain: "Notify",
            summary: "POST JSON made from a {{placeholder}} template (values JSON-escaped and redacted) to a URL",
            signature: "try await lane.webhook(_ url: String, template: String, values: [String: String] = [:])",
            parameters: [
                .init(name: "template", type: "String", defaultValue: nil, help: "JSON with {{name}} placeholders")
            ],
            example: ##"try await context.webhook(url, template: #"{"text": "{{summary}}"}"#, values: ["summary": context.failureSummary(failure)])"##,
            dryRun: "says what it would post", rollback: "cannot be taken back"
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
    ] + StoreActionCatalog.stores

    public static func named(_ name: String) -> ActionDescription? {
        all.first { $0.name.lowercased() == name.lowercased() }
    }
}
