import Foundation

/// Writes a `SHA256SUMS` file for the given files (`<hex>  <name>` lines, sorted by name).
package struct WriteChecksums: Action {
    /// The action's name in steps and reports.
    package static let name = "checksums"
    /// The files to hash, relative to the repository root unless absolute.
    package var files: [String]
    /// The checksum file to write.
    package var output: String

    /// The files and the output file.
    package var options: [StepOption] { [StepOption("files", files.joined(separator: ", ")), StepOption("output", output)] }

    /// Writes the checksum file (with its undo) and returns it as an artifact of the run.
    /// - Throws: when a file is missing, an artifact among them changed since it was made, or
    ///   the output cannot be written.
    package func run(in step: StepContext) throws -> Artifact {
        let fileSystem = step.lane.fileSystem
        try step.checkArtifacts(files)
        let entries = files.map { (name: URL(fileURLWithPath: step.resolve($0)).lastPathComponent, path: step.resolve($0)) }
        let text = try Checksums.sha256Sums(for: entries) { path in
            guard let data = try fileSystem.contents(of: path) else {
                throw ShiplaneError("cannot checksum \(path): there is no such file")
            }
            return SHA256.hex(of: data)
        }
        try step.writeFile(Data(text.utf8), to: step.resolve(output), describedAs: output)
        step.note(output)
        return try step.registerArtifact(step.resolve(output), kind: .checksums)
    }
}

extension LaneContext {
    /// Writes a SHA256SUMS file for `files` (paths or artifacts); returns it as an artifact of the
    /// run (kind `.checksums`).
    @discardableResult
    public func checksums(_ files: [any ArtifactConvertible], to output: String, file: String = #fileID, line: Int = #line) throws -> Artifact {
        try run(WriteChecksums(files: try ArtifactInputs.paths(files), output: output), file: file, line: line)
    }
}

extension WriteChecksums: DocumentedAction {
    /// How `lane.checksums` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Write a SHA256SUMS file for files",
        signature: "try lane.checksums(_ files: [any ArtifactConvertible], to output: String) -> Artifact",
        parameters: [
            .init(name: "files", type: "[any ArtifactConvertible]", defaultValue: nil, help: "files to hash: paths or artifacts"),
            .init(name: "to", type: "String", defaultValue: nil, help: "the SHA256SUMS file to write")
        ],
        example: #"try lane.checksums(["dist/app.tar.gz"], to: "dist/SHA256SUMS")"#,
        dryRun: "hashes what the dry run would have written", rollback: "restores or removes the file"
    )
}
