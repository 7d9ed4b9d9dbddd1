import Foundation

/// The `#include` chains of Xcode configuration files, followed as Xcode follows them: a path
/// (`#include "…"` or `#include <…>`) is relative to the folder of the file that includes it,
/// else to the folder of the project; `#include?` may name a file that does not exist,
/// `#include` may not.
///
/// A missing file that a tool writes is skipped like an `#include?`: Flutter's
/// `Generated.xcconfig` (written from pubspec.yaml by `flutter pub get`), CocoaPods' `Pods-*`
/// files and anything under a folder Shiplane never searches (`Pods/`, `build/`): a fresh clone
/// does not have them, and they never hold the version a release moves.
struct XcconfigIncludes {
    /// One `#include` line.
    struct Include: Equatable {
        /// The path as written.
        let path: String
        /// True for `#include?`.
        let optional: Bool
        /// Its line, from 1.
        let line: Int
    }

    /// The files reached, the starting files first, each once, and the required includes that
    /// name a file that does not exist.
    struct Chain {
        var files: [URL] = []
        var missing: [(file: VersionFile, error: any Error)] = []
    }

    let root: URL
    let fileSystem: any FileSystem

    /// The `#include` and `#include?` lines of an xcconfig's text.
    static func includes(in text: String) -> [Include] {
        var found: [Include] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line.drop { $0 == " " || $0 == "\t" }
            guard rest.hasPrefix("#include") else { continue }
            rest = rest.dropFirst("#include".count)
            let optional = rest.first == "?"
            if optional { rest = rest.dropFirst() }
            rest = rest.drop { $0 == " " || $0 == "\t" }
            // `#include "Shared.xcconfig"` or `#include <Shared.xcconfig>`: the same file, found the same way.
            guard let opening = rest.first, opening == "\"" || opening == "<",
                  let close = rest.dropFirst().firstIndex(of: opening == "<" ? ">" : "\"") else { continue }
            let path = String(rest[rest.index(after: rest.startIndex)..<close])
            guard !path.isEmpty else { continue }
            found.append(Include(path: path, optional: optional, line: index + 1))
        }
        return found
    }

    /// Every file `starts` include, directly or through others, with the starting files. With
    /// `project`, the project whose configurations are based on `starts`: a start that does not
    /// exist (and that no tool writes) is an error naming it.
    func chain(from starts: [URL], project: URL? = nil) -> Chain {
        var chain = Chain()
        var seen: Set<String> = []
        var queue = starts.map(\.standardizedFileURL)
        if let project {
            for start in queue where fileSystem.kind(of: start.path) == nil && !Self.isWrittenByATool(VersionFileDetector.relativePath(of: start, to: root)) {
                chain.missing.append(missingBase(project, start))
            }
        }
        // The folder holding the .xcodeproj: where Xcode looks for an included file that is not
        // beside the file including it (hiddify's ios/Flutter/Debug.xcconfig includes "Base.xcconfig",
        // which is ios/Base.xcconfig).
        let projectFolder = project.map { $0.deletingLastPathComponent().deletingLastPathComponent() }
        while !queue.isEmpty {
            let file = queue.removeFirst()
            guard seen.insert(file.path).inserted else { continue }
            guard let bytes = try? fileSystem.contents(of: file.path), let text = String(data: bytes, encoding: .utf8) else { continue }
            chain.files.append(file)
            let folder = file.deletingLastPathComponent()
            for include in Self.includes(in: text) {
                let target = (include.path.hasPrefix("/") ? URL(fileURLWithPath: include.path) : folder.appendingPathComponent(include.path)).standardizedFileURL
                let fallback = include.path.hasPrefix("/") ? nil : projectFolder.map { $0.appendingPathComponent(include.path).standardizedFileURL }
                if fileSystem.kind(of: target.path) != nil {
                    queue.append(target)
                } else if let fallback, fileSystem.kind(of: fallback.path) != nil {
                    queue.append(fallback)
                } else if !include.optional, !Self.isWrittenByATool(include.path) {
                    chain.missing.append(missingError(file, include, target))
                }
            }
        }
        return chain
    }

    /// True for an included file that a tool writes, which a fresh clone does not have.
    static func isWrittenByATool(_ path: String) -> Bool {
        let components = path.split(separator: "/").map(String.init)
        guard let name = components.last else { return false }
        return name == "Generated.xcconfig" || name.hasPrefix("Pods-")
            || components.dropLast().contains { VersionFileDetector.skippedFolders.contains($0) }
    }

    private func missingBase(_ project: URL, _ base: URL) -> (file: VersionFile, error: any Error) {
        let display = VersionFileDetector.relativePath(of: project, to: root)
        let missing = VersionFileDetector.relativePath(of: base, to: root)
        return (VersionFile(url: project, format: XcodeProjectVersionFormat(), displayPath: display), VersionFileError(
            .missingVersion,
            "\(display) bases a configuration on \(missing), which does not exist",
            file: display,
            details: [("looked for", missing)],
            suggestion: "Add \(missing), or choose the configuration file again in Xcode (project › Info › Configurations)"
        ))
    }

    private func missingError(_ file: URL, _ include: Include, _ target: URL) -> (file: VersionFile, error: any Error) {
        let display = VersionFileDetector.relativePath(of: file, to: root)
        let missing = VersionFileDetector.relativePath(of: target, to: root)
        return (VersionFile(url: file, format: XcconfigVersionFormat(), displayPath: display), VersionFileError(
            .missingVersion,
            "\(display) includes \(missing), which does not exist",
            file: display,
            details: [("line \(include.line)", "#include \"\(include.path)\""), ("looked for", missing)],
            suggestion: "Xcode reads an #include relative to the file that holds it: correct the path, add \(missing), "
                + "or write #include? for a file that may be absent"
        ))
    }
}
