import Foundation

/// What App Store Connect needs to know about an IPA, read from its `Payload/*.app/Info.plist`
/// (XML or binary property list).
package struct IPAMetadata: Sendable, Equatable {
    /// `CFBundleIdentifier` (`com.example.app`).
    package var bundleID: String
    /// `CFBundleShortVersionString`: one to three integers separated by periods ("1.4.0").
    package var version: String
    /// `CFBundleVersion`: the build number ("42", "1.4.0.7" is refused: at most three integers).
    package var buildNumber: String
    /// App Store Connect's platform: IOS, TV_OS or VISION_OS.
    package var platform: String
    /// The `.app` folder's name inside `Payload/`.
    package var appName: String
    /// The IPA's size in bytes.
    package var fileSize: Int64

    /// Reads and checks the metadata of the IPA at `path`.
    /// - Throws: `StorePackageError` for a missing file, a non-zip, no or several apps, an
    ///   unreadable plist, or a missing or malformed bundle ID, version or build number.
    package static func read(ipa path: String) throws -> IPAMetadata {
        let entries = try ZipEntries.paths(in: path)
        let plists = entries.filter { entry in
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 3 && parts[0] == "Payload" && parts[1].hasSuffix(".app") && parts[2] == "Info.plist"
        }
        guard let plistPath = plists.first else {
            throw StorePackageError(path: path, problem: "has no Payload/<App>.app/Info.plist: it is not an iOS app archive",
                                    suggestion: "export the IPA with xcodebuild -exportArchive (or take it from the build job's artifacts)")
        }
        guard plists.count == 1 else {
            throw StorePackageError(path: path, problem: "holds \(plists.count) apps in Payload/; an IPA holds one")
        }
        let data = try ZipEntries.contents(of: plistPath, in: path)
        let plist: [String: Any]
        do {
            guard let dictionary = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else {
                throw StorePackageError(path: path, problem: "\(plistPath) is not a dictionary")
            }
            plist = dictionary
        } catch let error as StorePackageError {
            throw error
        } catch {
            throw StorePackageError(path: path, problem: "\(plistPath) is not a property list (XML or binary)")
        }
        var problems: [String] = []
        func string(_ key: String) -> String? {
            guard let value = plist[key] as? String, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                problems.append("\(key) is missing from \(plistPath)")
                return nil
            }
            return value.trimmingCharacters(in: .whitespaces)
        }
        let bundleID = string("CFBundleIdentifier")
        let version = string("CFBundleShortVersionString")
        let build = string("CFBundleVersion")
        if let bundleID, !Self.isBundleID(bundleID) {
            problems.append("CFBundleIdentifier \"\(bundleID)\" is not a bundle ID (letters, digits, '-' and '.')")
        }
        if let version, !Self.isAppleVersion(version) {
            problems.append("CFBundleShortVersionString \"\(version)\" is not a version App Store Connect accepts (one to three integers: 1.4.0)")
        }
        if let build, !Self.isAppleVersion(build) {
            problems.append("CFBundleVersion \"\(build)\" is not a build number App Store Connect accepts (one to three integers: 42 or 1.4.7)")
        }
        guard problems.isEmpty, let bundleID, let version, let build else {
            throw StorePackageError(path: path, problem: problems.joined(separator: "; "),
                                    suggestion: "fix the app's Info.plist (or bump with shiplane) and build the IPA again")
        }
        let appName = String(plistPath.split(separator: "/")[1])
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        return IPAMetadata(bundleID: bundleID, version: version, buildNumber: build,
                           platform: Self.platform(plist), appName: appName, fileSize: size)
    }

    static func isAppleVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...3).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }
    }

    static func isBundleID(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix(".") && !text.hasSuffix(".")
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    private static func platform(_ plist: [String: Any]) -> String {
        let names = ((plist["CFBundleSupportedPlatforms"] as? [String]) ?? []) + [(plist["DTPlatformName"] as? String) ?? ""]
        let lowered = names.map { $0.lowercased() }
        if lowered.contains(where: { $0.hasPrefix("appletv") }) { return "TV_OS" }
        if lowered.contains(where: { $0.hasPrefix("xr") }) { return "VISION_OS" }
        return "IOS"
    }
}
