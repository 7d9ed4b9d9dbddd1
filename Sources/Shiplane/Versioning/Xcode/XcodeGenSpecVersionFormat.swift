import Foundation

/// XcodeGen's project spec (`project.yml` and the files it includes): `MARKETING_VERSION` and
/// `CURRENT_PROJECT_VERSION` under the project's `settings` (directly, under `base:` or a
/// configuration in `configs:`), in `settingGroups`, and in the settings of the app's targets.
///
/// The project's and the app's (`type: application`) values decide the version; an extension's,
/// widget's, watch app's or App Clip's are copies that move with it (Apple wants one version).
/// A target of another type (a framework, a test bundle) keeps its own: not read. A target's
/// `MARKETING_VERSION: $(MARKETING_VERSION)` inherits the project's and is not a value;
/// `$(OTHER)` is followed as in an xcconfig. Quotes and `#` comments are kept. Versions are
/// Apple marketing versions, zero-padded parts kept (element-x-ios' `26.07.5` → `26.07.6`).
///
/// Read line by line with the indentation YAML gives: a rewrite changes the value's bytes only.
package struct XcodeGenSpecVersionFormat: TextualVersionFormat {
    /// `project.yml`, as messages name the format.
    package var name: String { "XcodeGen spec" }
    var versionKey: String { "MARKETING_VERSION" }
    var buildKey: String? { "CURRENT_PROJECT_VERSION" }
    /// Apple's.
    package var buildSeries: Set<BuildSeries> { [.apple] }
    var versionShape: VersionShape { .apple }

    /// The settings that hold the version: `MARKETING_VERSION` and those it refers to.
    let versionVariables: [String]
    /// The settings that hold the build number: `CURRENT_PROJECT_VERSION` and those it refers to.
    let buildVariables: [String]

    /// Target types whose version is the app's: extensions, widgets, watch apps, App Clips.
    static let followerTypes: Set<String> = [
        "app-extension", "app-extension.messages", "app-extension.messages-sticker-pack", "app-extension.intents-service",
        "extensionkit-extension", "watchkit-extension", "watchkit2-extension", "application.watchapp", "application.watchapp2",
        "application.watchapp2-container", "application.on-demand-install-capable", "tv-app-extension", "application.messages",
    ]

    /// The spec this file is part of, and the file's rank in it: which targets are the app and
    /// its extensions (types from templates too), and which values a file merged later overrides.
    /// Nil: the file read alone.
    let spec: XcodeGenSpec?
    let rank: Int

    /// Creates the format reading `MARKETING_VERSION`, `CURRENT_PROJECT_VERSION` and the
    /// settings named (that one of those refers to elsewhere).
    package init(versionVariables: [String] = [], buildVariables: [String] = []) {
        self.init(versionVariables: versionVariables, buildVariables: buildVariables, spec: nil, rank: 0)
    }

    /// The format for one file of `spec`, at `rank`.
    init(versionVariables: [String], buildVariables: [String], spec: XcodeGenSpec?, rank: Int) {
        self.versionVariables = ["MARKETING_VERSION"] + versionVariables.filter { $0 != "MARKETING_VERSION" }
        self.buildVariables = ["CURRENT_PROJECT_VERSION"] + buildVariables.filter { $0 != "CURRENT_PROJECT_VERSION" }
        self.spec = spec
        self.rank = rank
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let entries = XcodeGenSpec.entries(in: text)
        let spec = self.spec ?? XcodeGenSpec(
            files: [.init(url: URL(fileURLWithPath: "/project.yml"), pathBase: URL(fileURLWithPath: "/"), data: Data(text.bytes), entries: entries, rank: 0)],
            skippedIncludes: []
        )
        var fields = LocatedFields()
        for entry in entries {
            guard let range = entry.value, entry.path.count >= 2 else { continue }
            let path = entry.path
            let value = text.text(range)
            // An `info:` block's properties: XcodeGen writes them into the target's Info.plist.
            let inInfo = path.count == 5 && (path[0] == "targets" || path[0] == "targetTemplates") && path[2] == "info" && path[3] == "properties"
            let isVersion: Bool
            if inInfo {
                guard entry.key == "CFBundleShortVersionString" || entry.key == "CFBundleVersion" else { continue }
                isVersion = entry.key == "CFBundleShortVersionString"
                // `$(MARKETING_VERSION)` is the build setting's value: the plist holds none of its own.
                if BuildSettingReference.variable(in: value) == (isVersion ? "MARKETING_VERSION" : "CURRENT_PROJECT_VERSION") { continue }
            } else {
                isVersion = versionVariables.contains(entry.key)
                guard isVersion || buildVariables.contains(entry.key) else { continue }
                // `MARKETING_VERSION: $(MARKETING_VERSION)` in a target inherits the project's value.
                if BuildSettingReference.variable(in: value) == entry.key { continue }
            }
            // A file merged later sets it again (or replaces the mapping): XcodeGen uses that one.
            if spec.isOverridden(path, inRank: rank) { continue }
            var follower = false
            var place = path.dropLast().joined(separator: " › ")
            switch path[0] {
            case "settings":
                // Beside `base:`, `configs:` or `groups:`, XcodeGen ignores a plain key.
                if path.count == 2, spec.usesSettingsSections(["settings"]) { continue }
            case "settingGroups":
                if path.count == 3, spec.usesSettingsSections(Array(path.prefix(2))) { continue }
            case "targets", "targetTemplates":
                guard path.count >= 4, path[2] == "settings" || inInfo else { continue }
                if !inInfo, path.count == 4, spec.usesSettingsSections(Array(path.prefix(3))) { continue }
                // A target whose type is not the app's nor an extension's keeps its own version; a
                // template's values are the app's when the app merges it.
                let role = path[0] == "targets" ? spec.role(ofTarget: path[1]) : spec.role(ofTemplate: path[1])
                guard let role else { continue }
                follower = role == .follower
                place = (path[0] == "targets" ? "target " : "template ") + path[1]
                    + (inInfo ? " › info" : path.count > 4 ? " › " + path[3..<(path.count - 1)].joined(separator: " › ") : "")
            default:
                continue
            }
            var located = LocatedValue(range: range, value: value, label: "\(entry.key) in \(place) (line \(entry.line + 1))",
                                       isQuoted: entry.isQuoted, key: inInfo ? nil : entry.key)
            located.follower = follower
            if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        return fields
    }

    /// The value as written, quoted where YAML would otherwise read another number: an unquoted
    /// `1.10` is the float 1.1 to XcodeGen, so it is written `"1.10"`.
    func encode(_ value: String, replacing original: LocatedValue) -> String {
        guard !original.isQuoted, value.split(separator: ".", omittingEmptySubsequences: false).count == 2 else { return value }
        let fraction = value.split(separator: ".").last ?? ""
        let integer = value.split(separator: ".").first ?? ""
        return fraction.hasSuffix("0") || (integer.count > 1 && integer.hasPrefix("0")) ? "\"\(value)\"" : value
    }
}
