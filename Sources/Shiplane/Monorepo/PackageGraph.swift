import Foundation

/// Which packages of a monorepo depend on which: `.shiplane.yml`'s `depends_on:` and what each
/// package's own manifests say about the others.
///
/// Manifests read, in each package's folder: `package.json` (its `name`; `dependencies`,
/// `devDependencies`, `peerDependencies`, `optionalDependencies` naming another package's npm
/// name), `Cargo.toml` (its crate name; `[dependencies]`, `[dev-dependencies]`,
/// `[build-dependencies]` and their `[target…]` forms naming another crate or a `path` into
/// another package's folder), `Package.swift` (`.package(path: "…")` into another package's
/// folder), `go.mod` (`require` of another package's module path). A name that is no package of
/// the repository (a registry dependency) is not an edge.
package struct PackageGraph: Sendable, Equatable {
    /// Each package's dependencies among the packages, by name, sorted.
    package var dependencies: [String: [String]]

    /// Reads the graph from `root`'s work tree.
    package static func read(root: String, settings: ProjectSettings) -> PackageGraph {
        let packages = settings.packages
        var manifests: [String: ManifestFacts] = [:]
        var byManifestName: [String: String] = [:]
        for package in packages {
            let facts = ManifestFacts.read(folder: root + "/" + package.path)
            manifests[package.name] = facts
            for name in facts.names where byManifestName[name] == nil { byManifestName[name] = package.name }
        }
        var dependencies: [String: Set<String>] = [:]
        let folders = packages.map { (name: $0.name, path: $0.path) }
        for package in packages {
            var found = Set(settings.packageDependencies[package.name] ?? [])
            if let facts = manifests[package.name] {
                for name in facts.dependencyNames { if let other = byManifestName[name] { found.insert(other) } }
                for relative in facts.dependencyPaths {
                    let resolved = Self.normalized(package.path + "/" + relative)
                    if let other = folders.first(where: { resolved == $0.path || resolved.hasPrefix($0.path + "/") }) { found.insert(other.name) }
                }
            }
            found.remove(package.name)
            dependencies[package.name] = found
        }
        return PackageGraph(dependencies: dependencies.mapValues { $0.sorted() })
    }

    /// `a/b/../c` → `a/c`, relative to the repository root.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == "..", !parts.isEmpty { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    /// The packages that depend on `names`, directly or through others, `names` not included.
    package func dependents(of names: Set<String>) -> Set<String> {
        var reverse: [String: [String]] = [:]
        for (package, needs) in dependencies { for need in needs { reverse[need, default: []].append(package) } }
        var found = Set<String>()
        var pending = Array(names)
        while let next = pending.popLast() {
            for dependent in reverse[next] ?? [] where !names.contains(dependent) && found.insert(dependent).inserted {
                pending.append(dependent)
            }
        }
        return found
    }

    /// `names` in waves: each package after every package of `names` it depends on, directly or
    /// through packages outside `names`; within a wave, by name.
    /// - Throws: `PackageCycle` naming the packages that depend on each other in a circle.
    package func waves(of names: Set<String>) throws -> [[String]] {
        // Dependencies among `names`, also through packages not planned (a → b → c with b unchanged).
        var needs: [String: Set<String>] = [:]
        for name in names {
            var seen = Set<String>()
            var pending = dependencies[name] ?? []
            while let next = pending.popLast() {
                guard seen.insert(next).inserted else { continue }
                if names.contains(next) { needs[name, default: []].insert(next) }
                if next != name { pending.append(contentsOf: dependencies[next] ?? []) }
            }
        }
        var remaining = names
        var waves: [[String]] = []
        while !remaining.isEmpty {
            let ready = remaining.filter { (needs[$0] ?? []).isDisjoint(with: remaining) }.sorted()
            guard !ready.isEmpty else { throw PackageCycle(packages: cycle(among: remaining)) }
            waves.append(ready)
            remaining.subtract(ready)
        }
        return waves
    }

    /// One circle of dependencies among `names`, in order, for the error.
    private func cycle(among names: Set<String>) -> [String] {
        guard let start = names.sorted().first else { return [] }
        var path: [String] = [start]
        var current = start
        while true {
            guard let next = (dependencies[current] ?? []).first(where: { names.contains($0) }) else { return path }
            if let index = path.firstIndex(of: next) { return Array(path[index...]) + [next] }
            path.append(next)
            current = next
        }
    }
}

/// Packages that depend on each other in a circle: no order releases each after its dependencies.
package struct PackageCycle: ReportableError {
    /// The circle, its first package again at the end.
    package var packages: [String]
    package var message: String { "the packages depend on each other in a circle: " + packages.joined(separator: " → ") }
    package var suggestion: String? {
        "no order releases each after its dependencies: remove one of these dependencies (`depends_on` in \(ProjectSettings.fileName), or the package's manifest)"
    }
    package var category: ErrorCategory { .usage }
}

/// What one package's manifests say: the names it is known by, and what it depends on.
struct ManifestFacts: Sendable, Equatable {
    var names: [String] = []
    var dependencyNames: [String] = []
    var dependencyPaths: [String] = []

    /// By `readWholeFile`: a plan of ten thousand packages looks for forty thousand manifests,
    /// most of them missing, and Foundation's readers build and throw an error for each (6% of
    /// that plan's CPU in a profile).
    static func read(folder: String) -> ManifestFacts {
        var facts = ManifestFacts()
        if let data = readWholeFile(folder + "/package.json") { facts.readPackageJSON(data) }
        if let text = utf8(folder + "/Cargo.toml") { facts.readCargo(text) }
        if let text = utf8(folder + "/Package.swift") { facts.readSwiftPackage(text) }
        if let text = utf8(folder + "/go.mod") { facts.readGoModule(text) }
        return facts
    }

    /// The file at `path` as UTF-8 text; nil when it cannot be read or is not UTF-8.
    private static func utf8(_ path: String) -> String? {
        readWholeFile(path).flatMap { String(data: $0, encoding: .utf8) }
    }

    mutating func readPackageJSON(_ data: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        if let name = object["name"] as? String { names.append(name) }
        for key in ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] {
            guard let table = object[key] as? [String: Any] else { continue }
            dependencyNames += table.keys.sorted()
            // `file:../core` and `workspace:` links name a folder or the package itself.
            for case let value as String in table.values where value.hasPrefix("file:") || value.hasPrefix("link:") {
                dependencyPaths.append(String(value.drop { $0 != ":" }.dropFirst()))
            }
        }
    }

    /// Cargo.toml, read line by line for what the graph needs (tables and `key = value` lines);
    /// a full TOML reader is not needed for crate names and paths.
    mutating func readCargo(_ text: String) {
        var section = ""
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || line.isEmpty { continue }
            if line.hasPrefix("[") {
                section = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                // `[dependencies.core]`: a dependency as a table of its own.
                if let name = Self.dependencyTableName(section) { dependencyNames.append(name) }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if section == "package" && key == "name" {
                names.append(value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'")))
            } else if Self.isDependencySection(section) {
                dependencyNames.append(String(key.split(separator: ".").first ?? Substring(key)))
                if let path = Self.inlinePath(value) { dependencyPaths.append(path) }
            } else if Self.dependencyTableName(section) != nil, key == "path" {
                dependencyPaths.append(value.trimmingCharacters(in: CharacterSet(charactersIn: "\"'")))
            }
        }
    }

    static func isDependencySection(_ section: String) -> Bool {
        let last = section.split(separator: ".").last.map(String.init) ?? section
        return ["dependencies", "dev-dependencies", "build-dependencies"].contains(last)
    }

    static func dependencyTableName(_ section: String) -> String? {
        let parts = section.split(separator: ".")
        guard parts.count >= 2, ["dependencies", "dev-dependencies", "build-dependencies"].contains(String(parts[parts.count - 2])) else { return nil }
        return String(parts[parts.count - 1]).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
    }

    /// `{ path = "../core", version = "1" }` → `../core`.
    static func inlinePath(_ value: String) -> String? {
        guard let range = value.range(of: #"path\s*=\s*"([^"]*)""#, options: .regularExpression) else { return nil }
        let match = value[range]
        guard let open = match.firstIndex(of: "\"") else { return nil }
        return String(match[match.index(after: open)...].dropLast())
    }

    mutating func readSwiftPackage(_ text: String) {
        var search = text.startIndex..<text.endIndex
        while let found = text.range(of: #"\.package\(\s*(name:\s*"[^"]*"\s*,\s*)?path:\s*"([^"]*)""#, options: .regularExpression, range: search) {
            let match = text[found]
            if let pathStart = match.range(of: "path:") {
                let rest = match[pathStart.upperBound...]
                if let open = rest.firstIndex(of: "\"") { dependencyPaths.append(String(rest[rest.index(after: open)...].dropLast())) }
            }
            search = found.upperBound..<text.endIndex
        }
    }

    mutating func readGoModule(_ text: String) {
        var inRequire = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ").map(String.init)
            if words.first == "module", words.count > 1 { names.append(words[1]); continue }
            if line.hasPrefix("require (") { inRequire = true; continue }
            if inRequire && line == ")" { inRequire = false; continue }
            if inRequire, let first = words.first, !first.hasPrefix("//") { dependencyNames.append(first) }
            if words.first == "require", words.count > 2 { dependencyNames.append(words[1]) }
        }
    }
}
