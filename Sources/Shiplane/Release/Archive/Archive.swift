import Foundation

/// The kind of archive `archive` writes.
public enum ArchiveFormat: String, Sendable {
    /// A gzip-compressed tar file (`.tar.gz`, `.tgz`).
    case tarGz = "tar.gz"
    /// A zip file.
    case zip
}

/// Packs files, folders and globs into a deterministic archive: sorted entries, fixed times,
/// owner 0, so the same input gives the same bytes on every run.
///
/// A file goes in under its name, a folder's contents at the archive's root, a glob's matches
/// each as a file or folder would. An input that does not exist, a glob that matches nothing,
/// an empty folder or two inputs with one name are errors (all listed at once); an archive with
/// no file in it is never written.
package struct Archive: Action {
    /// The action's name in steps and reports.
    package static let name = "archive"
    /// The files, folders and globs to pack, relative to the repository root unless absolute.
    package var inputs: [String]
    /// The archive to write; missing folders are created.
    package var output: String
    /// The archive's format.
    package var format: ArchiveFormat

    /// Creates the action that packs `inputs` into `output`; without `format`, `.zip` for a `.zip` name
    /// and `.tarGz` otherwise.
    package init(_ inputs: [String], to output: String, format: ArchiveFormat? = nil) {
        self.inputs = inputs
        self.output = output
        self.format = format ?? ArchiveFormat(fileName: output) ?? .tarGz
    }

    /// The inputs, the output and the format.
    package var options: [StepOption] {
        [StepOption("inputs", inputs.joined(separator: ", ")), StepOption("output", output), StepOption("format", format.rawValue)]
    }

    /// Writes the archive (with its undo) and returns it as an artifact of the run; the time of
    /// every entry is `SOURCE_DATE_EPOCH`, else 0.
    /// - Throws: when the name asks for another format, or every problem with the inputs at once.
    package func run(in step: StepContext) throws -> Artifact {
        if let named = ArchiveFormat(fileName: output), named != format {
            throw ValidationFailure(
                problems: ["\(output) would hold a .\(format.rawValue) archive under a .\(named.rawValue) name"],
                suggestion: "name the file for its format, or pass format: .\(named == .zip ? "zip" : "tarGz")"
            )
        }
        let entries = try ArchiveSources.entries(for: inputs, root: step.lane.workingDirectory)
        let destination = step.resolve(output)
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory() + "shiplane-archive-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let time = Int(step.lane.environment["SOURCE_DATE_EPOCH"] ?? "") ?? 0
        switch format {
        case .tarGz: try TarGzArchive.write(entries: entries, to: scratch, modificationTime: time)
        case .zip: try ZipArchive.write(entries: entries, to: scratch, modificationTime: time)
        }
        let data = try Data(contentsOf: scratch)
        try step.createFolder((destination as NSString).deletingLastPathComponent)
        try step.writeFile(data, to: destination, describedAs: output)
        let files = entries.filter { if case .file = $0.kind { return true } else { return false } }.count
        step.note("\(output) (\(files) file\(files == 1 ? "" : "s"), \(data.count) bytes)")
        return try step.registerArtifact(destination, kind: .archive)
    }
}

extension ArchiveFormat {
    /// The format a file name asks for: `.zip`, or `.tar.gz` / `.tgz`.
    init?(fileName: String) {
        let lower = fileName.lowercased()
        if lower.hasSuffix(".zip") { self = .zip } else if lower.hasSuffix(".tar.gz") || lower.hasSuffix(".tgz") { self = .tarGz } else { return nil }
    }
}

extension LaneContext {
    /// Packs a file, a folder's contents or a glob's matches into a deterministic `.tar.gz` or
    /// `.zip` at `output` (the format follows the name unless given); returns it as an artifact
    /// of the run (kind `.archive`, its path and SHA-256), which `lane.artifacts` lists.
    @discardableResult
    public func archive(_ input: String, to output: String, format: ArchiveFormat? = nil, file: String = #fileID, line: Int = #line) throws -> Artifact {
        try run(Archive([input], to: output, format: format), file: file, line: line)
    }

    /// Packs several files, folders and globs into one deterministic archive; returns it as an artifact.
    @discardableResult
    public func archive(_ inputs: [String], to output: String, format: ArchiveFormat? = nil, file: String = #fileID, line: Int = #line) throws -> Artifact {
        try run(Archive(inputs, to: output, format: format), file: file, line: line)
    }
}

extension Archive: DocumentedAction {
    /// How `lane.archive` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Pack files, folders and globs into a deterministic .tar.gz or .zip (sorted entries, fixed times, owner 0); empty or missing input is an error, never an empty archive",
        signature: "try lane.archive(_ input: String, to output: String, format: ArchiveFormat? = nil) -> Artifact; lane.archive(_ inputs: [String], to:, format:)",
        parameters: [
            .init(name: "input", type: "String", defaultValue: nil, help: "a file (by its name), a folder (its contents), or a glob such as \"docs/*.md\""),
            .init(name: "inputs", type: "[String]", defaultValue: nil, help: "several files, folders and globs in one archive"),
            .init(name: "to", type: "String", defaultValue: nil, help: "the archive to write; missing folders are created"),
            .init(name: "format", type: "ArchiveFormat?", defaultValue: "from the name", help: ".tarGz or .zip (else .zip for *.zip, .tarGz otherwise); SOURCE_DATE_EPOCH sets the time")
        ],
        example: #"try lane.archive(".build/release/app", to: "dist/app.tar.gz")"#,
        dryRun: "writes to the overlay", rollback: "restores or removes the file"
    )
}
