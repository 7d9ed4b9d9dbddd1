import Foundation

/// fastlane supply's metadata folder (`fastlane/metadata/android/<locale>/`), read as it is.
///
/// Per locale: `title.txt`, `short_description.txt`, `full_description.txt`, `video.txt`;
/// `images/icon.png`, `images/featureGraphic.png`, `images/tvBanner.png` and the folders
/// `images/phoneScreenshots/`, `sevenInchScreenshots/`, `tenInchScreenshots/`, `tvScreenshots/`,
/// `wearScreenshots/` (PNG or JPEG, in file name order); `changelogs/<versionCode>.txt` (or
/// `changelogs/default.txt`) as release notes. A file that is absent leaves that part of the
/// listing as it is on Google Play.
struct PlayMetadataFolder: Sendable {
    struct Locale: Sendable {
        var language: String
        /// Listing members (Google's names) → text.
        var texts: [String: String]
        /// Image type → files in order.
        var images: [String: [String]]
        /// Version code ("42" or "default") → notes.
        var changelogs: [String: String]
    }

    static let textFiles = [("title.txt", "title", 30), ("short_description.txt", "shortDescription", 80),
                            ("full_description.txt", "fullDescription", 4000), ("video.txt", "video", 1000)]
    static let singleImages = [("icon", "icon"), ("featureGraphic", "featureGraphic"), ("tvBanner", "tvBanner")]
    static let screenshotFolders = ["phoneScreenshots", "sevenInchScreenshots", "tenInchScreenshots", "tvScreenshots", "wearScreenshots"]
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg"]

    var folder: String
    var locales: [Locale]

    /// Reads the folder; every problem at once.
    /// - Throws: `ShiplaneError` naming the folder or the files that are wrong.
    static func read(_ folder: String, display: String) throws -> PlayMetadataFolder {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ShiplaneError("\(display) is not a folder", suggestion: "pass metadata: the folder supply uses (fastlane/metadata/android), or metadata: nil to leave the listing alone")
        }
        var problems: [String] = []
        var locales: [Locale] = []
        let names = ((try? files.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        for language in names {
            let base = folder + "/" + language
            guard files.fileExists(atPath: base, isDirectory: &isFolder), isFolder.boolValue else { continue }
            if !LanguageTag.looksLikePlayLanguage(language) {
                problems.append("\(display)/\(language): is not a language folder like en-US")
                continue
            }
            var locale = Locale(language: language, texts: [:], images: [:], changelogs: [:])
            for (file, member, limit) in textFiles {
                guard let data = files.contents(atPath: base + "/" + file) else { continue }
                guard let text = String(data: data, encoding: .utf8) else { problems.append("\(display)/\(language)/\(file): is not UTF-8 text"); continue }
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.count > limit { problems.append("\(display)/\(language)/\(file): \(trimmed.count) characters; Google Play takes at most \(limit)") }
                locale.texts[member] = trimmed
            }
            for (name, type) in singleImages {
                let found = imageExtensions.sorted().map { base + "/images/\(name).\($0)" }.filter { files.fileExists(atPath: $0) }
                if found.count > 1 { problems.append("\(display)/\(language)/images: has \(name) more than once (\(found.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")))") }
                if let first = found.first { locale.images[type] = [first] }
            }
            for type in screenshotFolders {
                let path = base + "/images/" + type
                guard files.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { continue }
                let shots = ((try? files.contentsOfDirectory(atPath: path)) ?? [])
                    .filter { imageExtensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
                    .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
                if shots.count > 8 { problems.append("\(display)/\(language)/images/\(type): \(shots.count) screenshots; Google Play takes at most 8") }
                locale.images[type] = shots.map { path + "/" + $0 }
            }
            let changelogs = base + "/changelogs"
            for file in ((try? files.contentsOfDirectory(atPath: changelogs)) ?? []).sorted() where file.hasSuffix(".txt") {
                let key = String(file.dropLast(4))
                guard key == "default" || Int64(key) != nil else { continue }
                guard let data = files.contents(atPath: changelogs + "/" + file), let text = String(data: data, encoding: .utf8) else {
                    problems.append("\(display)/\(language)/changelogs/\(file): is not UTF-8 text"); continue
                }
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.count > 500 { problems.append("\(display)/\(language)/changelogs/\(file): \(trimmed.count) characters; Google Play takes at most 500") }
                locale.changelogs[key] = trimmed
            }
            locales.append(locale)
        }
        if !problems.isEmpty {
            throw ShiplaneError("\(display) has \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n" + problems.map { "  " + $0 }.joined(separator: "\n"),
                                suggestion: "fix the files named, then run again; nothing was sent")
        }
        if locales.isEmpty { throw ShiplaneError("\(display) has no locale folders (en-US, de-DE, …)", suggestion: "supply's layout: \(display)/en-US/title.txt, …") }
        return PlayMetadataFolder(folder: folder, locales: locales)
    }

    /// Release notes per language for a version code: `changelogs/<code>.txt`, else `default.txt`.
    func releaseNotes(versionCode: Int64) -> [String: String] {
        var notes: [String: String] = [:]
        for locale in locales {
            if let text = locale.changelogs[String(versionCode)] ?? locale.changelogs["default"], !text.isEmpty { notes[locale.language] = text }
        }
        return notes
    }
}
