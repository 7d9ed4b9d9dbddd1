import Foundation

/// The private folder a match step decrypts certificates, keys and profiles into while it needs
/// them as files (the keychain import, installing profiles): `$TMPDIR/shiplane-match-step-<pid>-XXXXXX`,
/// mode 0700, every file 0600, removed when the step ends. A folder whose process is gone (a
/// killed run) is removed by the next match step on the machine (`removeLeftovers`).
package struct MatchScratch: Sendable {
    package static let prefix = "shiplane-match-step-"
    /// The folder's path.
    package let path: String

    /// Makes a new private folder under `base` (`TMPDIR`, else `/tmp`).
    /// - Throws: `MatchStoreError` (environment) when it cannot be made.
    package static func make(base: String) throws -> MatchScratch {
        var template = Array(((base.hasSuffix("/") ? base : base + "/") + prefix + "\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw MatchStoreError("cannot make a private folder in \(base) for the decrypted signing files",
                                  suggestion: "set TMPDIR to a writable folder", category: .environment)
        }
        return MatchScratch(path: String(cString: made))
    }

    /// The base folder for `environment`: `TMPDIR` when set, else `/tmp`.
    package static func base(_ environment: [String: String]) -> String {
        environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// Writes `data` as `name` (mode 0600, created with that mode: never readable by others, not
    /// even for a moment).
    /// - Throws: `MatchStoreError` when it cannot be written.
    @discardableResult
    package func write(_ data: Data, as name: String) throws -> String {
        let file = path + "/" + name.replacingOccurrences(of: "/", with: "_")
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw MatchStoreError("cannot write \(file): \(String(cString: strerror(errno)))", category: .environment)
        }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { buffer in buffer.baseAddress.map { Foundation.write(descriptor, $0, buffer.count) } ?? 0 }
        guard written == data.count else {
            throw MatchStoreError("cannot write \(file): \(String(cString: strerror(errno)))", category: .environment)
        }
        return file
    }

    /// Removes the folder and everything in it.
    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes the scratch folders under `base` whose process has ended (a run killed while it
    /// held decrypted files); returns their paths.
    @discardableResult
    package static func removeLeftovers(base: String) -> [String] {
        var removed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }), pid > 0 else { continue }
            // kill(pid, 0) fails with ESRCH only when no such process exists.
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let folder = (base.hasSuffix("/") ? base : base + "/") + name
            if (try? FileManager.default.removeItem(atPath: folder)) != nil { removed.append(folder) }
        }
        return removed
    }
}
