import Foundation

/// A file on disk that holds the project's version, paired with the format that reads it.
package struct VersionFile: Sendable, CustomStringConvertible {
    /// Where the file is.
    package let url: URL
    /// How to read and rewrite it.
    package let format: any VersionFormat
    /// How to name the file in messages, usually its path relative to the project root.
    package let displayPath: String
    /// True for an app extension's file: it carries the app's version, is rewritten with the
    /// others, and is reported instead of refused when it holds another.
    package var followsApp = false

    /// Creates a version file at `url` read with `format`; `displayPath` defaults to the full path.
    package init(url: URL, format: any VersionFormat, displayPath: String? = nil) {
        self.url = url
        self.format = format
        self.displayPath = displayPath ?? url.path
    }

    /// The display path and the format's name.
    package var description: String { "\(displayPath) (\(format.name))" }

    /// Reads the file's version and build number.
    /// - Throws: `VersionFileError` naming the file.
    package func read() throws -> VersionReading {
        try read(try contents())
    }

    /// Reads the version and build number from `data`, this file's bytes.
    /// - Throws: `VersionFileError` naming the file.
    package func read(_ data: Data) throws -> VersionReading {
        try naming { try format.read(data) }
    }

    /// Reads `data` once and keeps what rewriting it needs (for the textual formats: where each
    /// value sits); other formats read now and parse again when rewriting.
    /// - Throws: `VersionFileError` naming the file.
    func parse(_ data: Data) throws -> ParsedVersionFile {
        try naming {
            if let textual = format as? any TextualVersionFormat { return try TextualVersionEditing.parse(data, format: textual) }
            let reading = try format.read(data)
            let format = self.format
            return ParsedVersionFile(reading: reading) { try format.rewritten(data, version: $0, build: $1.value(for: format.buildSeries.only)) }
        }
    }

    /// The file's bytes with a new version and build number; `nil` leaves a value alone. Pure.
    /// - Throws: `VersionFileError` naming the file.
    package func rewritten(_ original: Data, version: SemanticVersion?, build: String?) throws -> Data {
        try naming { try format.rewritten(original, version: version, build: build) }
    }

    /// Rewrites the file on disk atomically and returns its previous bytes, for undo.
    /// - Throws: `VersionFileError` naming the file.
    @discardableResult
    package func write(version: SemanticVersion?, build: String?) throws -> Data {
        let original = try contents()
        let updated = try rewritten(original, version: version, build: build)
        if updated != original {
            try naming { try Self.writeAtomically(updated, to: url) }
        }
        return original
    }

    /// The file's bytes.
    /// - Throws: `VersionFileError.fileSystem` naming the file.
    package func contents() throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw VersionFileError(.fileSystem, "Cannot read the version file", file: displayPath, underlying: [error])
        }
    }

    /// Replaces the file at `url` with `data` through a temporary file in the same folder and a
    /// rename, keeping the file's permissions; a symbolic link is followed, not replaced.
    /// - Throws: `VersionFileError.fileSystem`.
    package static func writeAtomically(_ data: Data, to url: URL) throws {
        do {
            try Shiplane.writeAtomically(data, to: url.path)
        } catch {
            throw VersionFileError(.fileSystem, "Cannot write the version file", file: url.path, underlying: [error])
        }
    }

    func naming<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as VersionFileError {
            throw error.inFile(displayPath)
        }
    }
}
