import Foundation

/// The App Store listing text in fastlane `deliver`'s layout: `<folder>/<locale>/<field>.txt`.
///
/// Version fields (per App Store version): `description`, `keywords`, `release_notes` (What's
/// New), `promotional_text`, `marketing_url`, `support_url`. App info fields: `name`, `subtitle`,
/// `privacy_url`. A file that is absent leaves its field as it is on App Store Connect; the text
/// is taken without its trailing line breaks, as `deliver` does.
///
/// `<folder>/default/<field>.txt` gives the field to every locale of the folder that has no file
/// of its own for it, as deliver's `default` language does: the locales are the folder's locale
/// folders, an empty one included (deliver: "an empty folder signifies a language is required").
/// Locales on App Store Connect without a folder get nothing from it.
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

    /// deliver's folder of values for every locale without its own file.
    static let defaultFolder = "default"

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
        var defaults = AppStoreListing(version: [:], appInfo: [:])
        var localeFolders: [String] = []
        let known = Set((versionFields + appInfoFields).map(\.file))
        for locale in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let path = folder + "/" + locale
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            let files = Set((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            let isDefault = locale == defaultFolder
            if !isDefault && AppStoreMediaFolder.looksLikeLocale(locale) { localeFolders.append(locale) }
            guard files.contains(where: { known.contains(($0 as NSString).deletingPathExtension) && $0.hasSuffix(".txt") }) else { continue }
            if !isDefault && !localeFolders.contains(locale) { localeFolders.append(locale) }
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
            if isDefault {
                for (file, attribute) in versionFields { if let value = try text(file) { defaults.version[defaultFolder, default: [:]][attribute] = value } }
                for (file, attribute) in appInfoFields { if let value = try text(file) { defaults.appInfo[defaultFolder, default: [:]][attribute] = value } }
                continue
            }
            for (file, attribute) in versionFields { if let value = try text(file) { listing.version[locale, default: [:]][attribute] = value } }
            for (file, attribute) in appInfoFields { if let value = try text(file) { listing.appInfo[locale, default: [:]][attribute] = value } }
        }
        let hasDefaults = defaults.version[defaultFolder] != nil || defaults.appInfo[defaultFolder] != nil
        if hasDefaults && localeFolders.isEmpty {
            throw ShiplaneError("\(folder)/\(defaultFolder) gives values to the locale folders beside it, and there are none",
                                suggestion: "add a folder per locale to fill, as deliver reads it: an empty \(folder)/en-US/ takes every value from \(defaultFolder)/")
        }
        for locale in localeFolders {
            for (attribute, value) in defaults.version[defaultFolder] ?? [:] where listing.version[locale]?[attribute] == nil {
                listing.version[locale, default: [:]][attribute] = value
            }
            for (attribute, value) in defaults.appInfo[defaultFolder] ?? [:] where listing.appInfo[locale]?[attribute] == nil {
                listing.appInfo[locale, default: [:]][attribute] = value
            }
        }
        guard !listing.version.isEmpty || !listing.appInfo.isEmpty else {
            throw ShiplaneError("the metadata folder \(folder) holds no locale folder with listing files",
                                suggestion: "deliver's layout: \(folder)/en-US/description.txt, keywords.txt, release_notes.txt, name.txt, …")
        }
        return listing
    }
}
