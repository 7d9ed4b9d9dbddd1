import Foundation

/// The targets of an Xcode project and where each one's version lives, read from its
/// `project.pbxproj` (an OpenStep property list) to decide which values a release moves.
///
/// The App Store requires app extensions, widgets, App Clips and watch apps to carry the
/// version of the app they ship in, so those move with the app; so does an application target
/// another app embeds (a single-target watch app, copied by "Embed Watch Content"). Any other target whose version
/// is set on its own (a macOS launcher helper at `1.0`, a framework, a test bundle) is left
/// alone and named, unless the settings file lists it.
struct XcodeProjectModel: Sendable {
    /// What a target is, for versioning.
    enum Role: String, Sendable {
        /// An application (`com.apple.product-type.application`).
        case app
        /// Ships inside an app and must carry its version: extensions, widgets, App Clips, watch apps.
        case embedded
        /// Tests: never versioned.
        case test
        /// Anything else: frameworks, tools, helpers.
        case other
    }

    /// One build configuration: its settings and the xcconfig it is based on.
    struct Configuration: Sendable {
        let id: String
        let name: String
        let settings: [String: String]
        /// The base xcconfig's path relative to the folder holding the `.xcodeproj`.
        let baseConfiguration: String?
    }

    /// One target.
    struct Target: Sendable {
        let name: String
        let productType: String
        let role: Role
        let configurations: [Configuration]
        /// Why a target that ships inside the app is left alone all the same (a login item, an
        /// extension at a placeholder version), for `left alone`; nil for the others.
        var leftAloneBecause: String? = nil
    }

    /// The project's own configurations, which every target inherits from.
    let projectConfigurations: [Configuration]
    /// The native targets, in the project's order.
    private(set) var targets: [Target]

    /// Product types that ship inside an app and must carry the app's version.
    static let embeddedProductTypes: Set<String> = [
        "com.apple.product-type.app-extension",
        "com.apple.product-type.app-extension.messages",
        "com.apple.product-type.app-extension.messages-sticker-pack",
        "com.apple.product-type.extensionkit-extension",
        "com.apple.product-type.tv-app-extension",
        "com.apple.product-type.watchkit-extension",
        "com.apple.product-type.watchkit2-extension",
        "com.apple.product-type.application.watchapp",
        "com.apple.product-type.application.watchapp2",
        "com.apple.product-type.application.watchapp2-container",
        "com.apple.product-type.application.on-demand-install-capable",
        "com.apple.product-type.xpc-service",
        "com.apple.product-type.system-extension",
    ]

    /// Extension product types whose version App Store Connect only warns about when it differs
    /// from the app's (ITMS-90473): one left at a placeholder the project's own bumps never move
    /// (Flutter's share extension at `MARKETING_VERSION = 1.0`) stays there. Watch apps, their
    /// extensions and App Clips are refused when they differ, so they always move.
    static let placeholderTolerantTypes: Set<String> = [
        "com.apple.product-type.app-extension",
        "com.apple.product-type.app-extension.messages",
        "com.apple.product-type.app-extension.messages-sticker-pack",
        "com.apple.product-type.extensionkit-extension",
        "com.apple.product-type.tv-app-extension",
        "com.apple.product-type.xpc-service",
        "com.apple.product-type.system-extension",
    ]

    /// The versions Xcode gives a new target: a target still at one of them was never released with the app.
    static let placeholderVersions: Set<String> = ["1", "1.0", "1.0.0"]

    /// Reads the model from the bytes of a `project.pbxproj`.
    /// - Throws: `VersionFileError.malformed` when the file is not a property list of that shape.
    init(_ data: Data) throws {
        let parsed: Any
        do {
            var format = PropertyListSerialization.PropertyListFormat.openStep
            parsed = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw VersionFileError(.malformed, "The project.pbxproj file is not a valid property list", suggestion: "Open the project in Xcode to repair it, or resolve merge conflict markers", underlying: [error])
        }
        guard let root = parsed as? [String: Any], let objects = root["objects"] as? [String: Any],
              let rootID = root["rootObject"] as? String, let project = objects[rootID] as? [String: Any] else {
            throw VersionFileError(.malformed, "The project.pbxproj file has no objects or root object")
        }
        let paths = Self.filePaths(objects, mainGroup: project["mainGroup"] as? String)
        func configurations(_ listID: Any?) -> [Configuration] {
            guard let listID = listID as? String, let list = objects[listID] as? [String: Any],
                  let ids = list["buildConfigurations"] as? [String] else { return [] }
            return ids.compactMap { id in
                guard let object = objects[id] as? [String: Any] else { return nil }
                var base: String?
                if let reference = object["baseConfigurationReference"] as? String {
                    base = paths[reference]
                } else if let anchor = object["baseConfigurationReferenceAnchor"] as? String,
                          let relative = object["baseConfigurationReferenceRelativePath"] as? String {
                    base = paths[anchor].map { $0.isEmpty ? relative : $0 + "/" + relative }
                }
                let settings = (object["buildSettings"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
                return Configuration(id: id, name: object["name"] as? String ?? id, settings: settings, baseConfiguration: base)
            }
        }
        projectConfigurations = configurations(project["buildConfigurationList"])
        let copied = Self.appsCopiedIntoApps(objects, targets: project["targets"] as? [String] ?? [])
        targets = (project["targets"] as? [String] ?? []).compactMap { id in
            guard let target = objects[id] as? [String: Any], target["isa"] as? String == "PBXNativeTarget" else { return nil }
            let type = target["productType"] as? String ?? ""
            let name = target["name"] as? String ?? id
            let configurations = configurations(target["buildConfigurationList"])
            if let helper = copied.helpers[id] {
                // A login item or helper app (Contents/Library/LoginItems): App Store Connect does
                // not compare its version with the app's, and the projects' own bumps leave it.
                return Target(name: name, productType: type, role: .other, configurations: configurations,
                              leftAloneBecause: "a helper app \(helper.app) copies into \(helper.destination), not a watch app")
            }
            let role: Role = copied.watchApps.contains(id) ? .embedded
                : type == "com.apple.product-type.application" ? .app
                : Self.embeddedProductTypes.contains(type) ? .embedded
                : type.hasPrefix("com.apple.product-type.bundle.unit-test") || type.hasPrefix("com.apple.product-type.bundle.ui-testing") ? .test
                : .other
            return Target(name: name, productType: type, role: role, configurations: configurations)
        }
    }

    /// Application targets another application target copies into its bundle (a Copy Files
    /// phase). Into its `Watch` folder (Xcode's "Embed Watch Content" for a single-target watch
    /// app) it is a watch app: it ships inside the app and carries its version. Anywhere else
    /// (`Contents/Library/LoginItems`) it is a helper, by identifier, with the app that copies it
    /// and where.
    private static func appsCopiedIntoApps(
        _ objects: [String: Any], targets ids: [String]
    ) -> (watchApps: Set<String>, helpers: [String: (app: String, destination: String)]) {
        let application = "com.apple.product-type.application"
        var appByProduct: [String: String] = [:]
        for id in ids {
            guard let target = objects[id] as? [String: Any], target["productType"] as? String == application,
                  let product = target["productReference"] as? String else { continue }
            appByProduct[product] = id
        }
        var watchApps: Set<String> = []
        var helpers: [String: (app: String, destination: String)] = [:]
        for id in ids {
            guard let target = objects[id] as? [String: Any], target["productType"] as? String == application else { continue }
            for phaseID in target["buildPhases"] as? [String] ?? [] {
                guard let phase = objects[phaseID] as? [String: Any], phase["isa"] as? String == "PBXCopyFilesBuildPhase" else { continue }
                let destination = phase["dstPath"] as? String ?? ""
                let intoWatch = destination.split(separator: "/").last == "Watch"
                for fileID in phase["files"] as? [String] ?? [] {
                    guard let file = objects[fileID] as? [String: Any], let reference = file["fileRef"] as? String,
                          let app = appByProduct[reference], app != id else { continue }
                    if intoWatch {
                        watchApps.insert(app)
                    } else {
                        helpers[app] = (target["name"] as? String ?? id, destination.isEmpty ? "its bundle" : destination)
                    }
                }
            }
        }
        for app in watchApps { helpers[app] = nil }
        return (watchApps, helpers)
    }

    /// The model with each extension still at Xcode's placeholder version while the app is
    /// elsewhere made a target left alone: the project's own bumps never moved it (lichess' and
    /// LocalSend's share extensions at `MARKETING_VERSION = 1.0` beside pubspec.yaml's version).
    /// `shippedVersion` gives the version a target's Info.plist writes itself, when it does.
    func leavingPlaceholderExtensions(shippedVersion: (Target) -> String?) -> XcodeProjectModel {
        guard let app = targets.first(where: { $0.role == .app }) else { return self }
        let projectVersion = projectConfigurations.compactMap { $0.settings["MARKETING_VERSION"] }.first
        let appVersion = shippedVersion(app) ?? app.configurations.compactMap { $0.settings["MARKETING_VERSION"] }.first ?? projectVersion
        var copy = self
        for index in targets.indices where targets[index].role == .embedded && Self.placeholderTolerantTypes.contains(targets[index].productType) {
            let target = targets[index]
            let own = shippedVersion(target).map { [$0] } ?? Set(target.configurations.compactMap { $0.settings["MARKETING_VERSION"] })
            guard own.count == 1, let version = own.first, Self.placeholderVersions.contains(version), version != appVersion else { continue }
            copy.targets[index] = Target(
                name: target.name, productType: target.productType, role: .other, configurations: target.configurations,
                leftAloneBecause: "an extension of \(app.name) at Xcode's placeholder version, which the app's releases do not move "
                    + "(App Store Connect only warns, ITMS-90473)"
            )
        }
        return copy
    }

    /// The path of every file reference and group below the main group, relative to the
    /// project's folder (groups with `sourceTree = "<group>"` nest; `SOURCE_ROOT` starts over).
    private static func filePaths(_ objects: [String: Any], mainGroup: String?) -> [String: String] {
        var paths: [String: String] = [:]
        func visit(_ id: String, parent: String) {
            guard let object = objects[id] as? [String: Any] else { return }
            let own = object["path"] as? String
            let tree = object["sourceTree"] as? String ?? "<group>"
            let base = tree == "SOURCE_ROOT" ? "" : parent
            let path = own.map { base.isEmpty ? $0 : base + "/" + $0 } ?? base
            guard tree == "<group>" || tree == "SOURCE_ROOT" else { return }
            paths[id] = path
            for child in object["children"] as? [String] ?? [] { visit(child, parent: path) }
        }
        if let mainGroup { visit(mainGroup, parent: "") }
        return paths
    }

    /// The targets that ship with the release: the first app, its embedded targets, and any
    /// other target the settings list by name. With no app target, every non-test target that
    /// sets a version.
    func releaseTargets(listed: Set<String>) -> (released: [Target], independent: [Target]) {
        let mainApp = targets.first { $0.role == .app }
        var released: [Target] = []
        var independent: [Target] = []
        for target in targets {
            if target.name == mainApp?.name || target.role == .embedded || listed.contains(target.name) {
                released.append(target)
            } else if mainApp == nil, target.role != .test {
                released.append(target)
            } else {
                // Another app, a framework or a test: whatever version it sets of its own stays.
                // One that sets none inherits the project's settings and moves with them anyway.
                independent.append(target)
            }
        }
        return (released, independent)
    }

    /// The configurations whose settings a release rewrites, by identifier, named for messages:
    /// those of the released targets and the project's own.
    func configurationLabels(of targets: [Target]) -> [String: String] {
        var labels: [String: String] = [:]
        for configuration in projectConfigurations { labels[configuration.id] = "project \(configuration.name)" }
        for target in targets {
            for configuration in target.configurations { labels[configuration.id] = "\(target.name) \(configuration.name)" }
        }
        return labels
    }

    /// The configurations of the embedded targets among `targets`: they follow the app.
    func followerConfigurations(of targets: [Target]) -> Set<String> {
        Set(targets.filter { $0.role == .embedded }.flatMap { $0.configurations.map(\.id) })
    }

    /// The Info.plist files of `targets` (`INFOPLIST_FILE`, relative to the project's folder).
    func infoPlists(of targets: [Target]) -> Set<String> {
        Set(infoPlistSettings(of: targets).filter { !Self.isComputed($0) })
    }

    /// True when some target names its Info.plist through a setting (`$(TARGET_NAME)/Info.plist`):
    /// which files the targets use is then not known.
    var namesAnInfoPlistThroughASetting: Bool {
        infoPlistSettings(of: targets).contains(where: Self.isComputed)
    }

    private static func isComputed(_ path: String) -> Bool {
        BuildSettingReference.variable(in: path) != nil || path.contains("$(") || path.contains("${")
    }

    /// Each configuration's `INFOPLIST_FILE` (or the project's), without a leading `$(SRCROOT)/`.
    private func infoPlistSettings(of targets: [Target]) -> [String] {
        var paths: [String] = []
        for target in targets {
            for configuration in target.configurations {
                guard var path = configuration.settings["INFOPLIST_FILE"] ?? projectConfigurations.first(where: { $0.name == configuration.name })?.settings["INFOPLIST_FILE"] else { continue }
                for prefix in ["$(SRCROOT)/", "${SRCROOT}/", "$(PROJECT_DIR)/", "${PROJECT_DIR}/"] where path.hasPrefix(prefix) {
                    path = String(path.dropFirst(prefix.count))
                }
                paths.append(path)
            }
        }
        return paths
    }

    /// The xcconfig files the configurations of `targets` (and the project's) are based on.
    func baseConfigurations(of targets: [Target], includingProject: Bool) -> Set<String> {
        Set((includingProject ? projectConfigurations : []).compactMap(\.baseConfiguration)
            + targets.flatMap { $0.configurations.compactMap(\.baseConfiguration) })
    }

    /// The version each target sets in its own configurations, for naming it ("1.0", "$(HELPER_VERSION)").
    func ownVersion(of target: Target) -> String? {
        target.configurations.compactMap { $0.settings["MARKETING_VERSION"] }.first
    }
}
