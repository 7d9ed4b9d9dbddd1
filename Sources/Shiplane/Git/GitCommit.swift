import Foundation
internal import Git

/// Commits exactly the given paths (files, or folders: every changed file under them), like
/// `git commit --only PATHS`: other changes, staged or not, stay out of the commit.
package struct GitCommit: Action {
    /// The action's name in steps and reports.
    package static let name = "gitCommit"
    /// Files, or folders for every changed file under them, relative to the repository root.
    package var paths: [String]
    /// The commit message.
    package var message: String
    /// True to sign the commit, false not to; nil: as git config's `commit.gpgSign` says.
    package var sign: Bool?

    /// Creates the action that commits exactly `paths` with `message`.
    package init(paths: [String], message: String, sign: Bool? = nil) {
        self.paths = paths
        self.message = message
        self.sign = sign
    }

    /// The paths, the message and `sign` when set.
    package var options: [StepOption] {
        [StepOption("paths", paths.joined(separator: ", ")), StepOption("message", message)] + (sign.map { [StepOption("sign", "\($0)")] } ?? [])
    }

    /// Returns the new commit's id, or nil in a dry run.
    package func run(in step: StepContext) throws -> String? {
        let lane = step.lane
        let repository = try lane.repository()
        // Untracked folders come as `folder/`: each stands for the files in it.
        // A nested clone or linked worktree inside the work tree is another project: a folder
        // named never takes its files (libgit2's commit refuses them; submodules never show here).
        var changed: [String] = []
        let fileSystem = LiveFileSystem()
        for entry in try git({ try repository.status() }) {
            let trimmed = entry.path.hasSuffix("/") ? String(entry.path.dropLast()) : entry.path
            if OtherProjects.isRepository(lane.workingDirectory + "/" + trimmed, fileSystem: fileSystem) { continue }
            let files = entry.path.hasSuffix("/") ? try git { try repository.untrackedFiles(in: entry.path) } : [entry.path]
            changed += files.filter {
                OtherProjects.enclosingRepository(of: lane.workingDirectory + "/" + $0, below: lane.workingDirectory, fileSystem: fileSystem) == nil
            }
        }
        // A folder stands for every changed path under it; a file for itself.
        var selected: [String] = []
        var unmatched: [String] = []
        for path in paths {
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            let under = changed.filter { $0 == trimmed || $0.hasPrefix(trimmed + "/") }
            if under.isEmpty { unmatched.append(path) }
            for file in under where !selected.contains(file) { selected.append(file) }
        }
        guard unmatched.isEmpty, !selected.isEmpty else {
            throw ShiplaneError(
                "nothing to commit in \(unmatched.isEmpty ? paths.joined(separator: ", ") : unmatched.joined(separator: ", ")): no changed file there",
                suggestion: "name files or folders with changes (`git status` lists them)"
            )
        }
        // On a detached HEAD the commit is made there when a branch to release to is known.
        _ = try lane.releaseBranch(in: repository)
        let signing = try step.commitSigning(sign, in: repository)
        if step.isDryRun {
            lane.state.noteDryRunCommit()
            step.note("would commit \(selected.joined(separator: ", ")): \(message)" + (signing.map { ", signed with the \($0.origin)" } ?? ""))
            return nil
        }
        let commit = try step.commitJournaled(paths: selected, message: message, in: repository, signing: signing, undoing: "drop the commit")
        step.note("\(commit.short) \(message) (\(selected.count) file\(selected.count == 1 ? "" : "s"))")
        return commit.hex
    }
}

extension LaneContext {
    /// Commits exactly `paths` (files, or folders for every changed file under them) with
    /// `message`, and returns the commit id (nil in a dry run).
    @discardableResult
    public func gitCommit(paths: [String], message: String, sign: Bool? = nil, file: String = #fileID, line: Int = #line) throws -> String? {
        try run(GitCommit(paths: paths, message: message, sign: sign), file: file, line: line)
    }
}

extension GitCommit: DocumentedAction {
    /// How `lane.gitCommit` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Git",
        summary: "Commit exactly the given files or folders (every changed file under a folder), leaving other changes out, like git commit --only",
        signature: "try lane.gitCommit(paths: [String], message: String, sign: Bool? = nil) -> String?",
        parameters: [
            .init(name: "paths", type: "[String]", defaultValue: nil, help: "files or folders relative to the repository root; each must hold a change"),
            .init(name: "message", type: "String", defaultValue: nil, help: "the commit message (git's hooks run unless --no-verify)"),
            .init(name: "sign", type: "Bool?", defaultValue: "git config commit.gpgSign", help: "sign the commit (SSH natively, OpenPGP with gpg, as gpg.format says)"),
        ],
        example: #"try lane.gitCommit(paths: ["docs/"], message: "docs: regenerate the API reference")"#,
        dryRun: "says which files it would commit", rollback: "moves the branch back if HEAD is still the commit"
    )
}
