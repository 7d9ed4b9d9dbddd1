import Foundation
internal import Git

extension LaneContext {
    /// One part of a release that a CI job of its own builds (an iOS app on a macOS runner, a
    /// Linux arm64 binary): `body` builds the part and makes its artifacts (`lane.artifact`,
    /// `lane.archive`). Run as `shiplane LANE`, every part's body runs here, in order; `shiplane
    /// plan LANE` lists the parts as a CI matrix with the runner each needs (`os`, `arch`);
    /// `shiplane LANE --part NAME` builds that part alone and records its artifacts, with their
    /// digests, on origin (`refs/shiplane/parts/LANE/NAME`, compare-and-swap: one runner records
    /// a part); `shiplane LANE --fan-in` takes every part's artifacts instead of building them,
    /// fails listing the parts origin does not have (exit 8), and runs the rest of the lane — the
    /// release, the messages — once.
    ///
    /// Declare the parts one after another; steps before them run in every job (keep them to
    /// reads and local changes), steps after them only in the fan-in job.
    ///
    /// With `draft: .github()` or `.gitea()`, a part job also uploads its artifacts to the
    /// release's one draft release on that forge (agreed on origin, `refs/shiplane/drafts/LANE`),
    /// which the fan-in's `githubRelease`/`giteaRelease` publishes once: the record on origin then
    /// names each artifact's asset, size and SHA-256 instead of holding its bytes, and the fan-in
    /// downloads the assets and checks their digests before it publishes. Without a draft (GitLab
    /// has none) the record holds the bytes and the fan-in uploads them.
    public func part(
        _ name: String, os: String? = nil, arch: String? = nil, draft: ForgeTarget? = nil, file: String = #fileID, line: Int = #line,
        _ body: () async throws -> Void
    ) async throws {
        let callSite = CallSite.inLane(file: file, line: line)
        let planned = PlannedPart(name: name, os: os, arch: arch)
        do {
            try fanOut.declare(planned)
        } catch {
            throw StepFailure(step: "part \(name)", callSite: callSite, cause: error)
        }
        switch fanOut.mode {
        case .inline:
            fanOut.enter(name)
            defer { fanOut.enter(nil) }
            try await body()
        case .plan:
            fanOut.passed()
        case .part(let own):
            guard own == name else {
                fanOut.passed()
                return
            }
            fanOut.enter(name)
            defer { fanOut.enter(nil) }
            try await buildAndRecord(planned, draft: draft, callSite: callSite, body)
        case .fanIn:
            fanOut.enter(name)
            defer { fanOut.enter(nil) }
            let listing: OriginParts.Listing
            var published: PublishedRelease?
            do {
                listing = try await fanOut.originParts(lane: fanOut.laneName, context: self)
                if let value = listing.published {
                    published = try await OriginParts.readPublished(lane: fanOut.laneName, value: value, workTree: workingDirectory, environment: environment)
                }
            } catch {
                throw StepFailure(step: "part \(name)", callSite: callSite, cause: error)
            }
            if let published, published.covers(fanOut.base) {
                // Published already: a resumed run replays the steps after the parts (they need
                // no file); any other run has nothing to do.
                guard isResumed else { throw ReleasePublishedAlready(lane: fanOut.laneName, published: published) }
                // The part's step still runs (with nothing to take), so the resumed run's steps
                // keep their numbers and the recorded ones replay.
                try await run(CollectPart(part: planned, lane: fanOut.laneName, value: "", published: true), file: file, line: line)
                return
            }
            guard let value = listing.parts[name] else {
                fanOut.noteMissing(MissingPart(name: name, reason: "no record on origin (\(OriginParts.reference(lane: fanOut.laneName, part: name)))"))
                return
            }
            try await run(CollectPart(part: planned, lane: fanOut.laneName, value: value.hex), file: file, line: line)
        }
    }

    /// A part job's own part: done when origin already holds this release's record of it (a
    /// retry finds its earlier work); else built here and recorded on origin by compare-and-swap.
    private func buildAndRecord(_ part: PlannedPart, draft: ForgeTarget?, callSite: CallSite?, _ body: () async throws -> Void) async throws {
        let lane = fanOut.laneName
        let base = fanOut.base ?? ""
        let digest = fanOut.argumentsDigest(state.journal.recorder?.current)
        var expected: ObjectID?
        do {
            try state.journal.checkRefusal()
            let listing = try await fanOut.originParts(lane: lane, context: self)
            if let value = listing.published,
               let published = try await OriginParts.readPublished(lane: lane, value: value, workTree: workingDirectory, environment: environment),
               published.covers(base) {
                log("the release of this commit was published already (run \(published.run)): part \(part.name) has nothing to build")
                throw FanOutStop(kind: .partRecorded(part.name, earlier: true))
            }
            expected = listing.parts[part.name]
            if let value = expected, let earlier = try await OriginParts.read(
                lane: lane, part: part.name, value: value, workTree: workingDirectory, environment: environment) {
                if earlier.record.base == base && earlier.record.argumentsDigest == digest {
                    let count = earlier.record.artifacts.count
                    guard let changed = try await changedAssets(of: earlier.record) else {
                        log("part \(part.name) is already recorded on origin for this commit (\(count) artifact\(count == 1 ? "" : "s")"
                            + (earlier.record.assets.map { $0.isEmpty ? "" : ", \($0.count) on the parts' draft release as recorded" } ?? "") + "): nothing to build again")
                        throw FanOutStop(kind: .partRecorded(part.name, earlier: true))
                    }
                    log("part \(part.name) is recorded on origin for this commit, but on the parts' draft release \(changed): this job builds it again, uploads it and records it anew", level: .warning)
                } else {
                    log("origin's record of part \(part.name) is of another release (built from \(earlier.record.base.prefix(7))): this job builds it anew and replaces it")
                }
            }
        } catch let stop as FanOutStop {
            throw stop
        } catch {
            throw StepFailure(step: "part \(part.name)", callSite: callSite, cause: error)
        }
        let before = Set(state.artifacts.map(\.path))
        try await body()
        let made = state.artifacts.filter { !before.contains($0.path) }
        let outcome = try await run(RecordPart(part: part, lane: lane, base: base, argumentsDigest: digest, artifacts: made, expected: expected?.hex, draft: draft))
        throw FanOutStop(kind: .partRecorded(part.name, earlier: outcome == "earlier"))
    }

    /// What of `record`'s assets on the parts' draft release is not as the part recorded it (gone,
    /// or other bytes), said in a few words; nil when every one is intact (or it has none).
    /// - Throws: the forge's errors; when no token is set to look.
    func changedAssets(of record: PartRecord) async throws -> String? {
        var changed: [String] = []
        for asset in record.assets ?? [] {
            switch try await asset.check(on: try asset.host(environment: environment)) {
            case .intact: break
            case .missing: changed.append("\(asset.name) is gone (asset \(asset.id) of draft release \(asset.releaseID))")
            case .differs(let found): changed.append("\(asset.name) holds sha256:\(found.prefix(12))…, not the recorded sha256:\(asset.sha256.prefix(12))…")
            }
        }
        return changed.isEmpty ? nil : changed.joined(separator: "; ")
    }
}

extension LaneContext {
    /// True when this run resumes an earlier one (here, or from origin's record in a fresh clone).
    var isResumed: Bool {
        guard let record = state.journal.recorder?.current else { return false }
        return record.resumes > 0 || record.fetchedFromRemote == true
    }
}

extension FanOutRun {
    /// The SHA-256 of the run's lane arguments, as its record keeps them.
    func argumentsDigest(_ record: RunRecord?) -> String {
        guard let record else { return RunRecord.argumentsDigest([]) }
        if let digest = record.argumentsDigest { return digest }
        if record.arguments.count == 1, record.arguments[0].hasPrefix("sha256:"), record.fetchedFromRemote == true { return record.arguments[0] }
        return RunRecord.argumentsDigest(record.arguments)
    }
}

/// Records a part job's artifacts on origin (`lane.part` with `--part NAME`): with their digests
/// and the assets of the parts' draft release that hold them, or with their bytes where no draft does.
package struct RecordPart: AsyncAction {
    package static let name = "part"
    var part: PlannedPart
    var lane: String
    var base: String
    var argumentsDigest: String
    var artifacts: [Artifact]
    var expected: String?
    /// The forge whose draft release the artifacts are uploaded to first (`lane.part(…, draft:)`).
    var draft: ForgeTarget?

    package var options: [StepOption] {
        [StepOption("name", part.name), StepOption("record", "origin " + OriginParts.reference(lane: lane, part: part.name))]
            + (draft.map { [StepOption("draft", $0.kind.displayName + ($0.repository.map { " " + $0 } ?? ""))] } ?? [])
    }

    /// Returns `recorded`, or `earlier` when another runner recorded the part first.
    package func run(in step: StepContext) async throws -> String {
        try step.lane.state.journal.checkRefusal()
        guard !artifacts.isEmpty else {
            throw ShiplaneError(
                "part `\(part.name)` made no artifacts, so there is nothing to record for the fan-in job",
                suggestion: "register what the part builds inside its body: `try lane.artifact(\"dist/app.ipa\")`, `lane.archive(…)`")
        }
        var files: [String: Data] = [:]
        for artifact in artifacts {
            guard !artifact.path.hasPrefix("/") else {
                throw ShiplaneError(
                    "part `\(part.name)`'s artifact \(artifact.path) is outside the work tree: the fan-in job puts each artifact at its path in its own checkout",
                    suggestion: "build it inside the repository (a git-ignored folder such as .build/ or dist/)")
            }
            guard let data = try step.lane.fileSystem.contents(of: step.resolve(artifact.path)), SHA256.hex(of: data) == artifact.sha256 else {
                throw ShiplaneError("\(artifact.path) changed after the part made it", suggestion: "build it again: run the part's job again")
            }
            files[artifact.sha256] = data
        }
        let assets = try await uploadToDraft(in: step)
        if step.isDryRun {
            step.note("would record \(artifacts.count) artifact\(artifacts.count == 1 ? "" : "s") on origin")
            return "recorded"
        }
        var record = PartRecord(
            lane: lane, part: part.name, os: part.os, arch: part.arch, base: base, argumentsDigest: argumentsDigest,
            run: step.lane.state.journal.recorder?.current.id ?? UUID().uuidString, artifacts: artifacts)
        if let assets {
            // The draft holds the bytes: origin keeps what names and checks them.
            record.assets = assets
            files = [:]
        }
        let written = try await OriginParts.record(
            record, files: files, expected: expected.flatMap(ObjectID.init(hex:)), workTree: step.lane.workingDirectory, environment: step.lane.environment)
        switch written {
        case .recorded:
            let count = "\(artifacts.count) artifact\(artifacts.count == 1 ? "" : "s")"
            step.note(assets.map { "\(count) on the draft release \($0.first?.releaseID ?? 0), their digests on origin" } ?? "\(count) on origin")
            return "recorded"
        case .takenByAnother:
            if let assets, try await replaceStaleRecord(record, in: step) {
                step.note("\(artifacts.count) artifact\(artifacts.count == 1 ? "" : "s") on the draft release \(assets.first?.releaseID ?? 0), their digests on origin (in place of another runner's record)")
                return "recorded"
            }
            step.log("another runner recorded part \(part.name) on origin first: its artifacts are the release's, this runner's are not used", level: .warning)
            step.note("recorded by another runner")
            return "earlier"
        }
    }
}

extension RecordPart {
    /// After another runner of this part recorded it first: when that record names assets the
    /// draft no longer holds as recorded (this runner's upload replaced them with other bytes
    /// after that runner read the draft) while this runner's `record` names what the draft holds,
    /// `record` replaces it on origin by compare-and-swap, so the fan-in finds the bytes the record
    /// names. True when it did; false when origin's record is good (or changed again meanwhile).
    /// - Throws: origin's and the forge's errors.
    private func replaceStaleRecord(_ record: PartRecord, in step: StepContext) async throws -> Bool {
        let context = step.lane
        let listing = try await OriginParts.list(lane: lane, workTree: context.workingDirectory, environment: context.environment)
        guard let theirs = listing.parts[part.name],
              let (other, _) = try await OriginParts.read(lane: lane, part: part.name, value: theirs, workTree: context.workingDirectory, environment: context.environment),
              other.base == base, other.argumentsDigest == argumentsDigest, !(other.assets ?? []).isEmpty,
              let changed = try await context.changedAssets(of: other),
              try await context.changedAssets(of: record) == nil else { return false }
        step.log("another runner recorded part \(part.name) first, but on the parts' draft release \(changed) (this runner's upload replaced it): this runner's record, which names what the draft holds, replaces it", level: .warning)
        return try await OriginParts.record(record, files: [:], expected: theirs, workTree: context.workingDirectory, environment: context.environment) == .recorded
    }

    /// Uploads the artifacts to the parts' draft release, before the record (a recorded part's
    /// artifacts are on the draft): on GitHub and Gitea, which have drafts; GitLab has none, so
    /// its fan-in uploads the artifacts from the parts' records. Returns the assets that hold
    /// them, as the draft shows them after the upload; nil without a draft (or when it does not
    /// show one as uploaded): the record then holds the bytes.
    private func uploadToDraft(in step: StepContext) async throws -> [PartAsset]? {
        guard let draft else { return nil }
        guard let forge = draft.kind.forge as? any PartsDraftForge.Type else {
            step.log("\(draft.kind.displayName) has no draft releases: part \(part.name)'s artifacts go in its record on origin, and the fan-in job uploads them")
            return nil
        }
        guard forge.hasPartsDraftsToken(step.lane.environment) else {
            step.log("no \(forge.partsDraftsToken) is set for this job: part \(part.name)'s artifacts go in its record on origin instead of the \(draft.kind.displayName) draft release, and the fan-in job uploads them", level: .warning)
            return nil
        }
        let origin = try git { try step.lane.repository().configString("remote.origin.url") }
        let connected = try forge.connect(draft, origin: origin, in: step)
        let host = try await connected.partsDrafts()
        if step.isDryRun {
            step.log("would upload \(artifacts.count) artifact\(artifacts.count == 1 ? "" : "s") to the parts' draft release \(connected.place)")
            return nil
        }
        let files = artifacts.map { artifact in
            var file = artifact
            file.path = step.resolve(artifact.path)
            return file
        }
        let uploaded = try await host.uploadPart(files, part: part.name, lane: lane, base: base, argumentsDigest: argumentsDigest, in: step)
        let summary = uploaded.attached.summary
        step.log("part \(part.name): the draft release \(uploaded.releaseID) \(connected.place) holds its artifacts" + (summary.isEmpty ? "" : " (\(summary))"))
        guard let assets = try await host.recordedAssets(artifacts, releaseID: uploaded.releaseID, resolve: { step.resolve($0) }) else {
            step.log("the draft release \(uploaded.releaseID) does not show every artifact of part \(part.name) as uploaded: its record on origin keeps their bytes", level: .warning)
            return nil
        }
        return assets
    }
}

/// Takes a part's artifacts into the work tree (`lane.part` with `--fan-in`): from the parts'
/// draft release where the record names an asset (downloaded, its SHA-256 checked against the
/// record before anything is published), else from the record's bytes on origin.
package struct CollectPart: AsyncAction {
    package static let name = "part"
    var part: PlannedPart
    var lane: String
    var value: String
    /// Origin says the release was published: a resumed run's step, with nothing to take.
    var published = false

    package var options: [StepOption] { [StepOption("name", part.name), StepOption("from", "origin " + OriginParts.reference(lane: lane, part: part.name))] }

    package func run(in step: StepContext) async throws -> [Artifact] {
        if published {
            step.note("published already: nothing to take")
            return []
        }
        let lane = step.lane
        let missing = { (reason: String) in PartsMissing(missing: [MissingPart(name: part.name, reason: reason)], declared: lane.fanOut.parts.map(\.name)) }
        guard let id = ObjectID(hex: value),
              let (record, files) = try await OriginParts.read(lane: self.lane, part: part.name, value: id, workTree: lane.workingDirectory, environment: lane.environment)
        else { throw missing("its record left origin while this job read it") }
        let recorder = lane.state.journal.recorder?.current
        let resumed = lane.isResumed
        if let base = lane.fanOut.base, record.base != base {
            // A resumed fan-in may stand on its own release commit, made on top of the parts' commit.
            let ancestor = resumed && ((try? git {
                let repository = try lane.repository()
                guard let from = ObjectID(hex: base), let built = ObjectID(hex: record.base) else { return false }
                return try repository.reachable([built], from: from).contains(built)
            }) ?? false)
            if !ancestor {
                throw missing("recorded from commit \(record.base.prefix(7)), but this job runs at \(base.prefix(7)): run the part's job for this commit")
            }
        }
        if !resumed, record.argumentsDigest != lane.fanOut.argumentsDigest(recorder) {
            throw missing("recorded by a run with other lane options: run the part's job with this job's options")
        }
        var collected: [Artifact] = []
        var downloaded = 0
        for artifact in record.artifacts {
            guard !artifact.path.hasPrefix("/"), !artifact.path.split(separator: "/").contains("..") else {
                throw missing("its record names \(artifact.path), a path outside the work tree")
            }
            let data: Data
            if let asset = record.asset(of: artifact) {
                data = try await download(asset, environment: lane.environment, missing: missing)
                downloaded += 1
                step.log("part \(part.name): \(asset.name) downloaded from the parts' draft release \(asset.releaseID), sha256:\(asset.sha256.prefix(12))… as recorded")
            } else {
                guard let bytes = files[artifact.sha256], SHA256.hex(of: bytes) == artifact.sha256 else {
                    throw missing("its record does not hold the bytes of \(artifact.path) with sha256:\(artifact.sha256.prefix(12))…")
                }
                data = bytes
            }
            let path = step.resolve(artifact.path)
            let folder = (path as NSString).deletingLastPathComponent
            try step.createFolder(folder)
            try step.writeFile(data, to: path)
            collected.append(try step.registerArtifact(artifact.path, kind: artifact.kind, name: artifact.name, os: artifact.os, arch: artifact.arch))
        }
        lane.fanOut.noteUsed(part.name, id, base: record.base)
        let count = "\(collected.count) artifact\(collected.count == 1 ? "" : "s")"
        step.note(downloaded == 0 ? "\(count) from origin" : "\(count): \(downloaded) from the parts' draft release, digests checked")
        return collected
    }

    /// The bytes of `asset`, downloaded from the parts' draft release and checked against the
    /// SHA-256 the part recorded.
    /// - Throws: `PartsMissing` (made by `missing`) when the draft no longer has it,
    ///   `PartAssetMismatch` when it holds other bytes; the forge's errors.
    private func download(_ asset: PartAsset, environment: LaneEnvironment, missing: (String) -> PartsMissing) async throws -> Data {
        switch try await asset.downloaded(from: try asset.host(environment: environment)) {
        case (.intact, let bytes?):
            return bytes
        case (.intact, nil), (.missing, _):
            throw missing("its artifact \(asset.path) is gone from the parts' draft release \(asset.releaseID) on \(asset.repository) (asset \(asset.name), id \(asset.id)): run the part's job again, it uploads it anew")
        case (.differs(let found), _):
            throw PartAssetMismatch(part: part.name, asset: asset, found: found)
        }
    }
}

/// A fresh clone finishing the fan-in takes the part's artifacts from origin again.
extension CollectPart: MakesLocalArtifacts {}

extension RecordPart: DocumentedAction {
    /// How `lane.part` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Declare one part of a release fanned out over CI jobs: its body builds the part's artifacts; `--part NAME` records them on origin, `--fan-in` takes every part's and publishes once",
        signature: "try await lane.part(_ name: String, os: String? = nil, arch: String? = nil, draft: ForgeTarget? = nil, _ body: () async throws -> Void)",
        parameters: [
            .init(name: "name", type: "String", defaultValue: nil, help: "the part's name, as `--part` and the plan's matrix give it"),
            .init(name: "os", type: "String?", defaultValue: "nil", help: "the runner's system the plan asks for: macos or linux"),
            .init(name: "arch", type: "String?", defaultValue: "nil", help: "the runner's architecture the plan asks for: x86_64 or arm64"),
            .init(name: "draft", type: "ForgeTarget?", defaultValue: "nil", help: "`.github()` or `.gitea()`: the part job uploads its artifacts to the release's one draft release, which the fan-in publishes (GitLab has no drafts: the fan-in uploads them)"),
            .init(name: "body", type: "() async throws -> Void", defaultValue: nil, help: "builds the part and registers its artifacts (`lane.artifact`, `lane.archive`)"),
        ],
        example: #"try await lane.part("ios", os: "macos") { try lane.artifact(try await lane.sh("make", "ipa")) }"#,
        dryRun: "runs the body's dry run and says what it would record on origin",
        rollback: "a part's job rolls back its local changes; a record it pushed stays for the fan-in (delete it with git push origin --delete refs/shiplane/parts/LANE/NAME)"
    )
}
