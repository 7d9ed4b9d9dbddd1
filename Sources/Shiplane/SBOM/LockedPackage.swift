import Foundation

/// A digest of a package as a lock file records it.
package struct PackageHash: Hashable, Sendable {
    /// The algorithms lock files use, named as CycloneDX names them.
    package enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA-1", sha256 = "SHA-256", sha384 = "SHA-384", sha512 = "SHA-512"

        /// SPDX's name for it.
        var spdxName: String { rawValue.replacingOccurrences(of: "-", with: "") }
        /// The number of bytes of such a digest.
        var byteCount: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }

    package var algorithm: Algorithm
    /// The digest in lowercase hexadecimal.
    package var hex: String

    /// A digest from lowercase or uppercase hexadecimal of the algorithm's length; nil otherwise.
    package init?(_ algorithm: Algorithm, hex: String) {
        let lower = hex.lowercased()
        guard lower.count == algorithm.byteCount * 2, lower.allSatisfy({ $0.isHexDigit }) else { return nil }
        self.algorithm = algorithm
        self.hex = lower
    }

    /// A digest from its bytes; nil when the count does not fit the algorithm.
    package init?(_ algorithm: Algorithm, bytes: Data) {
        guard bytes.count == algorithm.byteCount else { return nil }
        self.init(algorithm, hex: bytes.hexadecimal)
    }

    /// Subresource-integrity text as npm, pnpm and yarn write it (`sha512-<base64>`, several
    /// separated by spaces): each known algorithm's digest.
    package static func integrity(_ text: String) -> [PackageHash] {
        text.split(separator: " ").compactMap { token -> PackageHash? in
            guard let dash = token.firstIndex(of: "-") else { return nil }
            let name = token[..<dash].lowercased()
            let algorithm: Algorithm? = ["sha1": .sha1, "sha256": .sha256, "sha384": .sha384, "sha512": .sha512][name]
            guard let algorithm, let bytes = Data(base64Encoded: String(token[token.index(after: dash)...])) else { return nil }
            return PackageHash(algorithm, bytes: bytes)
        }
    }

    /// `sha256:<hex>` as Python's lock files write it.
    package static func prefixed(_ text: String) -> PackageHash? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].lowercased()
        let algorithm: Algorithm? = ["sha1": .sha1, "sha256": .sha256, "sha384": .sha384, "sha512": .sha512][name]
        return algorithm.flatMap { PackageHash($0, hex: String(text[text.index(after: colon)...])) }
    }
}

/// One package a lock file pins.
package struct LockedPackage: Hashable, Sendable {
    package var purl: PackageURL
    /// Digests of the package's published file, as the lock file records them (none when it records none).
    package var hashes: [PackageHash]
    /// The packages this one depends on; nil when the lock file does not say.
    package var dependencies: [PackageURL]?
    /// Needed only to develop or test the project (npm's `dev`, Bundler's and Poetry's groups, pubspec's `direct dev`).
    package var isDevelopment: Bool
    /// Where its source comes from when that is a repository rather than a registry.
    package var vcsURL: String?
    /// Where its published file is, when the lock file says.
    package var downloadURL: String?

    package init(purl: PackageURL, hashes: [PackageHash] = [], dependencies: [PackageURL]? = nil, isDevelopment: Bool = false, vcsURL: String? = nil, downloadURL: String? = nil) {
        self.purl = purl
        self.hashes = hashes
        self.dependencies = dependencies
        self.isDevelopment = isDevelopment
        self.vcsURL = vcsURL
        self.downloadURL = downloadURL
    }
}

/// What one lock file says: its packages and, where it says, which the project uses directly.
package struct LockFileContents: Sendable {
    /// The lock file's path relative to the repository root.
    package var file: String
    /// The lock file's format, for messages (`Cargo.lock`, `package-lock.json v3`).
    package var format: String
    package var packages: [LockedPackage]
    /// The packages the project itself names; nil when the lock file does not say.
    package var direct: [PackageURL]?

    package init(file: String, format: String, packages: [LockedPackage], direct: [PackageURL]?) {
        self.file = file
        self.format = format
        self.packages = packages
        self.direct = direct
    }
}

/// A lock file that cannot be read as its format says.
package struct LockFileProblem: ReportableError {
    package var file: String
    package var line: Int?
    package var problem: String

    package init(file: String, line: Int? = nil, _ problem: String) {
        self.file = file
        self.line = line
        self.problem = problem
    }

    package var message: String { "cannot read the lock file \(file)\(line.map { " (line \($0))" } ?? ""): \(problem)" }
    package var info: [(key: String, value: String)] { [("file", file)] + (line.map { [("line", "\($0)")] } ?? []) }
    package var suggestion: String? {
        "regenerate it with its package manager, or leave it out with the lockFiles: option"
    }
}

extension Data {
    /// The bytes as lowercase hexadecimal.
    var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
