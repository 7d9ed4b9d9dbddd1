import Foundation

/// Writes `SHA256SUMS` files: one `<hex>  <name>` line per file, sorted by name.
package enum Checksums {
    /// The text of a SHA256SUMS file for the given files (name in the file → path on disk).
    /// - Throws: when a file cannot be read, or two files share a name.
    package static func sha256Sums(for files: [(name: String, path: String)]) throws -> String {
        try sha256Sums(for: files) { try SHA256.hex(ofFile: $0) }
    }

    /// The same, hashing each file through `digest` (a lane's file system, so a dry run hashes
    /// what earlier steps would have written).
    package static func sha256Sums(for files: [(name: String, path: String)], digest: (String) throws -> String) throws -> String {
        var seen = Set<String>()
        var lines: [(String, String)] = []
        for file in files {
            guard seen.insert(file.name).inserted else {
                throw ShiplaneError("two files share the name \(file.name) in SHA256SUMS", suggestion: "give each file a distinct name")
            }
            lines.append((file.name, try digest(file.path)))
        }
        return lines.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }.map { "\($0.1)  \($0.0)\n" }.joined()
    }

    /// Writes a SHA256SUMS file for the given paths (named by their last path component) and returns its URL.
    /// - Throws: when a file cannot be read or the output cannot be written.
    @discardableResult
    package static func writeSHA256Sums(for paths: [String], to output: URL) throws -> URL {
        let text = try sha256Sums(for: paths.map { (URL(fileURLWithPath: $0).lastPathComponent, $0) })
        try Data(text.utf8).write(to: output, options: .atomic)
        return output
    }
}
