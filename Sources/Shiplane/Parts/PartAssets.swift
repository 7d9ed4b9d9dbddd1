import Foundation

/// A part's artifact as the parts' draft release holds it (issue 42): where a part uploaded it to
/// a forge with drafts, its record on origin names the asset and its digest instead of holding
/// its bytes, and the fan-in downloads it from there and checks the digest before it publishes.
package struct PartAsset: Codable, Sendable, Equatable {
    /// The artifact's path relative to the work tree, as the record's artifact has it.
    package var path: String
    /// The SHA-256 of the artifact's bytes, as the part made them.
    package var sha256: String
    /// The forge (`github`, `gitea`).
    package var forge: String
    /// The API base the draft lives on.
    package var api: String
    /// The repository, `owner/name`.
    package var repository: String
    /// The draft release's id.
    package var releaseID: Int
    /// The asset's id on the forge.
    package var id: Int
    /// The asset's name on the release.
    package var name: String
    /// Its size in bytes.
    package var size: Int64
}

/// What a recorded asset holds now.
enum PartAssetState: Sendable, Equatable {
    /// The bytes the part recorded (the SHA-256 matches).
    case intact
    /// The forge no longer has it (the asset or its draft was deleted).
    case missing
    /// Other bytes: their SHA-256.
    case differs(found: String)
}

/// The parts' draft release's asset of a part holds other bytes than the part recorded: the
/// fan-in publishes nothing (exit 8, as for a part with no record).
struct PartAssetMismatch: ReportableError {
    var part: String
    var asset: PartAsset
    var found: String

    var message: String {
        "the asset \(asset.name) of part `\(part)` on the parts' draft release \(asset.releaseID) (\(asset.repository)) is not the file the part recorded: "
            + "expected sha256:\(asset.sha256), found sha256:\(found)"
    }
    var info: [(key: String, value: String)] {
        [("part", part), ("asset", "\(asset.name) (id \(asset.id), draft release \(asset.releaseID) on \(asset.repository))"),
         ("expected sha256", asset.sha256), ("found sha256", found)]
    }
    var suggestion: String? {
        "nothing was published. Run the part's job again (`shiplane <lane> --part \(part)`; a CI retry of its job does it): it finds the asset changed and uploads its artifact anew; then run this job again. If nobody replaced the file on purpose, check who can write to the repository's releases"
    }
    var category: ErrorCategory { .failure }
}

extension PartAsset {
    /// The forge's releases the asset is on, with the token the environment holds.
    /// - Throws: when the forge has no drafts, or no token is set.
    func host(environment: LaneEnvironment) throws -> any PartsDraftHost {
        guard let forge = ForgeKind(rawValue: forge)?.forge as? any PartsDraftForge.Type else {
            throw ShiplaneError("the part's artifact \(path) is recorded on a draft release of `\(self.forge)`, a forge this Shiplane does not know",
                                suggestion: "run the fan-in with the Shiplane version that recorded the part, or run the part's job again")
        }
        guard let host = try forge.partsDrafts(api: api, repository: repository, environment: environment) else {
            throw ShiplaneError(
                "the part's artifact \(path) is on the parts' draft release \(releaseID) on \(repository), and no token is set to download it",
                suggestion: "set \(forge.partsDraftsToken) for this job, as for the part jobs")
        }
        return host
    }

    /// Downloads the asset into `path` (a new file) and says whether it holds the recorded bytes;
    /// the file is removed unless it does.
    /// - Throws: the forge's and the file system's errors.
    func download(from host: any PartsDraftHost, to file: String) async throws -> PartAssetState {
        let state: PartAssetState
        if try await host.downloadAsset(id: id, releaseID: releaseID, to: file) {
            let found = try SHA256.hex(ofFile: file)
            state = found == sha256 ? .intact : .differs(found: found)
        } else {
            state = .missing
        }
        if state != .intact { try? FileManager.default.removeItem(atPath: file) }
        return state
    }

    /// What the draft holds of the asset now, without downloading where the forge gives a digest
    /// (GitHub): the asset by its id, with its name and size; compared by the digest, else by the
    /// SHA-256 of its bytes downloaded (Gitea).
    /// - Throws: the forge's errors.
    func check(on host: any PartsDraftHost) async throws -> PartAssetState {
        guard let release = try await host.releaseFacts(id: releaseID), release.draft,
              let found = release.assets.first(where: { $0.id == id }), found.name == name else { return .missing }
        if let digest = found.digest?.lowercased(), digest.hasPrefix("sha256:") {
            let hex = String(digest.dropFirst("sha256:".count))
            return hex == sha256 && found.size == size ? .intact : .differs(found: hex)
        }
        return try await downloaded(from: host).state
    }

    /// Downloads the asset into a temporary folder of its own and checks it: its bytes when they
    /// are the recorded ones. The folder is removed.
    /// - Throws: the forge's and the file system's errors.
    func downloaded(from host: any PartsDraftHost) async throws -> (state: PartAssetState, bytes: Data?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shiplane-part-asset-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/asset"
        let state = try await download(from: host, to: file)
        return (state, state == .intact ? try Data(contentsOf: URL(fileURLWithPath: file)) : nil)
    }
}

extension PartsDraftHost {
    /// The assets of the draft release `releaseID` that hold `artifacts` (paths relative to the
    /// work tree, files at `resolve(path)`), each by its name, size and, where the forge gives one,
    /// digest; nil when one is not there as uploaded (its record then keeps the bytes).
    /// - Throws: the forge's errors.
    func recordedAssets(_ artifacts: [Artifact], releaseID: Int, resolve: (String) -> String) async throws -> [PartAsset]? {
        guard let release = try await releaseFacts(id: releaseID) else { return nil }
        var recorded: [PartAsset] = []
        for artifact in artifacts {
            let size = try HTTPTransport.regularFileSize(resolve(artifact.path))
            guard let asset = release.assets.first(where: { $0.name == artifact.name }), asset.size == size,
                  asset.digest.map({ $0.lowercased() == "sha256:" + artifact.sha256 }) ?? true else { return nil }
            recorded.append(PartAsset(path: artifact.path, sha256: artifact.sha256, forge: kind.rawValue, api: api, repository: repositoryName,
                                      releaseID: releaseID, id: asset.id, name: asset.name, size: size))
        }
        return recorded
    }
}
