import Foundation

/// The App Store listing text in fastlane `deliver`'s layout: `<folder>/<locale>/<field>.txt`.
///
/// Version fields (per App Store version): `description`, `keywords`, `release_notes` (What's
/// New), `promotional_text`, `marketing_url`, `support_url`. App info fields: `name`, `subtitle`,
/// `privacy_url`. A file that is absent leaves its field as it is on App Store Connect; the text
/// is taken without its trailing line breaks, as `deliver` does.
package struct AppStoreListing: Sendable, Equatable {
    /// deliver's file name → App Store Connect's attribute, on the version's localization.
    static let versionFields: [(file: String, attribute: String)] = [
        ("description", "description"), ("keywords", "keywords"), ("release_notes", "whatsNew"),
        ("promotional_text", "promotionalText"), ("marketing_url", "marketingUrl"), ("support_url", "supportUrl"),
    ]
    /// deliver's file name → App Store Connect's attribute, on the app info's localization.
    static let appInfoFields: [(file: String, attribute: String)] = [
        ("name", "name"), ("subtitle", "subtitle"), ("privacy_url", "privacyPolicyUrl"),
    ]

    /// Per locale, the version localization's attributes to set.
    package var version: [String: [String: String]]
    /// Per locale, the app info localization's attributes to set.
    package var appInfo: [String: [String: String]]

    /// Reads `folder` (absolute). A locale is a sub-folder holding at least one known file.
    /// - Throws: `ShiplaneError` when the folder is missing, holds no locale, or a file is not UTF-8.
    package static func read(folder: String) throws -> AppStoreListing {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ShiplaneError("the metadata folder \(folder) does not exist",
                                suggestion: "pass metadataPath: the folder holding one folder per locale (fastlane/metadata/en-US/description.txt, …)")
        }
        var listing = AppStoreListing(version: [:], appInfo: [:])
        let known = Set((versionFields + appInfoFields).map(\.file))
        for locale in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let path = folder + "/" + locale
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            let files = Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            guard files.contains(where: { known.contains(($0 as NSString).deletingPathExtension) && $0.hasSuffix(".txt") }) else { continue }
            func text(_ name: String) throws -> String? {
                guard files.contains(name + ".txt") else { return nil }
                guard let data = FileManager.default.contents(atPath: path + "/" + name + ".txt"),
                      let text = String(data: data, encoding: .utf8) else {
                    throw ShiplaneError("\(path)/\(name).txt cannot be read as UTF-8 text", suggestion: "save it as UTF-8")
                }
                var trimmed = text
                while let last = trimmed.last, last.isNewline { trimmed.removeLast() }
                return trimmed
            }
            for (file, attribute) in versionFields { if let value = try text(file) { listing.version[locale, default: [:]][attribute] = value } }
            for (file, attribute) in appInfoFields { if let value = try text(file) { listing.appInfo[locale, default: [:]][attribute] = value } }
        }
        guard !listing.version.isEmpty || !listing.appInfo.isEmpty else {
            throw ShiplaneError("the metadata folder \(folder) holds no locale folder with listing files",
                                suggestion: "deliver's layout: \(folder)/en-US/description.txt, keywords.txt, release_notes.txt, name.txt, …")
        }
        return listing
    }
}
