import Foundation

/// A package URL (`pkg:cargo/serde@1.0.188`), the identifier of a package across ecosystems,
/// written as the purl specification says: type lowercased, each namespace segment, the name,
/// the version and qualifier values percent-encoded, qualifiers sorted by key.
package struct PackageURL: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The ecosystem: `swift`, `cargo`, `npm`, `gem`, `cocoapods`, `pub`, `maven`, `golang`, `pypi`.
    package var type: String
    /// The scope, group or owner (`@babel`, `org.jetbrains.kotlin`, `github.com/apple`); nil when the ecosystem has none.
    package var namespace: String?
    package var name: String
    package var version: String?
    /// Extra facts (`platform` of a gem); written sorted by key.
    package var qualifiers: [String: String]
    /// A path inside the package (a CocoaPods subspec).
    package var subpath: String?

    package init(type: String, namespace: String? = nil, name: String, version: String?, qualifiers: [String: String] = [:], subpath: String? = nil) {
        self.type = type.lowercased()
        self.namespace = namespace.flatMap { $0.isEmpty ? nil : $0 }
        self.name = name
        self.version = version.flatMap { $0.isEmpty ? nil : $0 }
        self.qualifiers = qualifiers
        self.subpath = subpath.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The canonical text.
    package var description: String {
        var text = "pkg:" + type + "/"
        if let namespace {
            text += namespace.split(separator: "/").map { Self.encode(String($0)) }.joined(separator: "/") + "/"
        }
        text += Self.encode(name)
        if let version { text += "@" + Self.encode(version) }
        let written = qualifiers.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        if !written.isEmpty {
            text += "?" + written.map { $0.key.lowercased() + "=" + Self.encode($0.value) }.joined(separator: "&")
        }
        if let subpath {
            text += "#" + subpath.split(separator: "/").filter { $0 != "." && $0 != ".." }.map { Self.encode(String($0)) }.joined(separator: "/")
        }
        return text
    }

    /// The same package without its version: what lock files name when they list a dependency.
    package var unversioned: PackageURL {
        var copy = self
        copy.version = nil
        return copy
    }

    package static func < (lhs: PackageURL, rhs: PackageURL) -> Bool {
        lhs.description.utf8.lexicographicallyPrecedes(rhs.description.utf8)
    }

    /// Percent-encodes everything but the unreserved characters of RFC 3986 (`A–Z a–z 0–9 - . _ ~`).
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }
}

extension PackageURL {
    /// An npm package: `@scope/name` keeps its scope as the namespace.
    static func npm(_ fullName: String, version: String?) -> PackageURL {
        if fullName.hasPrefix("@"), let slash = fullName.firstIndex(of: "/") {
            return PackageURL(type: "npm", namespace: String(fullName[..<slash]), name: String(fullName[fullName.index(after: slash)...]), version: version)
        }
        return PackageURL(type: "npm", name: fullName, version: version)
    }

    /// A Python package, its name normalised as PEP 503 and the purl spec say (lowercase, runs of `-_.` as `-`).
    static func pypi(_ name: String, version: String?) -> PackageURL {
        PackageURL(type: "pypi", name: normalisedPythonName(name), version: version)
    }

    static func normalisedPythonName(_ name: String) -> String {
        var result = ""
        var lastWasSeparator = false
        for character in name.lowercased() {
            if character == "-" || character == "_" || character == "." {
                if !lastWasSeparator { result.append("-") }
                lastWasSeparator = true
            } else {
                result.append(character)
                lastWasSeparator = false
            }
        }
        return result
    }

    /// A Maven artifact from `group:name`.
    static func maven(_ coordinates: String, version: String?) -> PackageURL? {
        let parts = coordinates.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return PackageURL(type: "maven", namespace: parts[0], name: parts[1], version: version)
    }

    /// A Go module: the path's last element is the name, the rest the namespace.
    static func golang(_ module: String, version: String?) -> PackageURL {
        guard let slash = module.lastIndex(of: "/") else { return PackageURL(type: "golang", name: module, version: version) }
        return PackageURL(type: "golang", namespace: String(module[..<slash]), name: String(module[module.index(after: slash)...]), version: version)
    }
}
