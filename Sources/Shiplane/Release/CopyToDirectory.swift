import Foundation

/// Copies files into a folder (a local release target): atomically, never overwriting a
/// different file unless `replace`; rollback removes what it added.
package struct CopyToDirectory: Action {
    /// The action's name in steps and reports.
    package static let name = "copyToDirectory"
    /// The files to copy, relative to the repository root unless absolute; folders are refused.
    package var files: [String]
    /// The folder they go to, created when missing.
    package var directory: String
    /// True to overwrite a file there that holds other content.
    package var replace: Bool

    /// The files and the folder.
    package var options: [StepOption] { [StepOption("files", files.joined(separator: ", ")), StepOption("directory", directory)] }

    /// Copies each file and returns the copies' paths; each write has its undo.
    /// - Throws: when a file is missing or a folder, or the target holds other content and `replace` is false.
    package func run(in step: StepContext) throws -> [String] {
        try step.checkArtifacts(files)
        let folder = step.resolve(directory)
        var copied: [String] = []
        for file in files {
            let source = step.resolve(file)
            if step.lane.fileSystem.isFolder(source) {
                throw ShiplaneError("cannot copy \(file): it is a folder", suggestion: "name the files, or archive the folder first")
            }
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
            try step.createFolder(folder)
            try step.writeFile(data, to: target, describedAs: "\(directory)/\(name)")
            copied.append(target)
        }
        step.note("\(files.count) file\(files.count == 1 ? "" : "s") → \(directory)")
        return copied
    }
}

extension LaneContext {
    /// Copies files into a folder, the local release target; returns the copies' paths.
    @discardableResult
    public func copyToDirectory(_ files: [any ArtifactConvertible], directory: String, replace: Bool = false, file: String = #fileID, line: Int = #line) throws -> [String] {
        try run(CopyToDirectory(files: try ArtifactInputs.paths(files), directory: directory, replace: replace), file: file, line: line)
    }
}

extension CopyToDirectory: DocumentedAction {
    /// How `lane.copyToDirectory` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Release",
        summary: "Copy files into a folder (a local release target), atomically, never overwriting a different file unless replace",
        signature: "try lane.copyToDirectory(_ files: [any ArtifactConvertible], directory: String, replace: Bool = false) -> [String]",
        parameters: [
            .init(name: "files", type: "[any ArtifactConvertible]", defaultValue: nil, help: "the files to copy"),
            .init(name: "directory", type: "String", defaultValue: nil, help: "the folder, created when missing"),
            .init(name: "replace", type: "Bool", defaultValue: "false", help: "overwrite a file with other content")
        ],
        example: #"try lane.copyToDirectory(["dist/app.tar.gz"], directory: "/srv/releases/\(version)")"#,
        dryRun: "writes to the overlay", rollback: "removes or restores each copy"
    )
}
