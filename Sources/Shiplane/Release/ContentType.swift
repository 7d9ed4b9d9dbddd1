import Foundation

/// Media types for release assets, chosen by file extension.
package enum ContentType {
    private static let byExtension: [(suffix: String, type: String)] = [
        (".tar.gz", "application/gzip"), (".tgz", "application/gzip"), (".gz", "application/gzip"),
        (".zip", "application/zip"), (".json", "application/json"), (".txt", "text/plain"),
        (".dmg", "application/x-apple-diskimage"), (".deb", "application/vnd.debian.binary-package"),
        (".rpm", "application/x-rpm"), (".tar", "application/x-tar"), (".xz", "application/x-xz"),
        (".md", "text/markdown"), (".sig", "application/pgp-signature"), (".asc", "application/pgp-signature"),
    ]

    /// The media type for a file name, `application/octet-stream` when the extension is unknown.
    package static func forFileName(_ name: String) -> String {
        let lowered = name.lowercased()
        if lowered.hasSuffix("sha256sums") { return "text/plain" }
        return byExtension.first { lowered.hasSuffix($0.suffix) }?.type ?? "application/octet-stream"
    }
}
