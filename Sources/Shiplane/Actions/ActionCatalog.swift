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
