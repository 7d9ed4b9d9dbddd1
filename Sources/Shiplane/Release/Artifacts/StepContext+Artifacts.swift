import Foundation

extension StepContext {
    /// Makes the artifact for a file this step wrote (read through the lane's file system, so a
    /// dry run hashes what it would have written) and keeps it with the run.
    /// - Throws: when there is no file at `path`.
    @discardableResult
    package func registerArtifact(
        _ path: String, kind: Artifact.Kind? = nil, name: String? = nil, os: String? = nil, arch: String? = nil
    ) throws -> Artifact {
        let absolute = resolve(path)
        guard lane.fileSystem.isFile(absolute), let data = try lane.fileSystem.contents(of: absolute) else {
            throw ShiplaneError("\(path) is not a file, so it cannot be an artifact", suggestion: "build it first, or check the path (relative to the repository root)")
        }
        let fileName = URL(fileURLWithPath: absolute).lastPathComponent
        let artifact = Artifact(
            kind: kind ?? Artifact.kind(forFileName: fileName), name: name, path: relativeArtifactPath(absolute),
            sha256: SHA256.hex(of: data), os: os, arch: arch
        )
        lane.state.register(artifact, step: number)
        return artifact
    }

    /// Checks that each file among `paths` that is one of the run's artifacts still holds the
    /// bytes it was made with, before a step publishes or lists it.
    /// - Throws: `ArtifactChanged` naming the file and both digests.
    package func checkArtifacts(_ paths: [String]) throws {
        let made = lane.state.artifacts
        guard !made.isEmpty else { return }
        for path in paths {
            let absolute = resolve(path)
            guard let artifact = made.first(where: { resolve($0.path) == absolute }),
                  let data = try lane.fileSystem.contents(of: absolute) else { continue }
            let now = SHA256.hex(of: data)
            if now != artifact.sha256 {
                throw ArtifactChanged(path: artifact.path, recorded: artifact.sha256, found: now, when: "a step of this run made")
            }
        }
    }

    /// `path` relative to the work tree when it is inside it, else as given.
    func relativeArtifactPath(_ absolute: String) -> String {
        let root = lane.workingDirectory.hasSuffix("/") ? lane.workingDirectory : lane.workingDirectory + "/"
        let standardized = (absolute as NSString).standardizingPath
        let standardRoot = (root as NSString).standardizingPath + "/"
        return standardized.hasPrefix(standardRoot) ? String(standardized.dropFirst(standardRoot.count)) : absolute
    }
}

/// A file the run made holds other bytes than when it was made (or than the run's record says
/// the first attempt made).
struct ArtifactChanged: ReportableError {
    var path: String
    var recorded: String
    var found: String
    var when: String

    var message: String { "\(path) holds sha256:\(found), but \(when) it with sha256:\(recorded)" }
    var suggestion: String? {
        "make the same bytes again (Shiplane's archives are deterministic: check the inputs and SOURCE_DATE_EPOCH), or release a new version; nothing was published with the changed file"
    }
    var category: ErrorCategory { .failure }
    var info: [(key: String, value: String)] { [("file", path), ("recorded", "sha256:" + recorded), ("found", "sha256:" + found)] }
}

extension LaneContext {
    /// Every artifact this run's steps made so far (archives, checksum files, builds, signatures,
    /// SBOMs), in the order they were made; a resumed run includes what it made before.
    public var artifacts: [Artifact] { state.artifacts }

    /// Makes a file a command built (or downloaded) one of the release's artifacts: hashes it and
    /// keeps it with the run, whose record keeps the digest; returns the artifact. A fresh clone
    /// that finishes the run builds the file again and must get the same bytes.
    @discardableResult
    public func artifact(
        _ path: String, kind: Artifact.Kind? = nil, name: String? = nil, os: String? = nil, arch: String? = nil,
        file: String = #fileID, line: Int = #line
    ) throws -> Artifact {
        try run(RegisterArtifact(path: path, kind: kind, name: name, os: os, arch: arch), file: file, line: line)
    }
}

/// Makes a file a step of the lane built one of the run's artifacts (`lane.artifact`).
package struct RegisterArtifact: Action {
    /// The action's name in steps and reports.
    package static let name = "artifact"
    package var path: String
    package var kind: Artifact.Kind?
    package var name: String?
    package var os: String?
    package var arch: String?

    /// The path, and the kind, name and platform when given.
    package var options: [StepOption] {
        var shown = [StepOption("path", path)]
        if let kind { shown.append(StepOption("kind", kind.rawValue)) }
        if let name { shown.append(StepOption("name", name)) }
        if let os { shown.append(StepOption("os", os)) }
        if let arch { shown.append(StepOption("arch", arch)) }
        return shown
    }

    /// Hashes the file and keeps it with the run.
    /// - Throws: when there is no file at `path`.
    package func run(in step: StepContext) throws -> Artifact {
        let absolute = step.resolve(path)
        let standIn = step.isDryRun && !step.lane.fileSystem.isFile(absolute)
        if standIn {
            // A dry run does not run the commands that build the file: the plan goes on with a
            // stand-in in the dry run's overlay (never on disk), and says so.
            try step.lane.fileSystem.write(Data("(dry run: \(path) is made by a command this dry run did not run)\n".utf8), to: absolute)
            step.log("\(path) is not there yet: a real run hashes it once a command of the lane has made it, and stops if none has",
                     level: .warning)
        }
        let artifact = try step.registerArtifact(path, kind: kind, name: name, os: os, arch: arch)
        // A stand-in's digest is not the file's: the plan says so instead of showing one.
        step.note("\(artifact.kind.rawValue) \(artifact.path) " + (standIn ? "(not built in a dry run)" : "sha256:\(artifact.sha256.prefix(12))…"))
        return artifact
    }
}

extension RegisterArtifact: DocumentedAction {
    /// How `lane.artifact` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Make a file a command built one of the release's artifacts (kind, path, SHA-256, platform), kept in the run's record; lane.artifacts lists them",
        signature: "try lane.artifact(_ path: String, kind: Artifact.Kind? = nil, name: String? = nil, os: String? = nil, arch: String? = nil) -> Artifact",
        parameters: [
            .init(name: "path", type: "String", defaultValue: nil, help: "the file, relative to the repository root"),
            .init(name: "kind", type: "Artifact.Kind?", defaultValue: "from the name", help: ".archive, .checksums, .binary, .signature, .sbom, .provenance or .other"),
            .init(name: "name", type: "String?", defaultValue: "the file name", help: "the name it is published under"),
            .init(name: "os", type: "String?", defaultValue: "nil", help: "the operating system a build is for"),
            .init(name: "arch", type: "String?", defaultValue: "nil", help: "the CPU architecture a build is for"),
        ],
        example: #"let app = try lane.artifact(".build/release/app", kind: .binary, os: "linux", arch: "x86_64")"#,
        dryRun: "hashes what the dry run would have written; a file a command would make (not run in a dry run) is a stand-in, with a warning", rollback: "nothing to undo (it only reads the file)"
    )
}

/// A fresh clone that finishes the run hashes the file it built again (and checks it against the record).
extension RegisterArtifact: MakesLocalArtifacts {}
