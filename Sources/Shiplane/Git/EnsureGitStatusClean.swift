import Foundation
internal import Git

/// Fails when the work tree has staged, unstaged, untracked or conflicted files.
package struct EnsureGitStatusClean: Action {
    /// The action's name in steps and reports.
    package static let name = "ensureGitStatusClean"
    /// Glob patterns (`fnmatch`, `*` does not cross `/`; a trailing `/` matches a folder) of
    /// paths that do not count.
    package var ignoring: [String]
    /// How many paths the error lists before it says "and N more".
    package var listLimit: Int

    /// Creates the check; paths matching `ignoring` may differ.
    package init(ignoring: [String] = [], listLimit: Int = 20) {
        self.ignoring = ignoring
        self.listLimit = listLimit
    }

    /// The ignored patterns, when there are any.
    package var options: [StepOption] {
        ignoring.isEmpty ? [] : [StepOption("ignoring", ignoring.joined(separator: ", "))]
    }

    /// Returns when nothing but ignored paths differ from HEAD.
    /// - Throws: an error listing the files that differ, up to `listLimit`.
    package func run(in step: StepContext) throws {
        let repository = try step.lane.repository()
        let entries = try git { try repository.status() }.filter { !isIgnored($0.path) }
        guard !entries.isEmpty else { return }
        let shown = entries.prefix(listLimit).map { "\($0.shortCode) \($0.path)" }
        var listing = shown.joined(separator: "\n")
        if entries.count > listLimit { listing += "\n… and \(entries.count - listLimit) more" }
        let counts = StatusCounts(entries)
        throw ShiplaneError(
            "the working tree is not clean: \(counts.summary)",
            info: [("files", listing)],
            suggestion: "commit or stash the changes (`git stash -u`), or pass ignoring: [...] for paths that may differ"
        )
    }

    private func isIgnored(_ path: String) -> Bool {
        ignoring.contains { pattern in
            if fnmatch(pattern, path, FNM_PATHNAME) == 0 { return true }
            if pattern.hasSuffix("/") { return path.hasPrefix(pattern) }
            return false
        }
    }
}

/// How many files of each kind a status holds, for one-line messages.
struct StatusCounts {
    var staged = 0, unstaged = 0, untracked = 0, conflicted = 0

    init(_ entries: [StatusEntry]) {
        for entry in entries {
            if entry.change.contains(.staged) { staged += 1 }
            if entry.change.contains(.unstaged) { unstaged += 1 }
            if entry.change.contains(.untracked) { untracked += 1 }
            if entry.change.contains(.conflicted) { conflicted += 1 }
        }
    }

    var summary: String {
        [(conflicted, "conflicted"), (staged, "staged"), (unstaged, "modified"), (untracked, "untracked")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
}

extension LaneContext {
    /// Fails when any file is staged, modified, untracked or conflicted (except `ignoring`).
    public func ensureGitStatusClean(ignoring: [String] = [], file: String = #fileID, line: Int = #line) throws {
        try run(EnsureGitStatusClean(ignoring: ignoring), file: file, line: line)
    }
}

extension EnsureGitStatusClean: DocumentedAction {
    /// How `lane.ensureGitStatusClean` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "Fail when files are staged, modified, untracked or conflicted; the error lists them",
        signature: "try lane.ensureGitStatusClean(ignoring: [String] = [])",
        parameters: [.init(name: "ignoring", type: "[String]", defaultValue: "[]", help: "glob patterns of paths that may differ (`*.log`, `build/`)")],
        example: "try lane.ensureGitStatusClean()",
        dryRun: "runs (it only reads)", rollback: "nothing to undo"
    )
}
