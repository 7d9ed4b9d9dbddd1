/// A problem reading, rewriting, detecting or reconciling version files.
package struct VersionFileError: ReportableError {
    /// The kind of problem, for callers that handle some kinds (detection skips `.notASource`).
    package enum Kind: Sendable, Equatable {
        /// The file is of a known format but holds no version of its own (`version.workspace = true`).
        case notASource
        /// The file cannot be parsed as its format (invalid JSON, plist or UTF-8).
        case malformed
        /// The file holds a version that is not valid SemVer, or a build number that is not valid.
        case invalidValue
        /// The file holds several versions or build numbers that differ.
        case inconsistent
        /// A field to rewrite is missing or is of an unsupported kind.
        case unsupported
        /// A user-given pattern is invalid or does not match.
        case pattern
        /// No version file was found.
        case notFound
        /// The project is an app (an Xcode project, an Android app) whose version was not
        /// found, or a value refers to a setting that no file sets. Never a reason to read
        /// the version from tags instead.
        case missingVersion
        /// Version sources disagree with each other.
        case disagreement
        /// Reading or writing the file failed.
        case fileSystem
        /// A rewrite did not read back as written: a defect in Shiplane.
        case bug
    }

    /// The kind of problem.
    package let kind: Kind
    /// What is wrong, in one line.
    package let message: String
    /// The file the problem is in, relative to the project root where known.
    package var file: String?
    /// Facts after the file: the values found, where they are.
    package var details: [(key: String, value: String)]
    /// What to do about it, when known.
    package var suggestion: String?
    /// The errors behind this one (for a disagreement, each file that could not be read).
    package var underlyingErrors: [any Error]

    /// Creates the error of `kind` with `message`, and optionally the file, facts, a fix and causes.
    package init(
        _ kind: Kind,
        _ message: String,
        file: String? = nil,
        details: [(key: String, value: String)] = [],
        suggestion: String? = nil,
        underlying: [any Error] = []
    ) {
        self.kind = kind
        self.message = message
        self.file = file
        self.details = details
        self.suggestion = suggestion
        self.underlyingErrors = underlying
    }

    /// The file, then the details.
    package var info: [(key: String, value: String)] {
        (file.map { [(key: "file", value: $0)] } ?? []) + details
    }

    /// A defect for `.bug`; a plain failure otherwise.
    package var category: ErrorCategory { kind == .bug ? .defect : .failure }

    /// This error with `file` set, unless it already names one.
    func inFile(_ path: String) -> VersionFileError {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }
}
