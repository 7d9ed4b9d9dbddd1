import Foundation
internal import Git

/// A step that publishes a release on one forge and returns its web address: every forge's own
/// action (`githubRelease`, `bitbucketRelease`, …) and `release`. Its result gives the run's
/// `release_url` output, for every forge alike, also when a resumed run replays it.
package protocol ForgeReleaseStep: AsyncAction where Output == String? {}

extension ForgeReleaseStep {
    /// `release_url`: the release's web address (none in a dry run).
    package func runOutputs(of output: String?) -> [(name: String, value: String)] { output.map { [("release_url", $0)] } ?? [] }
}

/// The one life of a release, on any forge: the files checked, the forge's preflight (every
/// problem at once, nothing changed), the release found by its tag, created as a draft or an
/// earlier run's draft brought up to date, the artifacts attached, then published. A dry run
/// stops after the preflight and says what it would publish.
package enum ForgeReleaseRun {
    /// Publishes `request` on `forge` in `step`; returns the release's web address (nil in a dry run).
    /// - Throws: `ReleasePreflightError` with every problem before any change; the forge's errors after.
    package static func run<F: Forge>(_ forge: F, _ request: ForgeReleaseRequest, in step: StepContext) async throws -> String? {
        try step.checkArtifacts(request.assets)
        let (artifacts, fileProblems) = artifacts(request.assets, in: step)
        try await preflight(forge, request, artifacts: artifacts, fileProblems: fileProblems, dryRun: step.isDryRun, note: { step.log($0) })
        if step.isDryRun {
            let count = request.assets.count
            step.note("would publish \(request.tag) \(forge.place) with \(count) asset\(count == 1 ? "" : "s")")
            if let notes = request.notes { step.log("release notes:\n" + notes) }
            return nil
        }
        let outcome = try await drive(forge, request, artifacts: artifacts, recording: StepEffectRecording(step: step))
        let url = forge.webURL(of: outcome.release)
        let summary = outcome.attached.summary
        step.note((url ?? "\(F.displayName) release \(request.tag)") + (summary.isEmpty ? "" : " (\(summary))"))
        return url
    }

    /// What `drive` did: the release an earlier run left (nil when there was none), the release
    /// as it is now, and what attaching the files did.
    package struct Outcome<Release: Sendable>: Sendable {
        package var existing: Release?
        package var release: Release
        package var attached: ForgeAttachOutcome
    }

    /// Publishes `request` with `files` on `forge` outside a step (a forge's publisher on its own,
    /// as its unit tests use it): the same preflight and the same life as in a run.
    /// - Throws: `ReleasePreflightError` with every problem before any change; the forge's errors after.
    package static func publish<F: Forge>(_ forge: F, _ request: ForgeReleaseRequest, files: [ReleaseAssetFile],
                                          recording: any ReleaseEffectRecording) async throws -> Outcome<F.Release> {
        var artifacts: [Artifact] = []
        var problems: [any Error] = []
        for file in files {
            do {
                _ = try HTTPTransport.regularFileSize(file.path)
                artifacts.append(Artifact(kind: Artifact.kind(forFileName: file.name), name: file.name, path: file.path,
                                          sha256: try SHA256.hex(ofFile: file.path)))
            } catch {
                problems.append(error)
            }
        }
        try await preflight(forge, request, artifacts: artifacts, fileProblems: problems, dryRun: false, note: { _ in })
        return try await drive(forge, request, artifacts: artifacts, recording: recording)
    }

    /// Every problem at once, before any change: the forge's own (token, access, tag, …), the
    /// files that cannot be read, and names two files share.
    /// - Throws: `ReleasePreflightError` naming the forge.
    static func preflight<F: Forge>(_ forge: F, _ request: ForgeReleaseRequest, artifacts: [Artifact], fileProblems: [any Error], dryRun: Bool,
                                    note: @Sendable (String) -> Void) async throws {
        var problems: [any Error] = []
        do {
            try await forge.preflight(request, artifacts: artifacts, dryRun: dryRun, note: note)
        } catch let refused as ReleasePreflightError {
            problems += refused.underlyingErrors
        } catch {
            problems.append(error)
        }
        problems += fileProblems
        for (name, same) in Dictionary(grouping: artifacts, by: \.name).sorted(by: { $0.key < $1.key }) where same.count > 1 {
            problems.append(ShiplaneError("\(same.count) assets share the name \(name)", info: same.map { ("file", $0.path) },
                                          suggestion: "give each asset a distinct name"))
        }
        guard problems.isEmpty else { throw ReleasePreflightError(underlyingErrors: problems, forge: F.displayName) }
    }

    /// The one life of a release after its preflight: found by its tag, created as a draft or an
    /// earlier run's draft brought up to date, the artifacts attached, then published.
    static func drive<F: Forge>(_ forge: F, _ request: ForgeReleaseRequest, artifacts: [Artifact],
                                recording: any ReleaseEffectRecording) async throws -> Outcome<F.Release> {
        let existing = try await forge.findRelease(tag: request.tag)
        var release = try await forge.createDraft(request, existing: existing, recording: recording)
        let attached: ForgeAttachOutcome
        (release, attached) = try await forge.attach(artifacts, to: release, request: request, recording: recording)
        if request.publish { release = try await forge.publish(release, request: request, recording: recording) }
        return Outcome(existing: existing, release: release, attached: attached)
    }

    /// Runs `request` through the forge `F` chosen for `target`, connected in `step`.
    package static func run<F: Forge>(_: F.Type, target: ForgeTarget, _ request: ForgeReleaseRequest, in step: StepContext) async throws -> String? {
        let needsOrigin = target.repository == nil || target.server == nil
        let origin = needsOrigin ? try git { try step.lane.repository().configString("remote.origin.url") } : nil
        return try await run(try F.connect(target, origin: origin, in: step), request, in: step)
    }

    /// The artifacts for `paths`: the run's own when a step made the file, else made here (kind from
    /// the name); a path that is not a readable file is a problem, reported with the preflight's.
    static func artifacts(_ paths: [String], in step: StepContext) -> ([Artifact], [any Error]) {
        var artifacts: [Artifact] = []
        var problems: [any Error] = []
        let made = step.lane.state.artifacts
        for path in paths {
            let absolute = step.resolve(path)
            do {
                if step.isDryRun { try step.checkSendableFile(absolute) } else { _ = try HTTPTransport.regularFileSize(absolute) }
                let known = made.first { step.resolve($0.path) == absolute }
                let digest: String
                if let known { digest = known.sha256 }
                else if step.isDryRun, let data = try step.lane.fileSystem.contents(of: absolute) { digest = SHA256.hex(of: data) }
                else { digest = try SHA256.hex(ofFile: absolute) }
                let name = URL(fileURLWithPath: absolute).lastPathComponent
                artifacts.append(Artifact(kind: known?.kind ?? Artifact.kind(forFileName: name), name: name, path: absolute, sha256: digest,
                                          os: known?.os, arch: known?.arch))
            } catch {
                problems.append(error)
            }
        }
        return (artifacts, problems)
    }
}
