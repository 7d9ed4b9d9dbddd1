import Foundation

/// The kind of archive `archive` writes.
public enum ArchiveFormat: String, Sendable {
    case tarGz = "tar.gz"
    case zip
}

/// Packs a folder into a deterministic archive: sorted entries, fixed times, owner 0, so the same
/// input gives the same bytes on every run.
public struct Archive: Action {
    public static let name = "archive"
    public var folder: String
    public var output: String
    public var format: ArchiveFormat

    public var options: [StepOption] { [StepOption("folder", folder), StepOption("output", output)] }

    public func run(in step: StepContext) throws -> String {
        let source = URL(fileURLWithPath: step.resolve(folder))
        let destination = step.resolve(output)
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory() + "shiplane-archive-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let time = Int(step.lane.environment["SOURCE_DATE_EPOCH"] ?? "") ?? 0
        switch format {
        case .tarGz: try TarGzArchive.write(directory: source, prefix: nil, to: scratch, modificationTime: time)
        case .zip: try ZipArchive.write(directory: source, prefix: nil, to: scratch, modificationTime: time)
        }
        let data = try Data(contentsOf: scratch)
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try step.writeFile(data, to: destination, describedAs: output)
        step.note("\(output) (\(data.count) bytes)")
        return output
    }
}

/// Writes a `SHA256SUMS` file for the given files (`<hex>  <name>` lines, sorted by name).
public struct WriteChecksums: Action {
    public static let name = "checksums"
    public var files: [String]
    public var output: String

    public var options: [StepOption] { [StepOption("files", files.joined(separator: ", ")), StepOption("output", output)] }

    public func run(in step: StepContext) throws -> String {
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

/// Copies files into a folder (a local release target): atomically, never overwriting a
/// different file unless `replace`; rollback removes what it added.
public struct CopyToDirectory: Action {
    public static let name = "copyToDirectory"
    public var files: [String]
    public var directory: String
    public var replace: Bool

    public var options: [StepOption] { [StepOption("files", files.joined(separator: ", ")), StepOption("directory", directory)] }

    public func run(in step: StepContext) throws -> [String] {
        let folder = step.resolve(directory)
        var copied: [String] = []
        for file in files {
            let source = step.resolve(file)
            guard let data = try step.lane.fileSystem.contents(of: source) else {
                throw ShiplaneError("cannot copy \(file): there is no such file")
            }
            let name = URL(fileURLWithPath: source).lastPathComponent
            let target = folder + "/" + name
            if let existing = try step.lane.fileSystem.contents(of: target), existing != data, !replace {
                throw ShiplaneError(
                    "\(directory)/\(name) exists with other content",
                    suggestion: "bump the version, or pass replace: true to overwrite it"
                )
            }
            if !step.isDryRun { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try step.writeFile(data, to: target, describedAs: "\(directory)/\(name)")
            copied.append(target)
        }
        step.note("\(files.count) file\(files.count == 1 ? "" : "s") → \(directory)")
        return copied
    }
}

extension LaneContext {
    /// Packs `folder` into a deterministic `.tar.gz` or `.zip` at `output`; returns `output`.
    @discardableResult
    public func archive(_ folder: String, to output: String, format: ArchiveFormat = .tarGz, file: String = #fileID, line: Int = #line) throws -> String {
        try run(Archive(folder: folder, output: output, format: format), file: file, line: line)
    }

    /// Writes a SHA256SUMS file for `files`; returns its path.
    @discardableResult
    public func checksums(_ files: [String], to output: String, file: String = #fileID, line: Int = #line) throws -> String {
        try run(WriteChecksums(files: files, output: output), file: file, line: line)
    }

    /// Copies files into a folder, the local release target; returns the copies' paths.
    @discardableResult
    public func copyToDirectory(_ files: [String], directory: String, replace: Bool = false, file: String = #fileID, line: Int = #line) throws -> [String] {
        try run(CopyToDirectory(files: files, directory: directory, replace: replace), file: file, line: line)
    }
}
