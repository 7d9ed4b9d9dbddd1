import Foundation

/// Screenshots or app previews: the names App Store Connect gives the one or the other.
struct AppStoreMediaKind: Sendable, Equatable {
    /// `appScreenshots` or `appPreviews`.
    let resource: String
    /// `appScreenshotSets` or `appPreviewSets`.
    let setResource: String
    /// The set's type attribute: `screenshotDisplayType` or `previewType`.
    let typeAttribute: String
    /// The item's to-one relationship to its set: `appScreenshotSet` or `appPreviewSet`.
    let setRelationship: String
    /// "screenshot" or "app preview", for messages.
    let noun: String
    /// Items per set App Store Connect takes at most.
    let maxPerSet: Int

    static let screenshots = AppStoreMediaKind(resource: "appScreenshots", setResource: "appScreenshotSets", typeAttribute: "screenshotDisplayType",
                                               setRelationship: "appScreenshotSet", noun: "screenshot", maxPerSet: 10)
    static let previews = AppStoreMediaKind(resource: "appPreviews", setResource: "appPreviewSets", typeAttribute: "previewType",
                                            setRelationship: "appPreviewSet", noun: "app preview", maxPerSet: 3)
}

/// One image or video in the folder: its name, size and MD5 (App Store Connect's `sourceFileChecksum`).
struct AppStoreMediaFile: Sendable, Equatable {
    var path: String
    var fileName: String
    var size: Int64
    /// Nil until it is needed: computed before planning only for sets that have images to compare
    /// with, otherwise once the uploads are done (`AppStoreMediaDigests`).
    var checksum: String?
    /// The file's metadata when its size (or MD5) was read: a write since changes it.
    var stamp: FileStamp?
}

/// What a file's metadata says of its contents: device, inode, size, and the modification and
/// change times. The kernel sets the change time on every write, truncation or rename, and no
/// call sets it back, so a file written to since has another stamp.
struct FileStamp: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: [Int]
    var changed: [Int]

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if os(Linux)
        modified = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
        changed = [Int(info.st_ctim.tv_sec), Int(info.st_ctim.tv_nsec)]
        #else
        modified = [Int(info.st_mtimespec.tv_sec), Int(info.st_mtimespec.tv_nsec)]
        changed = [Int(info.st_ctimespec.tv_sec), Int(info.st_ctimespec.tv_nsec)]
        #endif
    }

    /// The stamp of the file at `path`; nil when it cannot be read.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The stamp of an open file; nil when it cannot be read.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// Screenshots or app previews in fastlane `deliver`'s layout, per locale and display type, in file-name order.
///
/// Screenshots: `<folder>/<locale>/*.png|jpg|jpeg`, plus `<folder>/iMessage/<locale>/` (the
/// `IMESSAGE_APP_*` types) and `<folder>/appleTV/<locale>/`. The display type comes from the
/// image's pixel size as deliver maps it; 2048×2732 is the 3rd-generation 12.9" iPad Pro unless the
/// path names `APP_IPAD_PRO_129` (or "12.9" and "2nd generation"), 3840×2160 Apple TV unless the
/// path says "vision". When `*_framed.*` files exist in a folder, only framed (and watch) images
/// are taken, as deliver does. App previews: `<folder>/<locale>/*.mp4|mov|m4v`, the preview type
/// named in the file name (`…IPHONE_67…`), as deliver's app preview sync reads them.
struct AppStoreMediaFolder: Sendable, Equatable {
    /// Locale → set type → files in upload order.
    var sets: [String: [String: [AppStoreMediaFile]]]
    var kind: AppStoreMediaKind

    /// Folders deliver's screenshot loader passes over.
    static let skippedFolders: Set<String> = ["review_information", "trade_representative_contact_information", "android", "fonts"]

    /// Reads screenshots from `folder` (absolute); every problem is added to `problems`.
    static func screenshots(folder: String, problems: inout [any Error]) -> AppStoreMediaFolder {
        var result = AppStoreMediaFolder(sets: [:], kind: .screenshots)
        var found: [(locale: String, type: String, path: String)] = []
        for (locale, path, iMessage) in localeFolders(folder, problems: &problems) {
            var files = imageFiles(in: path)
            if files.contains(where: { ($0 as NSString).deletingPathExtension.lowercased().hasSuffix("_framed") }) {
                files = files.filter { $0.lowercased().contains("framed") || $0.lowercased().contains("watch") }
            }
            for name in files {
                let file = path + "/" + name
                guard let size = ImageSize.read(file) else {
                    problems.append(ShiplaneError("\(file) is not a PNG or JPEG image that can be read",
                                                  suggestion: "export it again as PNG or JPEG, or move it out of the screenshots folder"))
                    continue
                }
                guard let type = ScreenshotDisplayType.forImage(width: size.width, height: size.height, path: file, iMessage: iMessage) else {
                    problems.append(ShiplaneError("\(file) is \(size.width)×\(size.height) pixels, a size no App Store display type takes",
                                                  suggestion: "resize it to one of the sizes App Store Connect lists for the device (e.g. 1290×2796 for APP_IPHONE_67, 2048×2732 for APP_IPAD_PRO_3GEN_129)"))
                    continue
                }
                found.append((locale, type, file))
            }
        }
        result.add(found, problems: &problems)
        result.checkLimits(problems: &problems)
        return result
    }

    /// Reads app previews from `folder` (absolute); every problem is added to `problems`.
    static func previews(folder: String, problems: inout [any Error]) -> AppStoreMediaFolder {
        var result = AppStoreMediaFolder(sets: [:], kind: .previews)
        var found: [(locale: String, type: String, path: String)] = []
        for (locale, path, _) in localeFolders(folder, problems: &problems, nested: false) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                .filter { ["mp4", "mov", "m4v"].contains(($0 as NSString).pathExtension.lowercased()) }
                .sorted(by: fileNameOrder)
            for name in names {
                let file = path + "/" + name
                guard let type = previewType(fileName: name) else {
                    problems.append(ShiplaneError("\(file) names no app preview type",
                                                  suggestion: "put the type in the file name as deliver reads it, e.g. 01_IPHONE_67.mp4 (one of \(previewTypes.joined(separator: ", ")))"))
                    continue
                }
                found.append((locale, type, file))
            }
        }
        result.add(found, problems: &problems)
        result.checkLimits(problems: &problems)
        return result
    }

    /// Adds the files found, in order, with their sizes; their MD5s come later, when a set has
    /// images to compare them with (`withChecksums`) or while they upload.
    private mutating func add(_ found: [(locale: String, type: String, path: String)], problems: inout [any Error]) {
        for entry in found {
            do {
                let file = try Self.mediaFileSize(entry.path)
                sets[entry.locale, default: [:]][entry.type, default: []].append(file)
            } catch {
                problems.append(error)
            }
        }
    }

    /// `files` with their MD5s, read on every core at once (hashing a folder of screenshots one
    /// file at a time took longer than uploading them).
    /// - Throws: the first file that cannot be read.
    static func withChecksums(_ files: [AppStoreMediaFile]) throws -> [AppStoreMediaFile] {
        try mediaFiles(files.map(\.path)).map { try $0.get() }
    }

    /// The file's size, without reading it (its MD5 left for later).
    static func mediaFileSize(_ path: String) throws -> AppStoreMediaFile {
        var info = stat()
        guard stat(path, &info) == 0, access(path, R_OK) == 0 else {
            throw ShiplaneError("\(path) cannot be read: \(String(cString: strerror(errno)))", suggestion: "check its permissions")
        }
        return AppStoreMediaFile(path: path, fileName: (path as NSString).lastPathComponent, size: Int64(info.st_size), checksum: nil,
                                 stamp: FileStamp(info))
    }

    /// `mediaFile` of every path, in the order given: a thread per core, each hashing several
    /// files at once (`FileMD5Lanes`).
    static func mediaFiles(_ paths: [String]) -> [Result<AppStoreMediaFile, any Error>] {
        final class Results: @unchecked Sendable {
            // @unchecked: `values` and `next` are only touched under `lock`.
            let lock = NSLock()
            var values: [Result<AppStoreMediaFile, any Error>]
            var next = 0
            init(count: Int) { values = Array(repeating: .failure(ShiplaneError("not read")), count: count) }
        }
        let results = Results(count: paths.count)
        let threads = min(paths.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard threads > 0 else { return [] }
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            FileMD5Lanes.hash(next: {
                results.lock.withLock {
                    guard results.next < paths.count else { return nil }
                    defer { results.next += 1 }
                    return (results.next, paths[results.next])
                }
            }, isCancelled: { _ in false }, done: { index, outcome in
                let file = outcome.map { mediaFile(paths[index], $0) }
                results.lock.withLock { results.values[index] = file }
            })
        }
        return results.values
    }

    /// More files for one set than App Store Connect keeps is a problem.
    private func checkLimits(problems: inout [any Error]) {
        for (locale, types) in sets.sorted(by: { $0.key < $1.key }) {
            for (type, files) in types.sorted(by: { $0.key < $1.key }) where files.count > kind.maxPerSet {
                problems.append(ShiplaneError("\(locale) has \(files.count) \(kind.noun)s for \(type); App Store Connect keeps at most \(kind.maxPerSet) per display type",
                                              suggestion: "remove \(files.count - kind.maxPerSet) of them from the folder"))
            }
        }
    }

    /// Locale folders of `folder`: (locale, path, inside iMessage/). `nested`: look into iMessage/ and appleTV/.
    private static func localeFolders(_ folder: String, problems: inout [any Error], nested: Bool = true) -> [(String, String, Bool)] {
        var found: [(String, String, Bool)] = []
        func isFolder(_ path: String) -> Bool {
            var flag: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
        }
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() where isFolder(folder + "/" + name) {
            if skippedFolders.contains(name.lowercased()) { continue }
            if nested, ["imessage", "appletv"].contains(name.lowercased()) {
                for inner in ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + name)) ?? []).sorted()
                where isFolder(folder + "/" + name + "/" + inner) && looksLikeLocale(inner) {
                    found.append((inner, folder + "/" + name + "/" + inner, name.lowercased() == "imessage"))
                }
                continue
            }
            if name == AppStoreListing.defaultFolder {
                // deliver takes `default` for metadata text only; its screenshots fail there ("default isn't an activated language").
                problems.append(ShiplaneError("\(folder)/\(name) holds images for no locale: deliver's default folder is for metadata text only, and App Store Connect takes images per locale",
                                              suggestion: "put the images in the primary locale's folder (App Store Connect shows them for a locale that has none of its own), or copy them into each locale's folder"))
                continue
            }
            guard looksLikeLocale(name) else {
                problems.append(ShiplaneError("\(folder)/\(name) is not a locale folder",
                                              suggestion: "name it after an App Store locale (en-US, de-DE, ja, …), or move it out of \(folder)"))
                continue
            }
            found.append((name, folder + "/" + name, false))
        }
        return found
    }

    static func looksLikeLocale(_ name: String) -> Bool {
        LanguageTag.looksLikeAppStoreLocale(name)
    }

    private static func imageFiles(in path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { ["png", "jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted(by: fileNameOrder)
    }

    /// File-name order with numbers compared as numbers ("2.png" before "10.png"), as deliver sorts a set.
    static func fileNameOrder(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.numeric]) == .orderedAscending
    }

    /// The file's size and MD5 (`FileMD5Lanes`).
    static func mediaFile(_ path: String) throws -> AppStoreMediaFile {
        var given = false
        var outcome: Result<HashedFile, any Error> = .failure(ShiplaneError("\(path) was not hashed", suggestion: "run again"))
        FileMD5Lanes.hash(next: {
            defer { given = true }
            return given ? nil : (0, path)
        }, isCancelled: { _ in false }, done: { _, result in outcome = result })
        return mediaFile(path, try outcome.get())
    }

    static func mediaFile(_ path: String, _ hashed: HashedFile) -> AppStoreMediaFile {
        AppStoreMediaFile(path: path, fileName: (path as NSString).lastPathComponent, size: hashed.size, checksum: hashed.checksum,
                          stamp: hashed.stamp)
    }

    /// The preview types of Apple's description (`PreviewType`).
    static let previewTypes = ["IPHONE_67", "IPHONE_61", "IPHONE_65", "IPHONE_58", "IPHONE_55", "IPHONE_47", "IPHONE_40", "IPHONE_35",
                               "IPAD_PRO_3GEN_129", "IPAD_PRO_3GEN_11", "IPAD_PRO_129", "IPAD_105", "IPAD_97", "DESKTOP", "APPLE_TV", "APPLE_VISION_PRO"]

    /// The MIME type of an app preview by its extension: `video/mp4`, `video/quicktime` (.mov), `video/x-m4v`.
    static func previewMimeType(fileName: String) -> String? {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        case "m4v": return "video/x-m4v"
        default: return nil
        }
    }

    /// The preview type a file name contains (the longest, so IPAD_PRO_3GEN_129 is not read as another).
    static func previewType(fileName: String) -> String? {
        let upper = fileName.uppercased()
        return previewTypes.filter { upper.contains($0) }.max { $0.count < $1.count }
    }
}

/// Screenshot display types by pixel size, as fastlane deliver maps them (`app_screenshot.rb`),
/// named as Apple's description names them (`ScreenshotDisplayType`).
enum ScreenshotDisplayType {
    static let sizes: [(type: String, sizes: [(Int, Int)])] = [
        ("APP_IPHONE_67", [(1260, 2736), (1290, 2796), (1320, 2868)]),
        ("APP_IPHONE_65", [(1242, 2688), (1284, 2778)]),
        ("APP_IPHONE_61", [(1179, 2556), (1206, 2622)]),
        ("APP_IPHONE_58", [(1170, 2532), (1125, 2436), (1080, 2340)]),
        ("APP_IPHONE_55", [(1242, 2208)]),
        ("APP_IPHONE_47", [(750, 1334)]),
        ("APP_IPHONE_40", [(640, 1096), (640, 1136), (600, 1136)]),
        ("APP_IPHONE_35", [(640, 920), (640, 960), (600, 960)]),
        ("APP_IPAD_97", [(748, 1024), (768, 1024), (1496, 2048), (1536, 2048), (1004, 768), (1024, 768), (2008, 1536), (2048, 1536)]),
        ("APP_IPAD_105", [(1668, 2224)]),
        ("APP_IPAD_PRO_3GEN_11", [(1488, 2266), (1668, 2420), (1668, 2388), (1640, 2360)]),
        ("APP_IPAD_PRO_3GEN_129", [(2048, 2732), (2064, 2752)]),
        ("APP_DESKTOP", [(1280, 800), (1440, 900), (2560, 1600), (2880, 1800)]),
        ("APP_WATCH_SERIES_3", [(312, 390)]),
        ("APP_WATCH_SERIES_4", [(368, 448)]),
        ("APP_WATCH_SERIES_7", [(396, 484)]),
        ("APP_WATCH_SERIES_10", [(416, 496)]),
        ("APP_WATCH_ULTRA", [(410, 502), (422, 514)]),
        ("APP_APPLE_TV", [(1920, 1080), (3840, 2160)]),
    ]
    /// Types whose sizes are taken in both orientations (deliver lists the iPhone, iPad and iMessage ones both ways).
    static let rotatable: Set<String> = ["APP_IPHONE_67", "APP_IPHONE_65", "APP_IPHONE_61", "APP_IPHONE_58", "APP_IPHONE_55", "APP_IPHONE_47",
                                         "APP_IPAD_105", "APP_IPAD_PRO_3GEN_11", "APP_IPAD_PRO_3GEN_129"]
    /// Types with an iMessage variant (`IMESSAGE_` + the type).
    static let iMessageTypes: Set<String> = ["APP_IPHONE_67", "APP_IPHONE_61", "APP_IPHONE_65", "APP_IPHONE_58", "APP_IPHONE_55", "APP_IPHONE_47",
                                             "APP_IPHONE_40", "APP_IPAD_PRO_3GEN_129", "APP_IPAD_PRO_3GEN_11", "APP_IPAD_PRO_129", "APP_IPAD_105", "APP_IPAD_97"]

    /// The display type of a `width`×`height` image at `path`; nil when no type takes the size.
    static func forImage(width: Int, height: Int, path: String, iMessage: Bool) -> String? {
        var type = sizes.first { entry in
            entry.sizes.contains { ($0.0 == width && $0.1 == height) || (rotatable.contains(entry.type) || entry.type.hasPrefix("APP_IPHONE_4") || entry.type.hasPrefix("APP_IPHONE_3")) && ($0.1 == width && $0.0 == height) }
        }?.type
        let lower = path.lowercased()
        if type == "APP_IPAD_PRO_3GEN_129", (width == 2048 && height == 2732) || (width == 2732 && height == 2048),
           lower.contains("app_ipad_pro_129") || (lower.contains("12.9") && lower.contains("2nd generation")) {
            type = "APP_IPAD_PRO_129"
        }
        if type == "APP_APPLE_TV", width == 3840, height == 2160, lower.contains("vision") { type = "APP_APPLE_VISION_PRO" }
        guard let type else { return nil }
        if iMessage {
            guard iMessageTypes.contains(type) else { return nil }
            return "IMESSAGE_" + type
        }
        return type
    }
}

/// An image's pixel size from its header: PNG (IHDR) or JPEG (the first start-of-frame marker).
enum ImageSize {
    static func read(_ path: String) -> (width: Int, height: Int)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 1 << 16) else { return nil }
        return parse([UInt8](head))
    }

    static func parse(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        func be(_ at: Int, _ count: Int) -> Int? {
            guard at >= 0, at + count <= bytes.count else { return nil }
            return bytes[at..<(at + count)].reduce(0) { $0 << 8 | Int($1) }
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) {
            guard let width = be(16, 4), let height = be(20, 4) else { return nil }
            return (width, height)
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }
            guard let length = be(at + 2, 2) else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = be(at + 5, 2), let width = be(at + 7, 2) else { return nil }
                return (width, height)
            }
            at += 2 + length
        }
        return nil
    }
}
