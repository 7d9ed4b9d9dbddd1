import Foundation

/// Copies release files into a local folder, atomically (temporary file, then rename).
///
/// An identical file already there is left alone; a differing one is an error unless `allowReplace`.
public struct DirectoryTarget: Sendable {
    /// What happened to one file.
    public enum Outcome: Sendable, Equatable { case copied, unchanged, replaced }

    public var directory: URL
    public var allowReplace: Bool

    public init(directory: URL, allowReplace: Bool = false) {
        self.directory = directory
        self.allowReplace = allowReplace
    }

    /// Copies `file` into the folder as `name` (default: its last path component), creating the folder.
    /// - Throws: `ShiplaneError` when a differing file is there and replacing is not allowed, or on I/O errors.
    @discardableResult
    public func copy(file: String, name: String? = nil) throws -> Outcome {
        let fileManager = FileManager.default
        let targetName = name ?? URL(fileURLWithPath: file).lastPathComponent
        guard !targetName.isEmpty, !targetName.contains("/"), targetName != ".", targetName != ".." else {
            throw ShiplaneError("invalid file name \(targetName) for the directory target")
        }
        _ = try HTTPTransport.regularFileSize(file)
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let destination = directory.appendingPathComponent(targetName)
        var replacing = false
        if fileManager.fileExists(atPath: destination.path) {
            if try SHA256.hex(ofFile: destination.path) == SHA256.hex(ofFile: file) { return .unchanged }
            guard allowReplace else {
                throw ShiplaneError("\(destination.path) already exists with different contents",
                                    info: [("new file", file)],
                                    suggestion: "remove it, bump the version, or allow replacing")
            }
            replacing = true
        }
        let temporary = directory.appendingPathComponent(".\(targetName).\(UUID().uuidString).tmp")
        do {
            try fileManager.copyItem(atPath: file, toPath: temporary.path)
            if replacing {
                try atomicRename(temporary, over: destination)
            } else {
                try fileManager.moveItem(at: temporary, to: destination)
            }
        } catch {
            try? fileManager.removeItem(at: temporary)
            throw ShiplaneError("cannot copy \(file) to \(destination.path)", underlying: [error])
        }
        return replacing ? .replaced : .copied
    }
}
