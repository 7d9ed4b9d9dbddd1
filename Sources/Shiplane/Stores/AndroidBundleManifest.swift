import Foundation

/// What Google Play needs to know about an Android App Bundle, read from its
/// `base/manifest/AndroidManifest.xml` (aapt2's protocol-buffer XML, not text).
package struct AndroidBundleManifest: Sendable, Equatable {
    /// The app's package name (`com.example.app`).
    package var packageName: String
    /// `android:versionCode`, when the manifest has one.
    package var versionCode: Int64?
    /// `android:versionName`, when the manifest has one.
    package var versionName: String?
    /// The bundle's size in bytes.
    package var fileSize: Int64

    static let manifestPath = "base/manifest/AndroidManifest.xml"

    /// Reads the manifest of the AAB at `path`.
    /// - Throws: `StorePackageError` for a missing file, a non-zip, no base manifest, or one
    ///   without a package name.
    package static func read(bundle path: String) throws -> AndroidBundleManifest {
        let data = try ZipEntries.contents(of: manifestPath, in: path)
        let manifest: (package: String?, versionCode: String?, versionName: String?)
        do {
            manifest = try parse(Array(data))
        } catch {
            throw StorePackageError(path: path, problem: "\(manifestPath) is not an aapt2 protocol-buffer manifest",
                                    suggestion: "build the bundle with ./gradlew bundleRelease (an .apk or a text manifest will not do)")
        }
        guard let package = manifest.package, isPackageName(package) else {
            throw StorePackageError(path: path, problem: "\(manifestPath) has no valid package attribute (\(manifest.package ?? "none"))")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return AndroidBundleManifest(packageName: package, versionCode: manifest.versionCode.flatMap { Int64($0) },
                                     versionName: manifest.versionName, fileSize: size)
    }

    /// The root `<manifest>` element's `package`, `android:versionCode` and `android:versionName`.
    static func parse(_ bytes: [UInt8]) throws -> (package: String?, versionCode: String?, versionName: String?) {
        let node = try ProtobufFields(bytes)                          // XmlNode
        guard let elementBytes = node.bytes(1).last else { throw ProtobufFields.Malformed() }
        let element = try ProtobufFields(elementBytes)                // XmlElement
        guard element.string(3) == "manifest" else { throw ProtobufFields.Malformed() }
        var values: [String: String] = [:]
        for attributeBytes in element.bytes(4) {                      // XmlAttribute
            let attribute = try ProtobufFields(attributeBytes)
            guard let name = attribute.string(2) else { continue }
            if let value = attribute.string(3), !value.isEmpty {
                values[name] = value
            } else if let item = attribute.bytes(6).last,             // compiled Item → Primitive → int_decimal_value
                      let primitive = try ProtobufFields(item).bytes(7).last,
                      let number = try ProtobufFields(primitive).varint(6) {
                values[name] = String(Int32(truncatingIfNeeded: number))
            }
        }
        return (values["package"], values["versionCode"], values["versionName"])
    }

    static func isPackageName(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { part in
            guard let first = part.first, first.isASCII, first.isLetter else { return false }
            return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }
}
