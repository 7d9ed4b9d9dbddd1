import Foundation

/// `pod spec lint`'s and `pod trunk push`'s checks of a pod's subspecs that need no build, as
/// CocoaPods' `Specification::Linter` (its analyzer runs on every spec, subspecs included), its
/// DSL (`dependency`) and its resolver (`subspec_by_name`, `default_subspecs`) apply them: every
/// subspec (test and app specs too, nested ones included) has a name CocoaPods takes, unique among
/// its siblings and not its parent's own; sets no root-only attribute; is not empty on any of its
/// platforms (no files, no dependency of its own or inherited, no subspecs); depends on no spec of
/// its own lineage and only on subspecs of the pod that exist; and its default subspecs are its own.
extension Podspec {
    /// The attributes CocoaPods' DSL declares `root_only` (a subspec setting one is an error).
    static let rootOnlyAttributes = [
        "version", "swift_versions", "swift_version", "cocoapods_version", "authors", "social_media_url", "license", "homepage",
        "readme", "changelog", "source", "summary", "description", "screenshots", "documentation_url", "prepare_command",
        "static_framework", "deprecated", "deprecated_in_favor_of", "module_name",
    ]
    /// What makes a spec not empty on a platform (the analyzer's `check_if_spec_is_empty`).
    static let contentAttributes = [
        "source_files", "on_demand_resources", "resources", "resource_bundles", "preserve_paths", "dependencies",
        "vendored_libraries", "vendored_frameworks",
    ]
    static let allPlatforms = ["ios", "osx", "tvos", "watchos", "visionos"]

    /// One spec of the tree: its full name (`Rocket/Core/Cache`), its JSON, its kind and parent.
    private struct Node {
        var fullName: String
        var object: [String: Any]
        var kind: String
        var parent: Int?
        var platforms: [String]
    }

    /// Every problem of the subspecs under `root`, each naming the subspec and what to do.
    static func subspecProblems(_ root: [String: Any], shown: String) -> [String] {
        let rootName = root["name"] as? String ?? ""
        guard !rootName.isEmpty else { return [] }
        var problems: [String] = []
        var nodes = [Node(fullName: rootName, object: root, kind: "spec", parent: nil, platforms: platforms(of: root, inherited: allPlatforms))]
        var index = 0
        while index < nodes.count {
            let node = nodes[index]
            var siblings: Set<String> = []
            for (key, kind) in [("subspecs", "subspec"), ("testspecs", "test spec"), ("appspecs", "app spec")] {
                guard let value = node.object[key] else { continue }
                guard let children = value as? [Any] else {
                    problems.append("\(shown): \(node.fullName)'s \(key) is not a list of specifications")
                    continue
                }
                for (position, element) in children.enumerated() {
                    guard let child = element as? [String: Any] else {
                        problems.append("\(shown): \(node.fullName)'s \(kind) number \(position + 1) is not a specification")
                        continue
                    }
                    let name = child["name"] as? String ?? ""
                    let label = name.isEmpty ? "\(node.fullName)/<\(kind) \(position + 1)>" : "\(node.fullName)/\(name)"
                    problems += nameProblems(name, label: label, kind: kind, parent: node.fullName, shown: shown)
                    if !name.isEmpty, !siblings.insert(name).inserted {
                        problems.append("\(shown): \(label) is declared twice under \(node.fullName): give each subspec a name of its own")
                    }
                    nodes.append(Node(fullName: label, object: child, kind: kind, parent: index, platforms: platforms(of: child, inherited: node.platforms)))
                }
            }
            index += 1
        }
        let librarySpecs = Set(nodes.filter { $0.kind == "subspec" || $0.parent == nil }.map(\.fullName))
        let subspecList = nodes.filter { $0.kind == "subspec" }.map(\.fullName)
        for (position, node) in nodes.enumerated() where node.parent != nil {
            let label = node.fullName
            for key in rootOnlyAttributes where node.object[key] != nil {
                problems.append("\(shown): \(label) sets \(key), which only the pod itself may set (CocoaPods: \"Can't set `\(key)` attribute for subspecs\"): move it to the root spec or remove it")
            }
            let empty = node.platforms.filter { isEmpty(nodes, position, on: $0) }
            if !empty.isEmpty {
                let on = empty.count == node.platforms.count ? "" : " on \(empty.joined(separator: ", "))"
                problems.append("\(shown): the \(node.kind) \(label) is empty\(on) (no source_files, resources, resource_bundles, preserve_paths, vendored_libraries, vendored_frameworks, dependencies, nor subspecs): give it source_files or a dependency, or remove it")
            }
        }
        for node in nodes {
            let label = node.fullName
            for (dependency, platform) in dependencies(of: node.object) {
                let on = platform.map { " (\($0))" } ?? ""
                let lineage = ancestors(nodes, of: node) + [label]
                if dependency == label {
                    problems.append("\(shown): \(label) depends on itself\(on): remove that dependency")
                } else if lineage.contains(dependency) {
                    problems.append("\(shown): \(label) depends on \(dependency), one of its parents\(on); a subspec already has its parents' files: remove that dependency")
                } else if dependency.hasPrefix(rootName + "/"), !librarySpecs.contains(dependency) {
                    let known = subspecList.isEmpty ? "it has none" : "its subspecs: " + subspecList.joined(separator: ", ")
                    problems.append("\(shown): \(label) depends on \(dependency)\(on), which is not a subspec of \(rootName) (\(known)): fix the name or add the subspec")
                }
            }
            problems += defaultSubspecProblems(node, nodes: nodes, shown: shown)
        }
        return problems
    }

    /// A subspec's name as `_validate_name` checks it, and not its parent's own.
    private static func nameProblems(_ name: String, label: String, kind: String, parent: String, shown: String) -> [String] {
        guard !name.isEmpty else { return ["\(shown): a \(kind) of \(parent) has no name: give it one (s.subspec 'Core' do |core| … end)"] }
        var problems: [String] = []
        if name.contains("/") { problems.append("\(shown): the \(kind) name \(name) (in \(parent)) contains a slash: nest a subspec inside another instead") }
        if name.contains(where: \.isWhitespace) { problems.append("\(shown): the \(kind) name \(name) (in \(parent)) contains whitespace: rename it") }
        if name.hasPrefix(".") { problems.append("\(shown): the \(kind) name \(name) (in \(parent)) begins with a period: rename it") }
        if name == (parent.split(separator: "/").last.map(String.init) ?? parent) {
            problems.append("\(shown): the \(kind) \(label) has its parent's own name: rename it (\(parent)/Core, for example)")
        }
        return problems
    }

    /// The platforms a spec is available on: its own `platforms` narrowing its parent's.
    private static func platforms(of object: [String: Any], inherited: [String]) -> [String] {
        guard let own = object["platforms"] as? [String: Any], !own.isEmpty else { return inherited }
        let named = Set(own.keys.map { $0 == "macos" ? "osx" : $0 })
        return inherited.filter(named.contains)
    }

    /// Whether the spec at `position` has nothing on `platform`: no content of its own, no
    /// dependency of its own or inherited from a parent, and no subspecs.
    private static func isEmpty(_ nodes: [Node], _ position: Int, on platform: String) -> Bool {
        let node = nodes[position]
        if let subspecs = node.object["subspecs"] as? [Any], !subspecs.isEmpty { return false }
        func has(_ object: [String: Any], _ keys: [String]) -> Bool {
            let section = object[platform] as? [String: Any] ?? [:]
            return keys.contains { key in [object[key], section[key]].contains { present($0) } }
        }
        if has(node.object, contentAttributes) { return false }
        var parent = node.parent
        while let at = parent {
            if has(nodes[at].object, ["dependencies"]) { return false }
            parent = nodes[at].parent
        }
        return true
    }

    private static func present(_ value: Any?) -> Bool {
        guard let value else { return false }
        switch value {
        case let text as String: return !text.isEmpty
        case let list as [Any]: return !list.isEmpty
        case let map as [String: Any]: return !map.isEmpty
        default: return true
        }
    }

    /// The names a spec depends on, with the platform of a per-platform dependency.
    private static func dependencies(of object: [String: Any]) -> [(String, String?)] {
        var found: [(String, String?)] = (object["dependencies"] as? [String: Any] ?? [:]).keys.sorted().map { ($0, nil) }
        for platform in allPlatforms + ["macos"] {
            let section = object[platform] as? [String: Any] ?? [:]
            found += (section["dependencies"] as? [String: Any] ?? [:]).keys.sorted().map { ($0, platform) }
        }
        return found
    }

    private static func ancestors(_ nodes: [Node], of node: Node) -> [String] {
        var names: [String] = []
        var parent = node.parent
        while let at = parent {
            names.append(nodes[at].fullName)
            parent = nodes[at].parent
        }
        return names
    }

    /// `default_subspecs` names direct library subspecs of the spec that sets it (or `none`).
    private static func defaultSubspecProblems(_ node: Node, nodes: [Node], shown: String) -> [String] {
        guard let value = node.object["default_subspecs"] ?? node.object["default_subspec"] else { return [] }
        let names: [String]
        switch value {
        case let one as String: names = [one]
        case let list as [Any] where list.allSatisfy({ $0 is String }): names = list.compactMap { $0 as? String }
        default: return ["\(shown): \(node.fullName)'s default_subspecs is neither a name nor a list of names"]
        }
        if names == ["none"] || names == [":none"] { return [] }
        let children = nodes.filter { $0.kind == "subspec" && $0.fullName.hasPrefix(node.fullName + "/") }
            .map { String($0.fullName.dropFirst(node.fullName.count + 1)) }.filter { !$0.contains("/") }
        var problems: [String] = []
        for name in names where !children.contains(name) {
            let known = children.isEmpty ? "it has no subspecs" : "its subspecs: " + children.joined(separator: ", ")
            let hint = name.contains("/") ? " (name a subspec relative to \(node.fullName), without the pod's name)" : ""
            problems.append("\(shown): \(node.fullName)'s default subspec \(name) is not one of its subspecs (\(known))\(hint): fix the name, add the subspec, or remove it from default_subspecs")
        }
        return problems
    }
}
