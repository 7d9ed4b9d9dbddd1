import Foundation
internal import Git

/// The document format `sbom` writes.
public enum SBOMFormat: String, Sendable, CaseIterable {
    /// CycloneDX 1.6 JSON (`.cdx.json`).
    case cycloneDX = "cyclonedx"
    /// SPDX 2.3 JSON (`.spdx.json`).
    case spdx
}

/// Writes a software bill of materials for the release from the project's own lock files: every
/// locked package with its package URL, version, the hashes the lock file records and the
/// dependency graph where the lock file gives it, and the release's files with their SHA-256.
///
/// The same commit gives the same bytes: the lock files git tracks, sorted output, the time of
/// HEAD's commit (or `SOURCE_DATE_EPOCH`), and a serial number derived from the content.
package struct MakeSBOM: Action {
    /// The action's name in steps and reports.
    package static let name = "sbom"
    /// The document to write; missing folders are created.
    package var output: String
    package var format: SBOMFormat
    /// The files the release ships, named in the document with their SHA-256.
    package var artifacts: [String]
    /// The lock files to read; nil finds every one git tracks.
    package var lockFiles: [String]?
    /// The project's name; nil takes the origin repository's name, else the folder's.
    package var projectName: String?
    /// The release's version; nil takes the version this run bumped to, if any.
    package var version: String?

    /// The output, format, files and lock files.
    package var options: [StepOption] {
        var options = [StepOption("output", output), StepOption("format", format.rawValue)]
        if !artifacts.isEmpty { options.append(StepOption("artifacts", artifacts.joined(separator: ", "))) }
        if let lockFiles { options.append(StepOption("lockFiles", lockFiles.joined(separator: ", "))) }
        if let projectName { options.append(StepOption("name", projectName)) }
        if let version { options.append(StepOption("version", version)) }
        return options
    }

    /// Writes the document (with its undo) and returns it as an artifact of kind `.sbom`.
    /// - Throws: `LockFileProblem` for a lock file that does not read as its format, or a
    ///   `ValidationFailure` listing every missing file at once.
    package func run(in step: StepContext) throws -> Artifact {
        let lane = step.lane
        let root = lane.workingDirectory
        let fileSystem = lane.fileSystem
        let repository = try lane.repository()
        let paths: [String]
        if let lockFiles {
            paths = lockFiles
        } else {
            paths = try LockFileDiscovery.find(root: root, fileSystem: fileSystem) { path in try git { try repository.isTracked(path) } }
        }
        var problems: [String] = []
        var contents: [LockFileContents] = []
        for path in paths {
            let relative = Self.relative(step.resolve(path), to: root)
            guard let reader = LockFileFormats.reader(for: relative) else {
                problems.append("\(path) is not a lock file Shiplane reads (\(LockFileFormats.all.map { $0.format }.joined(separator: ", ")))")
                continue
            }
            guard let data = try fileSystem.contents(of: step.resolve(path)) else {
                problems.append("\(path) does not exist")
                continue
            }
            let folder = (step.resolve(path) as NSString).deletingLastPathComponent
            var siblings: [String: Data] = [:]
            for name in LockFileFormats.siblingNames {
                if let sibling = try fileSystem.contents(of: folder + "/" + name) { siblings[name] = sibling }
            }
            contents.append(try reader.read(data, file: relative, siblings: siblings))
        }
        var files: [SoftwareBill.File] = []
        for artifact in artifacts {
            guard let data = try fileSystem.contents(of: step.resolve(artifact)) else {
                problems.append("the artifact \(artifact) does not exist")
                continue
            }
            files.append(SoftwareBill.File(name: (artifact as NSString).lastPathComponent, sha256: SHA256.hex(of: data)))
        }
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "build the artifacts before the SBOM, and name lock files relative to the repository root")
        }
        let bill = SoftwareBill(
            projectName: projectName ?? Self.projectName(lane: lane, repository: repository),
            projectVersion: version ?? lane.state.bumpedVersion?.description,
            lockFiles: contents, files: files, timestamp: try Self.documentTime(lane: lane, repository: repository)
        )
        let data = switch format {
        case .cycloneDX: try CycloneDXDocument.encode(bill)
        case .spdx: try SPDXDocument.encode(bill)
        }
        let destination = step.resolve(output)
        try step.createFolder((destination as NSString).deletingLastPathComponent)
        try step.writeFile(data, to: destination, describedAs: output)
        let packageCount = bill.components.count
        let lockFileNames = bill.lockFiles.map(\.file)
        let artifact = try step.registerArtifact(output, kind: .sbom)
        step.note("\(output): \(packageCount) package\(packageCount == 1 ? "" : "s") from \(lockFileNames.isEmpty ? "no lock file" : lockFileNames.joined(separator: ", "))")
        return artifact
    }

    /// `SOURCE_DATE_EPOCH` when set, else the time of HEAD's commit: the same for every build of one commit.
    static func documentTime(lane: LaneContext, repository: Repository) throws -> Date {
        if let epoch = lane.environment["SOURCE_DATE_EPOCH"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            return Date(timeIntervalSince1970: TimeInterval(epoch))
        }
        let head = try lane.headCommit(of: repository)
        var date = Date(timeIntervalSince1970: 0)
        try git { try repository.walk(from: head) { commit in date = commit.committerDate; return false } }
        return date
    }

    /// The origin repository's name (`rocket` for `git@github.com:acme/rocket.git`), else the work tree's folder name.
    static func projectName(lane: LaneContext, repository: Repository) -> String {
        if let origin = try? git({ try repository.remoteURL(named: "origin") }), let (_, path) = RemoteLinks.hostAndPath(of: origin),
           let last = path.split(separator: "/").last {
            return last.hasSuffix(".git") ? String(last.dropLast(4)) : String(last)
        }
        // An origin on this machine (a path) names the project too, the same in every clone of it.
        if let origin = try? git({ try repository.remoteURL(named: "origin") }), let last = origin.split(separator: "/").last {
            return last.hasSuffix(".git") ? String(last.dropLast(4)) : String(last)
        }
        return (lane.workingDirectory as NSString).lastPathComponent
    }

    static func relative(_ path: String, to root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}

extension MakeSBOM: MakesLocalArtifacts {}

extension LaneContext {
    /// Writes a CycloneDX 1.6 (or SPDX 2.3) SBOM of the release to `output`, from the lock files
    /// git tracks (or `lockFiles`), naming `artifacts` with their SHA-256; returns the document as an artifact.
    @discardableResult
    public func sbom(
        to output: String, format: SBOMFormat = .cycloneDX, artifacts: [any ArtifactConvertible] = [], lockFiles: [String]? = nil,
        name: String? = nil, version: CustomStringConvertible? = nil, file: String = #fileID, line: Int = #line
    ) throws -> Artifact {
        try run(MakeSBOM(output: output, format: format, artifacts: try ArtifactInputs.paths(artifacts), lockFiles: lockFiles, projectName: name, version: version?.description),
                file: file, line: line)
    }
}

extension MakeSBOM: DocumentedAction {
    /// How `lane.sbom` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Write a CycloneDX 1.6 or SPDX 2.3 SBOM from the project's lock files (package URLs, versions, hashes, dependency graph) naming the release's files; the same commit gives the same bytes",
        signature: "try lane.sbom(to output: String, format: SBOMFormat = .cycloneDX, artifacts: [any ArtifactConvertible] = [], lockFiles: [String]? = nil, name: String? = nil, version: CustomStringConvertible? = nil) -> Artifact",
        parameters: [
            .init(name: "to", type: "String", defaultValue: nil, help: "the document to write (e.g. dist/app.cdx.json); missing folders are created"),
            .init(name: "format", type: "SBOMFormat", defaultValue: ".cycloneDX", help: ".cycloneDX (CycloneDX 1.6 JSON) or .spdx (SPDX 2.3 JSON)"),
            .init(name: "artifacts", type: "[any ArtifactConvertible]", defaultValue: "[]", help: "the files the release ships, named with their SHA-256"),
            .init(name: "lockFiles", type: "[String]?", defaultValue: "every tracked lock file", help: "Package.resolved, Cargo.lock, package-lock.json, pnpm-lock.yaml, yarn.lock, Gemfile.lock, Podfile.lock, pubspec.lock, gradle.lockfile, gradle/libs.versions.toml, go.sum, poetry.lock, uv.lock"),
            .init(name: "name", type: "String?", defaultValue: "the origin repository's name", help: "the project's name in the document"),
            .init(name: "version", type: "CustomStringConvertible?", defaultValue: "the version this run bumped to", help: "the release's version in the document")
        ],
        example: #"try lane.sbom(to: "dist/app.cdx.json", artifacts: [archive], version: version)"#,
        dryRun: "reads the lock files and writes to the overlay", rollback: "restores or removes the file"
    )
}
