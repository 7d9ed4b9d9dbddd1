import Foundation

/// Which of a repository's Xcode projects is the app's, when it holds more than one: a sample's
/// project (element-x-ios' `compound-ios/Inspector`), a dependency's (Gifski's `gifski-api`).
///
/// A project with no application target beside one that has one is a library's; among projects
/// with apps, the one a workspace at the root opens, or the one XcodeGen's `project.yml` at the
/// root generates, is the app's; a project inside a Swift package of its own (a folder below the
/// root with a `Package.swift`) is a dependency's. A project named in `versions.independent` is
/// never the app's. When that still leaves more than one (one app per platform), all are read
/// and must agree: when they do not, the disagreement names each.
struct AppProjectChoice {
    let root: URL
    let fileSystem: any FileSystem

    /// One project and what the choice needs of it.
    struct Candidate {
        let url: URL
        let display: String
        let hasApp: Bool
    }

    /// The projects set aside, by path, with why; and the problem when no one project is the app's.
    struct Outcome {
        var setAside: [String: String] = [:]
        var problem: VersionFileError?
    }

    /// Decides among `projects`; `independent` are folders (or `.xcodeproj` paths) relative to the root.
    /// `generatedApart`: the project XcodeGen's spec generates, when git ignores it and it is not
    /// among `projects`: the app is the spec's, so every project with an app target is another's.
    func choose(_ projects: [Candidate], independent: Set<String>, generatedApart: String? = nil) -> Outcome {
        var outcome = Outcome()
        if let generatedApart {
            for project in projects where project.hasApp {
                outcome.setAside[project.url.path] = "\(project.display): another app's project (project.yml at the root generates \(generatedApart)), not read"
            }
        }
        var remaining: [Candidate] = []
        for project in projects {
            let folder = (project.display as NSString).deletingLastPathComponent
            let projectPath = (folder as NSString).deletingLastPathComponent
            if independent.contains(folder) || independent.contains(projectPath) {
                outcome.setAside[project.url.path] = "\(project.display): a release of its own (versions.independent in .shiplane.yml)"
            } else {
                remaining.append(project)
            }
        }
        let withApps = remaining.filter(\.hasApp)
        guard !withApps.isEmpty else { return outcome }
        for project in remaining where !project.hasApp {
            outcome.setAside[project.url.path] = "\(project.display): no app target, beside \(withApps.map(\.display).joined(separator: ", ")): a library's project, not the app's"
        }
        guard withApps.count > 1 else { return outcome }
        var chosen = withApps
        var why = ""
        if let opened = workspaceProjects(), case let picked = withApps.filter({ opened.contains(Self.projectPath($0.display)) }), picked.count == 1 {
            chosen = picked
            why = "the workspace at the root opens \(Self.projectPath(picked[0].display))"
        } else if let generated = xcodeGenProject(), case let picked = withApps.filter({ Self.projectPath($0.display) == generated }), picked.count == 1 {
            chosen = picked
            why = "project.yml at the root generates \(generated)"
        } else {
            let outside = withApps.filter { !insideAPackage($0.display) }
            if !outside.isEmpty, outside.count < withApps.count {
                chosen = outside
                why = "inside a Swift package of its own, a dependency's"
            }
        }
        // Still more than one (a Flutter app's ios/ and macos/ Runner projects): all are read,
        // and they must agree; when they do not, the error names each file.
        guard chosen.count == 1 else { return outcome }
        for project in withApps where project.url != chosen[0].url {
            outcome.setAside[project.url.path] = "\(project.display): another app's project (\(why.hasPrefix("inside") ? Self.projectPath(project.display) + " is " + why : why)), not read"
        }
        return outcome
    }

    /// `ElementX.xcodeproj` for `ElementX.xcodeproj/project.pbxproj`.
    static func projectPath(_ display: String) -> String { (display as NSString).deletingLastPathComponent }

    /// The folder that holds the project (`.` at the root).
    static func folder(of display: String) -> String {
        let folder = (projectPath(display) as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The projects the workspaces at the root open (`group:App.xcodeproj`), relative to the root;
    /// nil when there is no workspace at the root.
    private func workspaceProjects() -> Set<String>? {
        let workspaces = ((try? fileSystem.list(root.path)) ?? []).filter { $0.hasSuffix(".xcworkspace") }
        guard !workspaces.isEmpty else { return nil }
        var projects: Set<String> = []
        for workspace in workspaces {
            let data = root.appendingPathComponent(workspace).appendingPathComponent("contents.xcworkspacedata")
            guard let bytes = try? fileSystem.contents(of: data.path) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let regex = try? NSRegularExpression(pattern: #"location\s*=\s*"(?:group|container):([^"]+\.xcodeproj)""#) else { continue }
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                projects.insert(String(text[range]))
            }
        }
        return projects
    }

    /// The project XcodeGen's `project.yml` at the root generates (`name: ElementX` → `ElementX.xcodeproj`).
    func xcodeGenProject() -> String? {
        guard let bytes = try? fileSystem.contents(of: root.appendingPathComponent("project.yml").path) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) where line.hasPrefix("name:") {
            let name = line.dropFirst("name:".count).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            return name.isEmpty ? nil : name + ".xcodeproj"
        }
        return nil
    }

    /// True when a folder between the root and the project holds a `Package.swift`.
    private func insideAPackage(_ display: String) -> Bool {
        var folder = (Self.projectPath(display) as NSString).deletingLastPathComponent
        while !folder.isEmpty {
            if (try? fileSystem.contents(of: root.appendingPathComponent(folder).appendingPathComponent("Package.swift").path)) != nil { return true }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return false
    }
}
