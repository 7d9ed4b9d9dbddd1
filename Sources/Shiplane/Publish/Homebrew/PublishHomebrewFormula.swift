import Foundation
internal import Git

/// Writes `Formula/<name>.rb` in a Homebrew tap and pushes it: a bare clone of the tap's branch
/// in a temporary folder, one commit made with libgit2 (no work tree, no `git` command), pushed
/// as a fast-forward. A tap already holding the same bytes gets nothing; a tap that refuses the
/// push (a hook, a protected branch) is an error with nothing changed there; a dry run reaches the
/// tap (URL and credentials) and shows the exact formula. A protected tap (`pullRequest`) gets the
/// formula on a branch of its own and a pull request on GitHub, Gitea or Bitbucket, or a merge request on
/// GitLab, instead (`TapPullRequest.swift`).
package struct PublishHomebrewFormula: AsyncAction {
    package static let name = "homebrewFormula"
    package var formula: HomebrewFormula
    /// The tap's URL or path, with no credentials.
    package var tap: String
    package var branch: String
    /// Propose the formula by a pull request into `branch` instead of pushing to it.
    package var pullRequest = false
    /// The forge the tap's pull request goes to; nil: from the tap URL's host, else GitHub.
    package var forge: ForgeTarget?

    package var options: [StepOption] {
        [StepOption("formula", formula.name), StepOption("tap", tap), StepOption("branch", branch), StepOption("version", formula.version)]
            + (pullRequest ? [StepOption("pull request", "true")] : [])
            + (forge.map { [StepOption("forge", $0.kind.rawValue)] } ?? [])
    }

    /// Pushes the formula (or finds it there already) and returns its Ruby source.
    /// - Throws: `GitFailure` when the tap cannot be reached or refuses the credentials,
    ///   `ShiplaneError` when the tap has no such branch or refuses the push.
    package func run(in step: StepContext) async throws -> String {
        let text = formula.rendered()
        let bytes = Data(text.utf8)
        let path = formula.path
        // Preflight: the tap's URL, credentials and branch, before anything is written (a dry run too).
        let (clone, found) = try await TapClone.fetch(tap, branch: branch, environment: step.lane.environment)
        defer { clone.remove() }
        guard let parent = found else {
            throw ShiplaneError("\(tap) has no branch \(branch)", suggestion: "pass the tap's branch (branch:), or give the tap a first commit on \(branch); nothing was changed")
        }
        let earlier = step.lane.state.journal.earlierAttempt(step: step.number, kind: HomebrewFormulaPushed.kind)
        if try clone.contents(path, at: parent) == bytes {
            if let earlier, let pushed = earlier.effect.as(HomebrewFormulaPushed.self), pushed.tap == tap, pushed.path == path {
                // A run killed after the tap accepted the push: it landed.
                step.lane.state.journal.done(earlier.handle, effect: try? AnyEffect(pushed))
            }
            step.note("\(path) in \(tap) (\(branch)) already holds this formula: nothing sent")
            return text
        }
        if pullRequest {
            return try await proposeByPullRequest(text, clone: clone, base: parent, in: step)
        }
        if step.isDryRun {
            step.note("would commit \(path) on \(branch) of \(tap) (on \(parent.short)) and push it:\n\(text)")
            return text
        }
        let signatures = try step.signatures([.author, .committer], in: clone.repository, for: "tap's formula commit")
        let message = formula.commitMessage(runID: step.lane.state.journal.recorder?.current.id)
        let commit = try clone.commit(path, contents: bytes, onTopOf: parent, message: message, author: signatures[0], committer: signatures[1])
        let effect = HomebrewFormulaPushed(tap: tap, branch: branch, path: path, parent: parent.hex, commit: commit.hex)
        let recorded = HandleBox()
        let outcome = try await clone.push {
            recorded.handle = try step.record(effect, "revert \(path) in \(tap) (\(branch))")
        }
        guard outcome.refused.isEmpty else {
            step.didNotHappen(recorded.handle, "\(tap) refused it")
            throw clone.refusal(outcome, path: path)
        }
        step.done(recorded.handle, effect)
        step.note("\(path) → \(tap) (\(branch)), commit \(commit.short)")
        return text
    }
}

/// The effect handle recorded on the push's thread, read back after it.
private final class HandleBox: @unchecked Sendable {
    // @unchecked: written once on the push's thread while this task waits for it, read after.
    var handle: EffectHandle?
}

extension LaneContext {
    /// Writes `Formula/<name>.rb` in a Homebrew tap from the release's archives (url and sha256
    /// per OS and architecture) and pushes it; returns the formula's Ruby source. A re-run with
    /// the same formula sends nothing. HTTPS taps take `SHIPLANE_TAP_TOKEN` (else `push`'s tokens).
    /// With `pullRequest`, for a protected tap, the formula goes to the branch
    /// `shiplane/<name>-<version>` and a pull request into `branch` (found again on a re-run): on
    /// GitHub, or on GitLab (a merge request), Gitea or Bitbucket, named by `forge` or the tap URL's host.
    @discardableResult
    public func homebrewFormula(
        _ name: String, tap: String, files: [any ArtifactConvertible], version: String, downloadURL: String, description: String,
        homepage: String, license: String? = nil, binary: String? = nil, test: [String] = ["--version"], branch: String = "main",
        pullRequest: Bool = false, forge: ForgeTarget? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> String {
        var problems: [String] = []
        if !HomebrewFormula.isValidName(name) {
            problems.append("\(name) is not a formula name: lowercase letters, digits, -, _, ., + and @, starting with a letter or digit")
        }
        if tap.isEmpty { problems.append("tap is empty") }
        if version.isEmpty { problems.append("version is empty") }
        if description.isEmpty { problems.append("description is empty") }
        if !homepage.hasPrefix("https://") && !homepage.hasPrefix("http://") { problems.append("homepage \(homepage) is not an http(s) URL") }
        if !downloadURL.contains("{name}") { problems.append("downloadURL must hold {name}, where each archive's name goes") }
        let program = binary ?? name
        if program.isEmpty || program.contains("/") { problems.append("binary \(program) must be a file name") }
        var downloads: [HomebrewFormula.Download] = []
        for given in files {
            let artifact: Artifact
            if let path = given as? String {
                let full = path.hasPrefix("/") ? path : workingDirectory + "/" + path
                guard let sha = try? SHA256.hex(ofFile: full) else { problems.append("\(path) cannot be read"); continue }
                artifact = Artifact(kind: Artifact.kind(forFileName: path), path: path, sha256: sha)
            } else if let made = given as? Artifact {
                artifact = made
            } else {
                problems.append("\(type(of: given)) is not a file")
                continue
            }
            guard artifact.kind == .archive else { continue }   // checksums, signatures, SBOMs: not in a formula
            var os: HomebrewFormula.OS?
            if let text = artifact.os {
                guard let known = HomebrewFormula.os(text) else { problems.append("\(artifact.name): os \(text) is not macos or linux"); continue }
                guard let kept = known else { continue }   // Windows: Homebrew does not run there
                os = kept
            }
            var arch: HomebrewFormula.Arch?
            if let text = artifact.arch {
                guard let known = HomebrewFormula.arch(text) else { problems.append("\(artifact.name): arch \(text) is not arm64 or x86_64"); continue }
                arch = known
            }
            let encoded = artifact.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? artifact.name
            downloads.append(.init(os: os, arch: os == nil ? nil : arch, url: downloadURL.replacingOccurrences(of: "{name}", with: encoded), sha256: artifact.sha256))
        }
        problems += HomebrewFormula.problems(in: downloads)
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "fix the call to homebrewFormula; nothing was sent")
        }
        let formula = HomebrewFormula(
            name: name, desc: description, homepage: homepage, version: version, license: license, binary: program,
            testArguments: test, downloads: downloads)
        return try await run(PublishHomebrewFormula(formula: formula, tap: TapClone.withoutCredentials(tap), branch: branch, pullRequest: pullRequest,
                                                    forge: forge),
                             file: file, line: line)
    }
}

extension PublishHomebrewFormula: DocumentedAction {
    /// How `lane.homebrewFormula` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Write Formula/<name>.rb in a Homebrew tap (url and sha256 per OS and architecture from the archives) and push it through libgit2; unchanged formulae not sent",
        signature: "try await lane.homebrewFormula(_ name: String, tap: String, files: [any ArtifactConvertible], version: String, downloadURL: String, description: String, homepage: String, license: String? = nil, binary: String? = nil, test: [String] = [\"--version\"], branch: String = \"main\", pullRequest: Bool = false, forge: ForgeTarget? = nil) -> String",
        parameters: [
            .init(name: "name", type: "String", defaultValue: nil, help: "the formula's name (foo-bar: class FooBar, file Formula/foo-bar.rb)"),
            .init(name: "tap", type: "String", defaultValue: nil, help: "the tap repository's URL or path (https with SHIPLANE_TAP_TOKEN, ssh through the agent)"),
            .init(name: "files", type: "[any ArtifactConvertible]", defaultValue: nil, help: "the release's archives with their os and arch (other kinds are left out)"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the formula's version"),
            .init(name: "downloadURL", type: "String", defaultValue: nil, help: "where each archive is downloaded from, {name} standing for its name"),
            .init(name: "description", type: "String", defaultValue: nil, help: "the formula's desc"),
            .init(name: "homepage", type: "String", defaultValue: nil, help: "the formula's homepage"),
            .init(name: "license", type: "String?", defaultValue: "nil", help: "an SPDX license (MIT, Apache-2.0)"),
            .init(name: "binary", type: "String?", defaultValue: "nil", help: "the program the archives hold (the formula's name)"),
            .init(name: "test", type: "[String]", defaultValue: "[\"--version\"]", help: "the arguments the formula's test runs the program with"),
            .init(name: "branch", type: "String", defaultValue: "\"main\"", help: "the tap's branch"),
            .init(name: "pullRequest", type: "Bool", defaultValue: "false", help: "a protected tap: push the branch shiplane/<name>-<version> and open a pull request (GitLab: a merge request) into branch (SHIPLANE_TAP_TOKEN, else GITHUB_TOKEN, GITLAB_TOKEN, GITEA_TOKEN or BITBUCKET_ACCESS_TOKEN)"),
            .init(name: "forge", type: "ForgeTarget?", defaultValue: "nil", help: "where the pull request goes: .gitlab(server:project:), .gitea(server:repository:), .bitbucket(repository:) or .github(repository:); nil: the tap URL's host (gitlab.com, codeberg.org, gitea.com, bitbucket.org), else GitHub"),
        ],
        example: #"try await lane.homebrewFormula("tool", tap: "https://github.com/acme/homebrew-tap.git", files: archives, version: version, downloadURL: "https://github.com/acme/tool/releases/download/v\(version)/{name}", description: "Ships things", homepage: "https://github.com/acme/tool")"#,
        dryRun: "reaches the tap (URL, credentials, branch) and shows the exact formula it would commit; sends nothing",
        rollback: "pushes a commit that puts the formula back as it was, while the tap's branch still ends with Shiplane's commit (never a forced push); pullRequest: closes the pull request (merge request) while its head is Shiplane's commit and deletes the branch while it still ends there"
    )
}
