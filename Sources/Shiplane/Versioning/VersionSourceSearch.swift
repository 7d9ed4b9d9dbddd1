import Foundation

/// One search for a project's version sources: which files, read with which formats, following
/// references (`$(APP_VERSION)`, `versionName = VERSION_NAME`) to where each value lives.
struct VersionSourceSearch {
    let root: URL
    let fileSystem: any FileSystem
    let tree: ProjectTree
    let listedTargets: Set<String>
    /// Gradle module folders with a release train of their own (`versions.independent`).
    let independentModules: Set<String>

    /// The settings and properties a version or build number was found to refer to.
    struct Variables: Equatable {
        var version: Set<String> = []
        var build: Set<String> = []
    }

    /// A file that may hold a version, and how to read it once the references are known.
    struct Candidate {
        let url: URL
        /// True for files that are sources by their name alone (a `VERSION` folder is an error).
        let mustBeFile: Bool
        /// True for an app extension's Info.plist: it follows the app's version.
        var follower = false
        let format: (Variables) -> any VersionFormat
    }

    /// Variables whose value lives where the build tool puts it, not in a file Shiplane reads:
    /// Xcode's own two settings are read under their names; Flutter's come from pubspec.yaml.
    static let flutterVariables: Set<String> = [FlutterPubspecVersionFormat.nameVariable, FlutterPubspecVersionFormat.numberVariable]

    init(root: URL, fileSystem: any FileSystem, tree: ProjectTree, listedTargets: Set<String>, independentModules: Set<String> = []) {
        self.root = root
        self.fileSystem = fileSystem
        self.tree = tree
        self.listedTargets = listedTargets
        self.independentModules = independentModules
    }

    mutating func run() throws -> VersionFileDetector.Search {
        var candidates = rootCandidates()
        var problems: [(file: VersionFile, error: any Error)] = []
        var leftAlone: [String] = []
        var excluded: Set<String> = []
        var appProjects: [(display: String, files: Set<String>)] = []
        // Found by the walk, and reached through a released target's #include chain wherever it is.
        var reachedXcconfigs: [URL] = []
        var ignored: [String] = []
        // The Info.plist files some target of some project uses; nil when that is not known (a
        // project that cannot be read, an INFOPLIST_FILE named through a setting).
        var usedPlists: Set<String>? = tree.xcodeProjects.isEmpty ? nil : []
        var projectNames: [String] = []
        var projectFolders: [URL] = []
        // The Info.plists and xcconfigs of projects that are not the app's.
        var setAsideFiles: Set<String> = []

        // The app's project, where the repository holds others (a sample's, a dependency's).
        let choice = AppProjectChoice(root: root, fileSystem: fileSystem).choose(tree.xcodeProjects.compactMap { project in
            let pbxproj = project.appendingPathComponent("project.pbxproj")
            guard let bytes = try? fileSystem.contents(of: pbxproj.path), let model = try? XcodeProjectModel(bytes) else { return nil }
            return AppProjectChoice.Candidate(url: pbxproj, display: VersionFileDetector.relativePath(of: pbxproj, to: root),
                                              hasApp: model.targets.contains { $0.role == .app })
        }, independent: independentModules)
        if let problem = choice.problem {
            let display = problem.file ?? "project.pbxproj"
            problems.append((VersionFile(url: root.appendingPathComponent(display), format: XcodeProjectVersionFormat(), displayPath: display), problem))
        }
        var matchedProjects: Set<String> = []
        for project in tree.xcodeProjects {
            let pbxproj = project.appendingPathComponent("project.pbxproj")
            let display = VersionFileDetector.relativePath(of: pbxproj, to: root)
            if let why = choice.setAside[pbxproj.path] {
                // Its targets' Info.plists and xcconfigs are its own: never read from here.
                ignored.append(why)
                let folder = AppProjectChoice.folder(of: display)
                matchedProjects.formUnion([folder, AppProjectChoice.projectPath(display)])
                if let bytes = try? fileSystem.contents(of: pbxproj.path), let model = try? XcodeProjectModel(bytes) {
                    let base = project.deletingLastPathComponent()
                    for plist in model.infoPlists(of: model.targets) { setAsideFiles.insert(base.appendingPathComponent(plist).standardizedFileURL.path) }
                    for xcconfig in XcconfigIncludes(root: root, fileSystem: fileSystem)
                        .chain(from: model.baseConfigurations(of: model.targets, includingProject: true).sorted().map { base.appendingPathComponent($0) }).files {
                        setAsideFiles.insert(xcconfig.standardizedFileURL.path)
                    }
                }
                continue
            }
            guard let bytes = try? fileSystem.contents(of: pbxproj.path) else { continue }
            var model: XcodeProjectModel
            do {
                model = try XcodeProjectModel(bytes)
            } catch {
                problems.append((VersionFile(url: pbxproj, format: XcodeProjectVersionFormat(), displayPath: display), (error as? VersionFileError)?.inFile(display) ?? error))
                usedPlists = nil
                continue
            }
            let projectFolder = project.deletingLastPathComponent()
            model = model.leavingPlaceholderExtensions { [self] target in plistLiterals(of: target, in: model, folder: projectFolder).version }
            projectNames.append(project.lastPathComponent)
            projectFolders.append(projectFolder)
            if model.targets.isEmpty || model.namesAnInfoPlistThroughASetting { usedPlists = nil }
            for plist in model.infoPlists(of: model.targets) {
                usedPlists?.insert(project.deletingLastPathComponent().appendingPathComponent(plist).standardizedFileURL.path)
            }
            let (released, independent) = model.releaseTargets(listed: listedTargets)
            let folder = project.deletingLastPathComponent()
            // An extension whose Info.plist writes both values itself does not use its build
            // settings (exelban/stats' widget: 3.0.11 in the plist beside MARKETING_VERSION = 1.0):
            // the plist moves with the app, the settings stay.
            let plistOnly = Set(released.filter { $0.role == .embedded }.filter { target in
                let literals = plistLiterals(of: target, in: model, folder: folder)
                return literals.version != nil && literals.build != nil
            }.flatMap { $0.configurations.map(\.id) })
            let labels = model.targets.isEmpty ? nil : model.configurationLabels(of: released).filter { !plistOnly.contains($0.key) }
            let followers = model.followerConfigurations(of: released)
            // Where every released target's Info.plist writes the value itself, the build
            // setting is not what ships (Expo's prebuilt MARKETING_VERSION = 1.0 beside a plist at 1.7.0).
            let written = plistsWriteTheirOwn(released, in: model, folder: folder)
            if written.version || written.build {
                let all = try? XcodeProjectVersionFormat(configurations: labels, followers: followers).read(bytes)
                let unused = [written.version ? all?.text.map { "MARKETING_VERSION \($0)" } : nil,
                              written.build ? all?.build?.literal.map { "CURRENT_PROJECT_VERSION \($0)" } : nil].compactMap { $0 }
                if !unused.isEmpty {
                    ignored.append("\(display): \(unused.joined(separator: ", ")), not used: the app's Info.plist writes its "
                        + (written.version && written.build ? "version and build" : written.version ? "version" : "build") + " itself")
                }
            }
            if !(written.version && written.build) {
                candidates.append(Candidate(url: pbxproj, mustBeFile: false) { variables in
                    XcodeProjectVersionFormat(
                        versionVariables: variables.version.sorted(), buildVariables: variables.build.sorted(),
                        configurations: labels, followers: followers, readsVersion: !written.version, readsBuild: !written.build
                    )
                })
            }
            var files: Set<String> = [pbxproj.path]
            let leading = model.infoPlists(of: released.filter { $0.role != .embedded })
            for plist in model.infoPlists(of: released).sorted() {
                let url = folder.appendingPathComponent(plist).standardizedFileURL
                files.insert(url.path)
                candidates.append(Candidate(url: url, mustBeFile: false, follower: !leading.contains(plist)) { _ in InfoPlistVersionFormat() })
            }
            let others = model.targets.filter { target in !released.contains { $0.name == target.name } }
            let releasedPlists = model.infoPlists(of: released)
            for plist in model.infoPlists(of: others) where !releasedPlists.contains(plist) {
                excluded.insert(folder.appendingPathComponent(plist).standardizedFileURL.path)
            }
            // The xcconfigs the released targets are based on and every file they include, as
            // Xcode reads them; a file only targets left alone reach is theirs.
            let includes = XcconfigIncludes(root: root, fileSystem: fileSystem)
            let shared = includes.chain(from: model.baseConfigurations(of: released, includingProject: true).sorted().map { folder.appendingPathComponent($0) }, project: pbxproj)
            let sharedPaths = Set(shared.files.map(\.path))
            for base in includes.chain(from: model.baseConfigurations(of: independent, includingProject: false).sorted().map { folder.appendingPathComponent($0) }).files
            where !sharedPaths.contains(base.path) {
                excluded.insert(base.path)
            }
            problems += shared.missing
            files.formUnion(sharedPaths)
            reachedXcconfigs += shared.files
            for target in independent {
                guard let own = model.ownVersion(of: target).map({ "MARKETING_VERSION \($0)" }) ?? plistVersion(of: target, in: model, folder: folder) else { continue }
                let kind = target.leftAloneBecause ?? (target.role == .test ? "a test target" : target.role == .app ? "an app of its own" : "not an extension of the app")
                leftAlone.append("\(target.name) (\(display)): \(own), \(kind); left alone"
                    + (target.role == .test ? "" : " (list it under versions.targets in .shiplane.yml to move it with the app)"))
            }
            if model.targets.contains(where: { $0.role == .app }) { appProjects.append((display, files)) }
        }
        let readByTheApp = Set(appProjects.flatMap(\.files))
        excluded.formUnion(setAsideFiles.subtracting(readByTheApp))
        // A target's INFOPLIST_FILE may be set in an xcconfig rather than the project.
        if usedPlists != nil {
            for setting in infoPlistSettings(in: tree.xcconfigs + reachedXcconfigs) {
                guard let path = setting else { usedPlists = nil; break }
                for folder in projectFolders { usedPlists?.insert(folder.appendingPathComponent(path).standardizedFileURL.path) }
            }
        }
        for plist in tree.shallowInfoPlists where !excluded.contains(plist.standardizedFileURL.path) {
            // An Info.plist no target uses (a leftover Tests/Info.plist at 1.0) ships in nothing.
            if let usedPlists, !usedPlists.contains(plist.standardizedFileURL.path) {
                if let version = literalPlistVersion(plist) {
                    ignored.append("\(VersionFileDetector.relativePath(of: plist, to: root)): version \(version), an Info.plist no target of "
                        + "\(projectNames.joined(separator: ", ")) uses (no INFOPLIST_FILE names it)")
                }
                continue
            }
            candidates.append(Candidate(url: plist, mustBeFile: false) { _ in InfoPlistVersionFormat() })
        }
        for xcconfig in tree.xcconfigs + reachedXcconfigs where !excluded.contains(xcconfig.standardizedFileURL.path) {
            candidates.append(Candidate(url: xcconfig, mustBeFile: false) { variables in
                XcconfigVersionFormat(versionVariables: variables.version.sorted(), buildVariables: variables.build.sorted())
            })
        }
        var androidApps: [VersionFile] = []
        var companions = placeholderCompanions(tree.gradleScripts)
        var unmatched = independentModules.subtracting(matchedProjects)
        for script in tree.gradleScripts {
            let folder = VersionFileDetector.relativePath(of: script.deletingLastPathComponent(), to: root)
            guard independentModules.contains(folder) else { continue }
            unmatched.remove(folder)
            companions[script.standardizedFileURL.path] = "\(VersionFileDetector.relativePath(of: script, to: root)): a release of its own (versions.independent in .shiplane.yml)"
        }
        if !unmatched.isEmpty {
            let settings = root.appendingPathComponent(".shiplane.yml")
            problems.append((VersionFile(url: settings, format: PlainVersionFormat(), displayPath: ".shiplane.yml"), VersionFileError(
                .missingVersion,
                "versions.independent names \(unmatched.sorted().joined(separator: ", ")), which holds no build.gradle or build.gradle.kts",
                file: ".shiplane.yml",
                details: tree.gradleScripts.map { $0.deletingLastPathComponent().standardizedFileURL }.filter { $0.path != root.path }
                    .map { ("module", VersionFileDetector.relativePath(of: $0, to: root)) },
                suggestion: "Name each module by its folder from the project's root (app-wearos), as the list of modules shows"
            )))
        }
        ignored += companions.values.sorted()
        for script in tree.gradleScripts where companions[script.standardizedFileURL.path] == nil {
            let kotlin = script.lastPathComponent.hasSuffix(".kts")
            candidates.append(Candidate(url: script, mustBeFile: false) { variables in
                GradleVersionFormat(kotlin: kotlin, versionVariables: variables.version.sorted(), buildVariables: variables.build.sorted())
            })
            // A test module (`com.android.test`, a convention plugin named `….android.test`:
            // benchmarks) names the app it tests and ships nothing: it has no version to find.
            if let bytes = try? fileSystem.contents(of: script.path), let text = String(data: bytes, encoding: .utf8),
               text.contains("applicationId"), !Self.isTestModule(text) {
                androidApps.append(VersionFile(url: script, format: GradleVersionFormat(kotlin: kotlin), displayPath: VersionFileDetector.relativePath(of: script, to: root)))
            }
        }
        for properties in tree.gradleProperties {
            candidates.append(Candidate(url: properties, mustBeFile: false) { variables in
                GradlePropertiesVersionFormat(versionProperties: variables.version.sorted(), buildProperties: variables.build.sorted())
            })
        }
        for catalog in tree.versionCatalogs {
            candidates.append(Candidate(url: catalog, mustBeFile: false) { variables in
                let prefix = GradleVersionCatalogFormat.catalogPrefix
                return GradleVersionCatalogFormat(
                    versionEntries: variables.version.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.sorted(),
                    buildEntries: variables.build.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.sorted()
                )
            })
        }
        // An Info.plist or base configuration a project names inside a submodule or a nested
        // repository belongs to that other project: never read nor written from here.
        candidates = deduplicated(candidates).filter {
            OtherProjects.enclosingRepository(of: $0.url.path, below: root.path, fileSystem: fileSystem) == nil
        }

        // Read, then read again with the settings the values refer to, until nothing new is referred to.
        var variables = Variables()
        var found = readAll(candidates, variables)
        // Each round follows one more level (`MARKETING_VERSION = $(APP_VERSION)`, `APP_VERSION = ${RELEASE_VERSION}`).
        for _ in 0..<16 {
            let next = referred(found.sources)
            if next == variables { break }
            variables = next
            found = readAll(candidates, variables)
        }
        problems += found.unreadable
        problems += unresolvedReferences(found.sources)
        // A script that could not be read (a computed versionName) is already an error of its own.
        let unreadable = Set(found.unreadable.map { $0.file.url.standardizedFileURL.path })
        problems += appsWithoutVersion(appProjects, androidApps.filter { !unreadable.contains($0.url.standardizedFileURL.path) }, found.sources)

        guard !found.sources.isEmpty || !problems.isEmpty else {
            throw VersionFileError(
                .notFound,
                "No version file found in \(root.path)",
                details: VersionFileDetector.searchedLocations.map { (key: "looked for", value: $0) } + found.skipped,
                suggestion: "Create a VERSION file holding the current version (for example 0.1.0), or configure a version file and pattern"
            )
        }
        return VersionFileDetector.Search(
            sources: found.sources.sorted { $0.file.displayPath < $1.file.displayPath },
            unreadable: problems,
            leftAlone: leftAlone,
            ignored: ignored
        )
    }

    /// Every `INFOPLIST_FILE` the xcconfigs set, relative to the project's folder; nil for one
    /// named through a setting (`$(TARGET_NAME)/Info.plist`), whose file is not known.
    private func infoPlistSettings(in xcconfigs: [URL]) -> [String?] {
        guard let regex = try? NSRegularExpression.builtIn(#"^\s*INFOPLIST_FILE(?:\[[^\]]*\])*\s*=\s*"?([^"]*?)"?\s*(?://.*)?$"#, options: [.anchorsMatchLines]) else { return [nil] }
        var settings: [String?] = []
        for xcconfig in xcconfigs {
            guard let bytes = try? fileSystem.contents(of: xcconfig.path), let text = String(data: bytes, encoding: .utf8) else { continue }
            for groups in VersionText.matches(regex, in: text) {
                guard let range = groups[1] else { continue }
                var path = String(decoding: Array(text.utf8)[range], as: UTF8.self)
                for prefix in ["$(SRCROOT)/", "${SRCROOT}/", "$(PROJECT_DIR)/", "${PROJECT_DIR}/"] where path.hasPrefix(prefix) {
                    path = String(path.dropFirst(prefix.count))
                }
                settings.append(path.contains("$(") || path.contains("${") ? nil : path)
            }
        }
        return settings
    }

    /// The literal `CFBundleShortVersionString` of an Info.plist, or nil.
    private func literalPlistVersion(_ url: URL) -> String? {
        guard let bytes = try? fileSystem.contents(of: url.path), let reading = try? InfoPlistVersionFormat().read(bytes),
              reading.version.literal != nil else { return nil }
        return reading.text
    }

    /// Android app modules at a placeholder version (`versionName "1.0"`, `versionCode 1`) that
    /// share their `applicationId` with a module at a real version (a Wear OS module beside the
    /// phone app): by path, each with the line that says why it is ignored.
    private func placeholderCompanions(_ scripts: [URL]) -> [String: String] {
        guard let regex = try? NSRegularExpression.builtIn(#"applicationId\s*(?:=\s*|\(\s*|\s+)["']([^"'$]+)["']"#),
              let namespace = try? NSRegularExpression.builtIn(#"namespace\s*(?:=\s*|\(\s*|\s+)["']([^"'$]+)["']"#) else { return [:] }
        var byApplication: [String: [(url: URL, reading: VersionReading)]] = [:]
        for script in scripts {
            // Without an applicationId, Android's build takes the module's namespace as its
            // application ID (AntennaPod's app module sets only `namespace "de.danoeh.antennapod"`).
            guard let bytes = try? fileSystem.contents(of: script.path), let text = String(data: bytes, encoding: .utf8),
                  let groups = VersionText.matches(regex, in: text).first ?? VersionText.matches(namespace, in: text).first, let range = groups[1],
                  let reading = try? GradleVersionFormat(kotlin: script.lastPathComponent.hasSuffix(".kts")).read(bytes) else { continue }
            let id = String(decoding: Array(text.utf8)[range], as: UTF8.self)
            byApplication[id, default: []].append((script, reading))
        }
        func isPlaceholder(_ reading: VersionReading) -> Bool {
            guard reading.version.literal != nil, let text = reading.text, ["1", "1.0", "1.0.0"].contains(text) else { return false }
            return reading.build == nil || reading.build == .literal("1")
        }
        var companions: [String: String] = [:]
        for (id, modules) in byApplication {
            guard let real = modules.first(where: { !isPlaceholder($0.reading) }) else { continue }
            for module in modules where isPlaceholder(module.reading) {
                let display = VersionFileDetector.relativePath(of: module.url, to: root)
                companions[module.url.standardizedFileURL.path] = "\(display): versionName \(module.reading.text ?? "1.0")"
                    + (module.reading.build.map { _ in ", versionCode 1" } ?? "")
                    + ", a placeholder beside \(VersionFileDetector.relativePath(of: real.url, to: root)) (the same applicationId, \(id)); "
                    + "give it the app's version to move it with the app"
            }
        }
        return companions
    }

    /// The literal `applicationId` of a Gradle script, else its `namespace` (which Android's
    /// build takes as the application ID when none is set).
    static func applicationID(of bytes: Data) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for key in ["applicationId", "namespace"] {
            guard let regex = try? NSRegularExpression.builtIn(key + #"\s*(?:=\s*|\(\s*|\s+)["']([^"'$]+)["']"#),
                  let groups = VersionText.matches(regex, in: text).first, let range = groups[1] else { continue }
            return String(decoding: Array(text.utf8)[range], as: UTF8.self)
        }
        return nil
    }

    /// True for a Gradle test module: `com.android.test`, or a convention plugin `….android.test`.
    static func isTestModule(_ text: String) -> Bool {
        text.range(of: #"(id\s*\(?\s*["']com\.android\.test["']|alias\s*\(\s*libs\.plugins\.[A-Za-z0-9.]*android\.test\s*\))"#, options: .regularExpression) != nil
    }

    /// Whether every released target has an Info.plist and each writes a literal
    /// `CFBundleShortVersionString` (`version`) or `CFBundleVersion` (`build`) of its own.
    private func plistsWriteTheirOwn(_ targets: [XcodeProjectModel.Target], in model: XcodeProjectModel, folder: URL) -> (version: Bool, build: Bool) {
        guard !targets.isEmpty, !model.namesAnInfoPlistThroughASetting else { return (false, false) }
        var version = true
        var build = true
        for target in targets {
            let plists = model.infoPlists(of: [target])
            guard !plists.isEmpty else { return (false, false) }
            for plist in plists {
                guard let bytes = try? fileSystem.contents(of: folder.appendingPathComponent(plist).path),
                      let reading = try? InfoPlistVersionFormat().read(bytes) else { return (false, false) }
                version = version && reading.version.literal != nil
                build = build && reading.build?.literal != nil
            }
        }
        return (version, build)
    }

    /// The literal `CFBundleShortVersionString` and `CFBundleVersion` a target's Info.plist
    /// writes itself (nil where it has none or refers to a setting).
    private func plistLiterals(of target: XcodeProjectModel.Target, in model: XcodeProjectModel, folder: URL) -> (version: String?, build: String?) {
        for plist in model.infoPlists(of: [target]).sorted() {
            guard let bytes = try? fileSystem.contents(of: folder.appendingPathComponent(plist).path),
                  let reading = try? InfoPlistVersionFormat().read(bytes) else { continue }
            return (reading.version.literal != nil ? reading.text : nil, reading.build?.literal)
        }
        return (nil, nil)
    }

    /// "CFBundleShortVersionString 1.0 in Sources/Launcher/Info.plist" when the target's
    /// Info.plist writes a version of its own.
    private func plistVersion(of target: XcodeProjectModel.Target, in model: XcodeProjectModel, folder: URL) -> String? {
        for plist in model.infoPlists(of: [target]).sorted() {
            let url = folder.appendingPathComponent(plist)
            guard let bytes = try? fileSystem.contents(of: url.path), let reading = try? InfoPlistVersionFormat().read(bytes),
                  reading.version.literal != nil, let text = reading.text else { continue }
            return "CFBundleShortVersionString \(text) in \(VersionFileDetector.relativePath(of: url, to: root))"
        }
        return nil
    }

    // MARK: - Candidates

    private func rootCandidates() -> [Candidate] {
        var candidates: [Candidate] = []
        func add(_ name: String, _ format: @escaping @Sendable () -> any VersionFormat) {
            candidates.append(Candidate(url: root.appendingPathComponent(name), mustBeFile: true) { _ in format() })
        }
        let names = (try? fileSystem.list(root.path)) ?? []
        for name in names {
            switch name {
            case "VERSION": add(name) { PlainVersionFormat() }
            case "package.json": add(name) { PackageJSONVersionFormat() }
            case "Cargo.toml": add(name) { CargoVersionFormat() }
            case "pyproject.toml": add(name) { PyprojectVersionFormat() }
            case "pubspec.yaml": add(name) { FlutterPubspecVersionFormat() }
            case "app.json": add(name) { ExpoAppJSONVersionFormat() }
            case "app.config.js", "app.config.ts": add(name) { ExpoAppConfigVersionFormat(name: name) }
            default:
                if name.hasSuffix(".podspec") { add(name) { PodspecVersionFormat() } }
            }
        }
        let sources = root.appendingPathComponent("Sources")
        for name in (try? fileSystem.list(sources.path)) ?? [] where fileSystem.isFolder(sources.appendingPathComponent(name).path) {
            candidates.append(Candidate(url: sources.appendingPathComponent(name).appendingPathComponent("Version.swift"), mustBeFile: false) { _ in
                SwiftConstantVersionFormat()
            })
        }
        return candidates
    }

    private func deduplicated(_ candidates: [Candidate]) -> [Candidate] {
        var seen: Set<String> = []
        return candidates.filter { seen.insert($0.url.standardizedFileURL.path).inserted }
    }

    // MARK: - Reading

    private struct Found {
        var sources: [AgreedVersion.Source] = []
        var unreadable: [(file: VersionFile, error: any Error)] = []
        var skipped: [(key: String, value: String)] = []
    }

    private func readAll(_ candidates: [Candidate], _ variables: Variables) -> Found {
        var found = Found()
        for candidate in candidates {
            let url = candidate.url
            var file = VersionFile(url: url, format: candidate.format(variables), displayPath: VersionFileDetector.relativePath(of: url, to: root))
            file.followsApp = candidate.follower
            guard let kind = fileSystem.kind(of: url.path) else { continue }
            if kind == .folder {
                if candidate.mustBeFile {
                    found.unreadable.append((file, VersionFileError(
                        .fileSystem, "\(file.displayPath) is a folder, not a version file",
                        file: file.displayPath, suggestion: "Remove or rename the folder, or write the version into a file of that name"
                    )))
                }
                continue
            }
            if let target = VersionFileDetector.linkLeaving(root, url) {
                found.unreadable.append((file, VersionFileError(
                    .fileSystem, "\(file.displayPath) is a symbolic link to \(target), outside the repository",
                    file: file.displayPath, suggestion: "Shiplane only writes inside the repository: replace the link with the file itself"
                )))
                continue
            }
            do {
                guard let bytes = try fileSystem.contents(of: url.path) else {
                    if kind == .symbolicLink {
                        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) ?? "a missing file"
                        found.unreadable.append((file, VersionFileError(
                            .fileSystem, "\(file.displayPath) is a symbolic link to \(target), which does not exist",
                            file: file.displayPath, suggestion: "Point the link at the version file, or replace it with the file itself"
                        )))
                    }
                    continue
                }
                found.sources.append(try AgreedVersion.Source(file: file, bytes: bytes))
            } catch let error as VersionFileError where error.kind == .notASource {
                found.skipped.append((key: "skipped \(file.displayPath)", value: error.message))
            } catch {
                found.unreadable.append((file, error))
            }
        }
        return found
    }

    /// The variables the sources refer to, beyond the ones every format reads by name.
    private func referred(_ sources: [AgreedVersion.Source]) -> Variables {
        let known = Set(["MARKETING_VERSION", "CURRENT_PROJECT_VERSION"]).union(Self.flutterVariables)
        var variables = Variables()
        for source in sources {
            variables.version.formUnion(source.reading.versionReferences.subtracting(known))
            variables.build.formUnion(source.reading.buildReferences.subtracting(known))
        }
        return variables
    }

    // MARK: - Checks

    /// A value that refers to a setting nothing sets: its real value cannot be found, so the
    /// version the stores see is unknown.
    private func unresolvedReferences(_ sources: [AgreedVersion.Source]) -> [(file: VersionFile, error: any Error)] {
        var defined = Set(sources.flatMap(\.reading.definedVariables))
        if sources.contains(where: { $0.file.format is FlutterPubspecVersionFormat }) { defined.formUnion(Self.flutterVariables) }
        var problems: [(file: VersionFile, error: any Error)] = []
        for source in sources {
            let missing = source.reading.versionReferences.union(source.reading.buildReferences).subtracting(defined).sorted()
            guard !missing.isEmpty else { continue }
            let flutter = !Set(missing).isDisjoint(with: Self.flutterVariables)
            let gradle = source.file.format is GradleVersionFormat
            let names = missing.joined(separator: ", ")
            problems.append((source.file, VersionFileError(
                .missingVersion,
                "\(source.file.displayPath) takes its version from \(missing.map { "`\($0)`" }.joined(separator: ", ")), which no version file sets",
                file: source.file.displayPath,
                details: [("looked in", gradle
                    ? "gradle.properties files, gradle/libs.versions.toml, the build scripts' own variables (val, def, ext), pubspec.yaml"
                    : "project.pbxproj build settings, .xcconfig files, gradle.properties, gradle/libs.versions.toml, build scripts, pubspec.yaml")],
                suggestion: flutter
                    ? "Flutter's build name and number come from `version:` in pubspec.yaml at the repository root: add it (version: 1.0.0+1)"
                    : gradle
                    ? "Set \(names) in gradle.properties (\(missing[0])=1.2.3), define it in the script (val \(missing[0]) = \"1.2.3\"), or write the value in \(source.file.displayPath)"
                    : "Set \(names) in an .xcconfig, the project's build settings or gradle.properties, or write the value in \(source.file.displayPath)"
            )))
        }
        return problems
    }

    /// Xcode projects with an app target and Android app modules whose version was not found.
    private func appsWithoutVersion(
        _ projects: [(display: String, files: Set<String>)], _ androidApps: [VersionFile], _ sources: [AgreedVersion.Source]
    ) -> [(file: VersionFile, error: any Error)] {
        let read = Set(sources.map { $0.file.url.standardizedFileURL.path })
        let crossPlatform = sources.contains { $0.file.format is FlutterPubspecVersionFormat || $0.file.format is ExpoAppJSONVersionFormat }
        var problems: [(file: VersionFile, error: any Error)] = []
        for project in projects where read.isDisjoint(with: project.files) && !crossPlatform {
            let pbxproj = root.appendingPathComponent(project.display)
            problems.append((VersionFile(url: pbxproj, format: XcodeProjectVersionFormat(), displayPath: project.display), VersionFileError(
                .missingVersion,
                "The Xcode project has an app target but no version was found for it",
                file: project.display,
                details: [("looked for", "MARKETING_VERSION and CURRENT_PROJECT_VERSION in the app's and its extensions' build configurations and the project's"),
                          ("looked for", "the same in the .xcconfig files they are based on, the files those #include, and every other .xcconfig in the repository that no target left alone is based on"),
                          ("looked for", "CFBundleShortVersionString in each target's INFOPLIST_FILE")],
                suggestion: "Set the app's Version and Build in Xcode (target › General › Identity), or MARKETING_VERSION = 1.0 in an .xcconfig"
            )))
        }
        // An app module with no versionName whose applicationId is that of a module with a
        // version is its companion (PeopleInSpace's wearApp beside app): it ships under the app's entry.
        let versioned = Set(sources.filter { $0.file.format is GradleVersionFormat && $0.reading.version.literal != nil }
            .compactMap { Self.applicationID(of: $0.bytes) })
        for app in androidApps where !read.contains(app.url.standardizedFileURL.path) && !crossPlatform {
            if let bytes = try? fileSystem.contents(of: app.url.path), let id = Self.applicationID(of: bytes), versioned.contains(id) { continue }
            problems.append((app, VersionFileError(
                .missingVersion,
                "The Android app module sets no versionName",
                file: app.displayPath,
                details: [("looked for", "versionName and versionCode in defaultConfig and productFlavors, as `versionName \"1.0\"` or `versionName = \"1.0\"`")],
                suggestion: "Write versionName and versionCode in defaultConfig, or refer them to gradle.properties (VERSION_NAME, VERSION_CODE) or the version catalog"
            )))
        }
        return problems
    }
}
