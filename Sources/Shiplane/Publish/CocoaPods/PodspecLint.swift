import Foundation

/// The checks of `pod spec lint` (CocoaPods' `Specification::Linter`) that need no network: what
/// `pod trunk push` would refuse, errors and warnings alike (trunk refuses warnings unless
/// `--allow-warnings`), found before anything is sent. Downloading the source and building it
/// (the rest of `pod spec lint`) is not done here.
extension Podspec {
    /// Every lint problem of the spec in `object`, read from the file `shown`.
    static func lintProblems(_ object: [String: Any], shown: String) -> [String] {
        var problems: [String] = []
        let name = object["name"] as? String ?? ""
        if !name.isEmpty {
            if name.contains(where: \.isWhitespace) { problems.append("\(shown): the name \(name) contains whitespace") }
            if name.hasPrefix(".") { problems.append("\(shown): the name \(name) begins with a period") }
            if name.contains("/") { problems.append("\(shown): the name \(name) contains a slash") }
            let file = (shown as NSString).lastPathComponent
            let stem = file.hasSuffix(".podspec.json") ? String(file.dropLast(".podspec.json".count)) : (file as NSString).deletingPathExtension
            if stem != name { problems.append("\(shown): the spec's name \(name) does not match its file's name \(stem)") }
        }
        if let version = object["version"] as? String, !version.isEmpty,
           version.range(of: #"^[0-9]+(\.[0-9]+)*(-[0-9A-Za-z.]+)?$"#, options: .regularExpression) == nil {
            problems.append("\(shown): the version \(version) is not a version CocoaPods reads (1.2.0, 1.2.0-beta.1)")
        }
        if let summary = object["summary"] as? String {
            if summary.count > 140 { problems.append("\(shown): the summary is \(summary.count) characters; keep it to 140") }
            if let description = object["description"] as? String {
                if description == summary { problems.append("\(shown): the description is the summary; leave it out or say more") }
                else if description.count < summary.count { problems.append("\(shown): the description is shorter than the summary") }
            }
        }
        if let homepage = object["homepage"] as? String, !(homepage.hasPrefix("https://") || homepage.hasPrefix("http://")) {
            problems.append("\(shown): the homepage \(homepage) is not an http(s) URL")
        }
        if let license = object["license"] as? [String: Any], (license["type"] as? String ?? "").isEmpty {
            problems.append("\(shown): the license has no type (:type => 'MIT')")
        }
        if let authors = object["authors"] as? [String: Any], authors.isEmpty { problems.append("\(shown): the authors are empty") }
        if let source = object["source"] as? [String: Any] {
            let kinds = ["git", "http", "svn", "hg"].filter { source[$0] != nil }
            if kinds.count != 1 { problems.append("\(shown): the source names \(kinds.isEmpty ? "no" : "more than one") location (one of :git, :http, :svn, :hg)") }
            if source["git"] != nil, source["tag"] == nil, source["commit"] == nil {
                problems.append("\(shown): the git source names no tag (:tag => s.version.to_s, or \"v#{s.version}\")")
            }
        }
        for (platform, target) in (object["platforms"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let text = target as? String else { continue }
            if !["ios", "osx", "macos", "tvos", "watchos", "visionos"].contains(platform) { problems.append("\(shown): \(platform) is not a platform CocoaPods knows") }
            if text.range(of: #"^[0-9]+(\.[0-9]+){0,2}$"#, options: .regularExpression) == nil {
                problems.append("\(shown): the \(platform) deployment target \(text) is not a version")
            }
        }
        for swift in object["swift_versions"] as? [String] ?? [] where swift.range(of: #"^[0-9]+(\.[0-9]+){0,2}$"#, options: .regularExpression) == nil {
            problems.append("\(shown): the swift version \(swift) is not a version")
        }
        return problems + subspecProblems(object, shown: shown)
    }
}
