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

    /// Writes the checksum file (with its undo) and returns `output`.
    /// - Throws: when a file is missing or the output cannot be written.
    package func run(in step: StepContext) throws -> String {
        let fileSystem = step.lane.fileSystem
        let entries = files.map { (name: URL(fileURLWithPath: step.resolve($0)).lastPathComponent, path: step.resolve($0)) }
        let text = try Checksums.sha256Sums(for: entries) { path in
            guard let data = try fileSystem.contents(of: path) else {
                throw ShiplaneError("cannot checksum \(path): there is no such file")
            }
            return SHA256.hex(of: data)
        }
        try step.writeFile(Data(text.utf8), to: step.resolve(output), describedAs: output)
        step.note(output)
        return output
    }
}

extension LaneContext {
    /// Writes a SHA256SUMS file for `files`; returns its path.
    @discardableResult
    public func checksums(_ files: [String], to output: String, file: String = #fileID, line: Int = #line) throws -> String {
        try run(WriteChecksums(files: files, output: output), file: file, line: line)
    }
}

extension WriteChecksums: DocumentedAction {
    /// How `lane.checksums` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Write a SHA256SUMS file for files",
        signature: "try lane.checksums(_ files: [String], to output: String) -> String",
        parameters: [
            .init(name: "files", type: "[String]", defaultValue: nil, help: "files to hash"),
            .init(name: "to", type: "String", defaultValue: nil, help: "the SHA256SUMS file to write")
        ],
        example: #"try lane.checksums(["dist/app.tar.gz"], to: "dist/SHA256SUMS")"#,
        dryRun: "hashes what the dry run would have written", rollback: "restores or removes the file"
    )
}
