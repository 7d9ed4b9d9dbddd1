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
    }

    /// The project's own configurations, which every target inherits from.
    let projectConfigurations: [Configuration]
    /// The native targets, in the project's order.
    let targets: [Target]

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
        let embeddedApps = Self.appsEmbeddedInApps(objects, targets: project["targets"] as? [String] ?? [])
        targets = (project["targets"] as? [String] ?? []).compactMap { id in
            guard let target = objects[id] as? [String: Any], target["isa"] as? String == "PBXNativeTarget" else { return nil }
            let type = target["productType"] as? String ?? ""
            let role: Role = embeddedApps.contains(id) ? .embedded
                : type == "com.apple.product-type.application" ? .app
                : Self.embeddedProductTypes.contains(type) ? .embedded
                : type.hasPrefix("com.apple.product-type.bundle.unit-test") || type.hasPrefix("com.apple.product-type.bundle.ui-testing") ? .test
                : .other
            return Target(name: target["name"] as? String ?? id, productType: type, role: role, configurations: configurations(target["buildConfigurationList"]))
        }
    }

    /// The application targets another application target copies into its bundle (a Copy
    /// Files phase: Xcode's "Embed Watch Content" for a single-target watch app): they ship
    /// inside it, so they carry its version.
    private static func appsEmbeddedInApps(_ objects: [String: Any], targets ids: [String]) -> Set<String> {
        let application = "com.apple.product-type.application"
        var appByProduct: [String: String] = [:]
        for id in ids {
            guard let target = objects[id] as? [String: Any], target["productType"] as? String == application,
                  let product = target["productReference"] as? String else { continue }
            appByProduct[product] = id
        }
        var embedded: Set<String> = []
        for id in ids {
            guard let target = objects[id] as? [String: Any], target["productType"] as? String == application else { continue }
            for phaseID in target["buildPhases"] as? [String] ?? [] {
                guard let phase = objects[phaseID] as? [String: Any], phase["isa"] as? String == "PBXCopyFilesBuildPhase" else { continue }
                for fileID in phase["files"] as? [String] ?? [] {
                    guard let file = objects[fileID] as? [String: Any], let reference = file["fileRef"] as? String,
                          let app = appByProduct[reference], app != id else { continue }
                    embedded.insert(app)
                }
            }
        }
        return embedded
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
