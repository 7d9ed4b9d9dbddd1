import Foundation

/// A reader of one lock-file format.
package protocol LockFileReading: Sendable {
    /// The format's name in messages and in the SBOM's properties.
    static var format: String { get }
    /// Whether a file at `path` (relative to the repository root) is in this format.
    static func matches(path: String) -> Bool
    /// Reads the lock file's packages; `siblings` holds the files beside it that it reads too (`go.mod` beside `go.sum`).
    /// - Throws: `LockFileProblem` when the file is not what its format says.
    static func read(_ data: Data, file: String, siblings: [String: Data]) throws -> LockFileContents
}

extension LockFileReading {
    /// The file's text as UTF-8.
    static func text(_ data: Data, file: String) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else { throw LockFileProblem(file: file, "it is not UTF-8 text") }
        return text
    }

    /// The file's JSON object.
    static func jsonObject(_ data: Data, file: String) throws -> [String: Any] {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw LockFileProblem(file: file, "it is not JSON (\(describe(error)))")
        }
        guard let dictionary = object as? [String: Any] else { throw LockFileProblem(file: file, "it is not a JSON object") }
        return dictionary
    }

    /// The file's YAML mapping.
    static func yamlMapping(_ data: Data, file: String) throws -> [String: Any] {
        let loaded: Any?
        do { loaded = try YAMLLoading.load(try text(data, file: file)) } catch let problem as LockFileProblem { throw problem } catch {
            throw LockFileProblem(file: file, "it is not YAML (\(describe(error)))")
        }
        guard let mapping = loaded as? [String: Any] else { throw LockFileProblem(file: file, "it is not a YAML mapping") }
        return mapping
    }

    /// The last path component of `path`.
    static func fileName(_ path: String) -> String { (path as NSString).lastPathComponent }
}

/// Every lock-file format Shiplane reads, in one list.
package enum LockFileFormats {
    package static let all: [any LockFileReading.Type] = [
        SwiftPackageResolved.self, CargoLock.self, NpmPackageLock.self, PnpmLock.self, YarnLock.self,
        GemfileLock.self, PodfileLock.self, PubspecLock.self, GradleLockfile.self, GradleVersionCatalog.self,
        GoSum.self, PoetryLock.self, UvLock.self,
    ]

    /// The files beside a lock file that its reader may read too.
    package static let siblingNames = ["go.mod", "pyproject.toml"]

    /// The reader for `path`, if one reads it.
    package static func reader(for path: String) -> (any LockFileReading.Type)? {
        all.first { $0.matches(path: path) }
    }
}
