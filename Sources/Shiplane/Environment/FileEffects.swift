import Foundation

/// A file's bytes were replaced (or the file was made): the old bytes are saved under `saved`
/// (nil: there was no file), `afterHash` is the SHA-256 of what the run wrote.
package struct FileWritten: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "file.written"
    /// The `afterHash` of a file a tool is writing (cargo, npm): its bytes are not known until the
    /// tool ends, so the undo restores the saved copy whatever the file holds.
    package static let writtenByATool = "*"

    /// The file's absolute path.
    package var path: String
    /// The name of the saved copy of the old bytes; nil when the file did not exist.
    package var saved: String?
    /// The SHA-256 of the bytes written, or `writtenByATool`.
    package var afterHash: String

    /// Describes a file write.
    package init(path: String, saved: String?, afterHash: String) {
        self.path = path
        self.saved = saved
        self.afterHash = afterHash
    }

    /// In the work tree.
    package var reach: EffectReach { .local }

    /// Puts the old bytes back (or removes a file the run made) while the file still holds what
    /// the run wrote.
    /// - Throws: when the file changed or was deleted since, or its saved copy is gone.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let fileSystem = context.fileSystem
        removeTemporaryCopies(fileSystem)
        let current = try fileSystem.contents(of: path)
        let before = saved.flatMap { context.savedCopies.savedCopy($0) }
        if saved != nil && before == nil {
            throw ShiplaneError("the saved copy of \(context.display(path)) is missing; left as it is")
        }
        guard let current else {
            // Gone: either never written (an interrupted first write) or removed since.
            if before == nil { return }
            throw ShiplaneError("\(context.display(path)) was deleted after Shiplane wrote it; left as it is")
        }
        if let before, current == before { return }
        guard afterHash == Self.writtenByATool || SHA256.hex(of: current) == afterHash else {
            throw ShiplaneError("\(context.display(path)) changed after Shiplane wrote it; left as it is")
        }
        if let before { try fileSystem.write(before, to: path) } else { try fileSystem.remove(path) }
    }

    /// Temporary files an interrupted atomic write left next to the file (`.NAME.shiplane-PID-N`).
    private func removeTemporaryCopies(_ fileSystem: any FileSystem) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = "." + (path as NSString).lastPathComponent + ".shiplane-"
        for name in (try? fileSystem.list(folder)) ?? [] where name.hasPrefix(prefix) {
            try? fileSystem.remove(folder + "/" + name)
        }
    }

    /// Moved with the work tree.
    package func rebased(_ move: (String) -> String) -> FileWritten {
        FileWritten(path: move(path), saved: saved, afterHash: afterHash)
    }
}

/// Folders a step created, outermost first.
package struct FoldersCreated: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "file.folders"
    /// The folders made, outermost first.
    package var paths: [String]

    /// Describes the folders a step made.
    package init(paths: [String]) { self.paths = paths }

    /// In the work tree.
    package var reach: EffectReach { .local }

    /// Removes the folders, innermost first, while they are empty.
    /// - Throws: when one holds files Shiplane did not write.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let fileSystem = context.fileSystem
        for folder in paths.reversed() where fileSystem.isFolder(folder) {
            guard try fileSystem.list(folder).isEmpty else {
                throw ShiplaneError("\(context.display(folder)) holds files Shiplane did not write; left as it is")
            }
            try fileSystem.remove(folder)
        }
    }

    /// Moved with the work tree.
    package func rebased(_ move: (String) -> String) -> FoldersCreated { FoldersCreated(paths: paths.map(move)) }
}
