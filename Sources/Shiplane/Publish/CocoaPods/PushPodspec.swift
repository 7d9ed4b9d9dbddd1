import Foundation
internal import Git

/// Pushes a pod's specification to CocoaPods trunk, as `pod trunk push` does after its lint: the
/// podspec (Ruby or JSON) read as JSON, its version checked against the release, then `POST
/// /api/v1/pods` with the session token from `COCOAPODS_TRUNK_TOKEN`. A version trunk already
/// has: nothing sent. With a private specs repository instead: the podspec as JSON committed at
/// `<name>/<version>/<name>.podspec.json` (as `pod repo push` lays it out) and pushed through
/// libgit2, as the Homebrew tap's formula is.
package struct PushPodspec: AsyncAction {
    package static let name = "pushPodspec"
    /// The podspec, relative to the work tree.
    package var podspec: String
    package var version: String
    package var trunk: String
    /// A private specs repository's URL or path (no credentials), pushed to instead of trunk.
    package var specsRepo: String?
    package var branch: String

    package var options: [StepOption] {
        [StepOption("podspec", podspec), StepOption("version", version)]
            + (specsRepo.map { [StepOption("specs repository", $0), StepOption("branch", branch)] } ?? [StepOption("trunk", trunk)])
    }

    /// Pushes the version (or finds it on trunk) and returns its trunk URL.
    /// - Throws: `ValidationFailure` for a podspec trunk would refuse or of another version,
    ///   `ShiplaneError` for a missing token or a refusal by trunk.
    package func run(in step: StepContext) async throws -> String {
        let variables = step.lane.environment.variables
        let token = variables["COCOAPODS_TRUNK_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let spec = try await Podspec.read(step.resolve(podspec), shown: podspec, environment: variables, processRunner: step.lane.processRunner)
        var problems = spec.problems(releaseVersion: version, shown: podspec)
        if let specsRepo {
            guard problems.isEmpty else {
                throw ValidationFailure(problems: problems, suggestion: "fix the podspec; nothing was sent")
            }
            return try await pushToSpecsRepository(spec, specsRepo, in: step)
        }
        if token == nil { problems.append("COCOAPODS_TRUNK_TOKEN is not set") }
        guard problems.isEmpty, let token else {
            throw ValidationFailure(problems: problems, suggestion: "fix the podspec and set COCOAPODS_TRUNK_TOKEN (the token of a verified pod trunk session); nothing was sent")
        }
        var transport = step.httpTransport()
        transport.redactor = SecretRedactor(secrets: transport.redactor.secrets + [token])
        let client = TrunkClient(base: trunk, token: token, transport: transport)
        let url = "\(client.api)/pods/\(TrunkClient.segment(spec.name))/versions/\(TrunkClient.segment(spec.version))"

        // Preflight, a dry run too: the session is valid, and whether trunk has the version.
        try await client.checkSession()
        if try await client.hasVersion(spec.name, spec.version) {
            step.note("\(spec.name) \(spec.version) is already on trunk: unchanged, nothing sent")
            return url
        }
        if step.isDryRun {
            step.note("would push \(spec.name) \(spec.version) to \(client.api)/pods (\(ByteCountText.file(Int64(spec.json.count))) of JSON from \(podspec))")
            return url
        }
        let ownsPoint = step.lane.state.pointOfNoReturn == nil
        try step.passPointOfNoReturn("pushed \(spec.name) \(spec.version) to CocoaPods trunk")
        let effect = PodVersionPushed(trunk: trunk, name: spec.name, version: spec.version)
        let handle = try step.record(effect, "\(spec.name) \(spec.version) stays on trunk (public once pushed)")
        let pushed: Bool
        do {
            pushed = try await client.push(spec)
        } catch let refusal as ShiplaneError where refusal.info.contains(where: { $0.key == "status" && $0.value.hasPrefix("4") }) {
            // Trunk refused the specification: nothing was published, so the run can still be undone.
            step.didNotHappen(handle, "trunk refused it")
            if ownsPoint { try step.amendPointOfNoReturn(nil) }
            throw refusal
        }
        if pushed {
            step.note("\(spec.name) \(spec.version) → trunk (\(url))")
        } else {
            step.note("\(spec.name) \(spec.version) was already on trunk (or being processed): unchanged")
        }
        step.done(handle, effect)
        return url
    }
}

extension PushPodspec {
    /// Commits the podspec's JSON at `<name>/<version>/<name>.podspec.json` in the specs
    /// repository's branch and pushes it (a fast-forward), through the Homebrew tap's
    /// `TapClone`; the same bytes there: nothing sent. Its effect is the tap's
    /// `HomebrewFormulaPushed` (a file committed on a branch and pushed), undone by a revert commit.
    func pushToSpecsRepository(_ spec: Podspec, _ repository: String, in step: StepContext) async throws -> String {
        let path = "\(spec.name)/\(spec.version)/\(spec.name).podspec.json"
        let (clone, found) = try await TapClone.fetch(repository, branch: branch, environment: step.lane.environment)
        defer { clone.remove() }
        guard let parent = found else {
            throw ShiplaneError("\(repository) has no branch \(branch)", suggestion: "pass the specs repository's branch (branch:); nothing was changed")
        }
        if try clone.contents(path, at: parent) == spec.json {
            step.note("\(path) in \(repository) (\(branch)) already holds this podspec: unchanged, nothing sent")
            return path
        }
        if step.isDryRun {
            step.note("would commit \(path) on \(branch) of \(repository) (on \(parent.short)) and push it")
            return path
        }
        let signatures = try step.signatures([.author, .committer], in: clone.repository, for: "specs repository's podspec commit")
        let commit = try clone.commit(path, contents: spec.json, onTopOf: parent, message: "[Add] \(spec.name) (\(spec.version))\n\nWritten by Shiplane.",
                                      author: signatures[0], committer: signatures[1])
        let effect = HomebrewFormulaPushed(tap: repository, branch: branch, path: path, parent: parent.hex, commit: commit.hex)
        let recorded = SpecsHandleBox()
        let outcome = try await clone.push {
            recorded.handle = try step.record(effect, "revert \(path) in \(repository) (\(branch))")
        }
        guard outcome.refused.isEmpty else {
            step.didNotHappen(recorded.handle, "\(repository) refused it")
            throw clone.refusal(outcome, path: path)
        }
        step.done(recorded.handle, effect)
        step.note("\(path) → \(repository) (\(branch)), commit \(commit.short)")
        return path
    }
}

/// The effect handle recorded on the push's thread, read back after it.
private final class SpecsHandleBox: @unchecked Sendable {
    // @unchecked: written once on the push's thread while this task waits for it, read after.
    var handle: EffectHandle?
}

extension LaneContext {
    /// Pushes the podspec (`Rocket.podspec` or `Rocket.podspec.json`) to CocoaPods trunk as
    /// `version`, after checking that it says that version; returns the version's trunk URL. A
    /// version trunk already has: nothing sent. The session token comes from `COCOAPODS_TRUNK_TOKEN`.
    /// With `specsRepo` (a private specs repository's URL or path), the podspec is committed there
    /// on `branch` and pushed instead, through libgit2; it returns the podspec's path there.
    @discardableResult
    public func pushPodspec(_ podspec: String, version: String, trunk: String = "https://trunk.cocoapods.org",
                            specsRepo: String? = nil, branch: String = "master",
                            file: String = #fileID, line: Int = #line) async throws -> String {
        var base = trunk
        while base.hasSuffix("/") { base.removeLast() }
        let components = URLComponents(string: base)
        let host = components?.host ?? ""
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        guard specsRepo != nil || components?.scheme == "https" && !host.isEmpty || components?.scheme == "http" && loopback else {
            throw ValidationFailure(problems: ["\(trunk) is not trunk's HTTPS URL (plain HTTP only on this machine's loopback)"],
                                    suggestion: "fix the call to pushPodspec; nothing was sent")
        }
        return try await run(PushPodspec(podspec: podspec, version: version, trunk: base, specsRepo: specsRepo.map(TapClone.withoutCredentials),
                                         branch: branch), file: file, line: line)
    }
}

extension PushPodspec: DocumentedAction {
    /// How `lane.pushPodspec` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Push a podspec (Ruby or JSON) to CocoaPods trunk after checking its version against the release; a version trunk has: nothing sent",
        signature: "try await lane.pushPodspec(_ podspec: String, version: String, trunk: String = \"https://trunk.cocoapods.org\", specsRepo: String? = nil, branch: String = \"master\") -> String",
        parameters: [
            .init(name: "podspec", type: "String", defaultValue: nil, help: "Rocket.podspec (read with ruby) or Rocket.podspec.json"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the release's version, which the podspec must say"),
            .init(name: "trunk", type: "String", defaultValue: "\"https://trunk.cocoapods.org\"", help: "trunk's URL"),
            .init(name: "specsRepo", type: "String?", defaultValue: "nil", help: "a private specs repository (URL or path): the podspec is committed at <name>/<version>/ and pushed there instead of trunk"),
            .init(name: "branch", type: "String", defaultValue: "\"master\"", help: "the specs repository's branch"),
        ],
        example: #"try await lane.pushPodspec("Rocket.podspec", version: version)"#,
        dryRun: "reads and checks the podspec and its subspecs, checks the session (COCOAPODS_TRUNK_TOKEN) and whether trunk has the version, and says what it would push",
        rollback: "trunk: none, a pushed pod version is public (it stays; the point of no return is passed right before the push); a specs repository: a revert commit, while its branch still ends with Shiplane's commit"
    )
}
