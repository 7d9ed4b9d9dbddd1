import Foundation

/// Pushes a pod's specification to CocoaPods trunk, as `pod trunk push` does after its lint: the
/// podspec (Ruby or JSON) read as JSON, its version checked against the release, then `POST
/// /api/v1/pods` with the session token from `COCOAPODS_TRUNK_TOKEN`. A version trunk already
/// has: nothing sent.
package struct PushPodspec: AsyncAction {
    package static let name = "pushPodspec"
    /// The podspec, relative to the work tree.
    package var podspec: String
    package var version: String
    package var trunk: String

    package var options: [StepOption] {
        [StepOption("podspec", podspec), StepOption("version", version), StepOption("trunk", trunk)]
    }

    /// Pushes the version (or finds it on trunk) and returns its trunk URL.
    /// - Throws: `ValidationFailure` for a podspec trunk would refuse or of another version,
    ///   `ShiplaneError` for a missing token or a refusal by trunk.
    package func run(in step: StepContext) async throws -> String {
        let variables = step.lane.environment.variables
        let token = variables["COCOAPODS_TRUNK_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let spec = try await Podspec.read(step.resolve(podspec), shown: podspec, environment: variables, processRunner: step.lane.processRunner)
        var problems = spec.problems(releaseVersion: version, shown: podspec)
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
        try step.passPointOfNoReturn("pushed \(spec.name) \(spec.version) to CocoaPods trunk")
        let effect = PodVersionPushed(trunk: trunk, name: spec.name, version: spec.version)
        let handle = try step.record(effect, "\(spec.name) \(spec.version) stays on trunk (public once pushed)")
        if try await client.push(spec) {
            step.note("\(spec.name) \(spec.version) → trunk (\(url))")
        } else {
            step.note("\(spec.name) \(spec.version) was already on trunk (or being processed): unchanged")
        }
        step.done(handle, effect)
        return url
    }
}

extension LaneContext {
    /// Pushes the podspec (`Rocket.podspec` or `Rocket.podspec.json`) to CocoaPods trunk as
    /// `version`, after checking that it says that version; returns the version's trunk URL. A
    /// version trunk already has: nothing sent. The session token comes from `COCOAPODS_TRUNK_TOKEN`.
    @discardableResult
    public func pushPodspec(_ podspec: String, version: String, trunk: String = "https://trunk.cocoapods.org",
                            file: String = #fileID, line: Int = #line) async throws -> String {
        var base = trunk
        while base.hasSuffix("/") { base.removeLast() }
        let components = URLComponents(string: base)
        let host = components?.host ?? ""
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        guard components?.scheme == "https" && !host.isEmpty || components?.scheme == "http" && loopback else {
            throw ValidationFailure(problems: ["\(trunk) is not trunk's HTTPS URL (plain HTTP only on this machine's loopback)"],
                                    suggestion: "fix the call to pushPodspec; nothing was sent")
        }
        return try await run(PushPodspec(podspec: podspec, version: version, trunk: base), file: file, line: line)
    }
}

extension PushPodspec: DocumentedAction {
    /// How `lane.pushPodspec` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Push a podspec (Ruby or JSON) to CocoaPods trunk after checking its version against the release; a version trunk has: nothing sent",
        signature: "try await lane.pushPodspec(_ podspec: String, version: String, trunk: String = \"https://trunk.cocoapods.org\") -> String",
        parameters: [
            .init(name: "podspec", type: "String", defaultValue: nil, help: "Rocket.podspec (read with ruby) or Rocket.podspec.json"),
            .init(name: "version", type: "String", defaultValue: nil, help: "the release's version, which the podspec must say"),
            .init(name: "trunk", type: "String", defaultValue: "\"https://trunk.cocoapods.org\"", help: "trunk's URL"),
        ],
        example: #"try await lane.pushPodspec("Rocket.podspec", version: version)"#,
        dryRun: "reads and checks the podspec, checks the session (COCOAPODS_TRUNK_TOKEN) and whether trunk has the version, and says what it would push",
        rollback: "none: a pushed pod version is public (it stays); the run passes its point of no return right before the push"
    )
}
